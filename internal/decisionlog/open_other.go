//go:build !unix

package decisionlog

import (
	"fmt"
	"io/fs"
	"os"
)

const noFollow = 0

// openAppend opens the log file for appending, creating it, after making
// sure it is not a symbolic link; where there is no O_NOFOLLOW the check
// and the open are two steps.
func openAppend(path string) (*os.File, int64, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file: clada writes no decision log through it; move it away", path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("opening the decision log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

func openRead(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("not a regular file")}
	}
	return os.Open(path)
}
