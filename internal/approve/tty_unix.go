//go:build unix

package approve

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

const ttyPath = "/dev/tty"

// OpenTTY opens the controlling terminal, /dev/tty, once for reading and
// once for writing. Without one (CI, a daemon, setsid) the error wraps
// [ErrNoTTY]. It never falls back to stdin.
func OpenTTY() (in io.ReadCloser, out io.WriteCloser, err error) {
	r, err := os.OpenFile(ttyPath, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrNoTTY, err)
	}
	if !isTerminal(r) {
		r.Close()
		return nil, nil, fmt.Errorf("%w: %s is not a terminal", ErrNoTTY, ttyPath)
	}
	w, err := os.OpenFile(ttyPath, os.O_WRONLY, 0)
	if err != nil {
		r.Close()
		return nil, nil, fmt.Errorf("%w: %w", ErrNoTTY, err)
	}
	return ttyReader{r}, w, nil
}

// isTerminal checks f without f.Fd, which would switch the file to
// blocking mode so that Close could no longer interrupt a pending Read.
func isTerminal(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	if err := rc.Control(func(fd uintptr) { ok = term.IsTerminal(int(fd)) }); err != nil {
		return false
	}
	return ok
}

// ttyReader is the terminal's input side; it can drop type-ahead.
type ttyReader struct{ *os.File }

func (t ttyReader) discardInput() error {
	rc, err := t.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = flushInput(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
