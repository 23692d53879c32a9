//go:build !unix && !windows

package approve

import "io"

// OpenTTY reports [ErrNoTTY]: clada knows no terminal on this system.
func OpenTTY() (in io.ReadCloser, out io.WriteCloser, err error) {
	return nil, nil, ErrNoTTY
}
