// Package smallfile reads the small files clada reads at every start
// (.clada/*.toml, git configuration) with plain system calls.
//
// os.Open of a regular file on Linux first tries to register the file with
// the runtime's network poller, and the first open also creates the
// poller (epoll, an eventfd): about 45 µs of the ~0.3 ms that clada check
// spends deciding, for files that are read once, whole, in one or two
// read calls. Read does what os.ReadFile does without the poller.
package smallfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// Read returns the content of the file at path, at most limit+1 bytes
// when limit ≥ 0 (so that a caller can tell a file over its limit), all of
// it when limit < 0. Errors are *fs.PathError, as os.ReadFile's, so
// errors.Is(err, fs.ErrNotExist) works. A file that is not a regular file
// (a FIFO, a device) is opened without blocking and read as far as it
// gives data at once.
func Read(path string, limit int64) ([]byte, error) {
	return read(path, limit)
}

// readOS is Read with os.Open, where there are no plain system calls to
// use.
func readOS(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if limit >= 0 {
		r = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		var pe *fs.PathError
		if !errors.As(err, &pe) {
			err = &fs.PathError{Op: "read", Path: path, Err: err}
		}
		return nil, err
	}
	return data, nil
}
