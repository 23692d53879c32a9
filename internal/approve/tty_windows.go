//go:build windows

package approve

import (
	"fmt"
	"io"
	"os"
)

// OpenTTY opens the console, CONIN$ for reading and CONOUT$ for writing.
// Without a console the error wraps [ErrNoTTY]. It never falls back to
// stdin.
func OpenTTY() (in io.ReadCloser, out io.WriteCloser, err error) {
	r, err := os.OpenFile("CONIN$", os.O_RDWR, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrNoTTY, err)
	}
	w, err := os.OpenFile("CONOUT$", os.O_RDWR, 0)
	if err != nil {
		r.Close()
		return nil, nil, fmt.Errorf("%w: %w", ErrNoTTY, err)
	}
	return r, w, nil
}
