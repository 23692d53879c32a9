package runner

import (
	"io"
	"sync"
)

// readSize is the buffer each stream is read through: output goes from the
// pipe to the sink in chunks of at most this size, so memory stays the
// same whatever the command prints and whatever the cap.
const readSize = 32 << 10

var readBufs = sync.Pool{New: func() any { return new([readSize]byte) }}

// capture is the output budget shared by stdout and stderr.
type capture struct {
	mu        sync.Mutex
	left      int64 // bytes of the cap not used yet; never grows
	truncated bool
	dropped   int64
	full      func() // called once, when the first byte past the cap is read
}

// sink is where one stream goes, and what became of it.
type sink struct {
	w       io.Writer // nil discards
	written int64     // bytes passed to w (or discarded for a nil w) within the cap
	err     error     // the first error w returned; w gets nothing after it
}

// drain reads r until EOF or an error (such as r being closed), passing
// what fits in the budget to s.w and discarding the rest, and then sends
// on done.
func (c *capture) drain(r io.Reader, s *sink, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	buf := readBufs.Get().(*[readSize]byte)
	defer readBufs.Put(buf)
	for {
		n, err := r.Read(buf[:])
		if n > 0 {
			kept := c.account(int64(n))
			s.written += kept
			if kept > 0 && s.w != nil && s.err == nil {
				if _, werr := s.w.Write(buf[:kept]); werr != nil {
					s.err = werr
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// account takes n freshly read bytes out of the budget and returns how many
// of them are kept.
func (c *capture) account(n int64) int64 {
	c.mu.Lock()
	kept := min(n, c.left)
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
