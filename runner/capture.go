package runner

import (
	"io"
	"sync"
)

const (
	// firstChunk is the first buffer allocated for a stream that prints
	// anything; most commands print less.
	firstChunk = 512
	// jumpAt is the size past which a growing buffer is allocated at its
	// final size (what is left of the cap) instead of doubling again, so
	// that the old and the new buffer are never both large: the peak stays
	// near the cap plus jumpAt. Pages of the new buffer that are never
	// written are never touched.
	jumpAt = 256 << 10
	// maxJump bounds that final-size allocation for very large caps, above
	// which buffers keep doubling.
	maxJump = 64 << 20
	// scratchSize is the buffer that reads and discards output past the cap.
	scratchSize = 32 << 10
)

// capture is the output budget shared by stdout and stderr.
type capture struct {
	mu        sync.Mutex
	left      int64 // bytes of the cap not used yet; never grows
	truncated bool
	dropped   int64
	full      func() // called once, when the first byte past the cap is read
}

// drain reads r until EOF or an error (such as r being closed), appending
// what fits in the budget to *dst and discarding the rest, and then sends on
// done. It reads straight into the spare capacity of *dst, so that no
// copying buffer is needed below the cap.
func (c *capture) drain(r io.Reader, dst *[]byte, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	var buf, scratch []byte
	for {
		c.mu.Lock()
		left := c.left
		c.mu.Unlock()
		var into []byte
		if left > 0 {
			if len(buf) == cap(buf) {
				buf = grow(buf, left)
			}
			into = buf[len(buf):cap(buf)]
		} else {
			if scratch == nil {
				scratch = make([]byte, scratchSize)
			}
			into = scratch
		}
		n, err := r.Read(into)
		if n > 0 {
			kept := c.account(int64(n), left > 0)
			buf = buf[:len(buf)+int(kept)]
		}
		if err != nil {
			break
		}
	}
	*dst = buf
}

// account takes n freshly read bytes out of the budget and returns how many
// of them are kept (0 when they were read into the scratch buffer).
func (c *capture) account(n int64, inPlace bool) int64 {
	c.mu.Lock()
	kept := int64(0)
	if inPlace {
		kept = min(n, c.left)
	}
	c.left -= kept
	first := false
	if kept < n {
		c.dropped += n - kept
		first = !c.truncated
		c.truncated = true
	}
	c.mu.Unlock()
	if first {
		c.full()
	}
	return kept
}

// grow returns buf with more spare capacity, never more than left bytes
// beyond its length.
func grow(buf []byte, left int64) []byte {
	limit := int64(len(buf)) + left
	newCap := max(2*int64(cap(buf)), firstChunk)
	if newCap > jumpAt && limit <= maxJump {
		newCap = limit
	}
	newCap = min(newCap, limit)
	nb := make([]byte, len(buf), newCap)
	copy(nb, buf)
	return nb
}
