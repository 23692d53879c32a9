//go:build unix

package decisionlog

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

const noFollow = syscall.O_NOFOLLOW

// openAppend opens the log file for appending, creating it: never through
// a symbolic link (O_NOFOLLOW), never blocking on a FIFO (O_NONBLOCK, which
// fails at once without a reader), and only a regular file with one link
// owned by this user, so that a link planted in .clada/log cannot make
// clada append to a file elsewhere.
// size is the file's size when opened.
func openAppend(path string) (f *os.File, size int64, err error) {
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("opening the decision log: %w", err)
	}
	fi, err := checkOwn(f)
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// openRead opens a log file for reading under the same conditions.
func openRead(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if _, err := checkOwn(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func checkOwn(f *os.File) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file: clada neither writes nor reads the decision log through it; move it away", f.Name())
	case ok && st.Nlink != 1:
		return nil, fmt.Errorf("%s has %d hard links: clada neither writes nor reads the decision log through it; move it away", f.Name(), st.Nlink)
	case ok && int(st.Uid) != os.Geteuid():
		return nil, fmt.Errorf("%s belongs to another user: clada neither writes nor reads the decision log through it; move it away", f.Name())
	}
	return fi, nil
}
