//go:build linux

package approve

import (
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// waitTypedAhead waits (up to 20 s) until the terminal in holds input
// that nobody has read yet: the answer TestPTYTypeAhead types before the
// question. A fixed sleep raced with a loaded machine, where the typed
// line could arrive after the question and be taken as its answer.
func waitTypedAhead(in io.Reader) {
	f, ok := in.(*os.File)
	if !ok {
		time.Sleep(300 * time.Millisecond)
		return
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if n, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ); err != nil || n > 0 {
			return
		}
	}
}
