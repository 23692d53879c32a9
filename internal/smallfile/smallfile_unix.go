//go:build unix

package smallfile

import (
	"io/fs"
	"syscall"
)

func read(path string, limit int64) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	size := 512
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Size > 0 {
		size = int(st.Size) + 1 // +1: the read that sees the end
	}
	if limit >= 0 && int64(size) > limit+1 {
		size = int(limit + 1)
	}
	data := make([]byte, 0, size)
	for limit < 0 || int64(len(data)) <= limit {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		buf := data[len(data):cap(data)]
		if limit >= 0 && int64(len(data)+len(buf)) > limit+1 {
			buf = buf[:limit+1-int64(len(data))]
		}
		n, err := syscall.Read(fd, buf)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return data, nil // a FIFO or device with nothing more now
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		case n == 0:
			return data, nil
		}
		data = data[:len(data)+n]
	}
	return data, nil
}
