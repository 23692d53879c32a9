//go:build !linux

package approve

import (
	"io"
	"time"
)

// waitTypedAhead: elsewhere a fixed wait (the pty tests run on Linux and
// macOS; macOS has no TIOCINQ in x/sys/unix).
func waitTypedAhead(io.Reader) { time.Sleep(300 * time.Millisecond) }
