package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Options say how [Write] writes.
type Options struct {
	// Perm is the permission of the new file (before the umask has no
	// say: it is set with chmod).
	Perm fs.FileMode
	// Sync flushes the temporary file to disk before the rename, so a
	// crash leaves the old content or the new one, not an empty file.
	Sync bool
}

// Write replaces path with data: a temporary file ".NAME.tmp-*" in path's
// directory gets data and opts.Perm, is synced when opts.Sync says so,
// and is renamed over path. path itself is replaced: a symbolic link
// there becomes a regular file (resolve it first to write through it). A
// directory at path is refused. On failure the temporary file is removed
// and path is as it was. Errors are the operating system's (*fs.PathError
// and *os.LinkError, naming the temporary file or path), for the caller
// to wrap.
func Write(path string, data []byte, opts Options) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(opts.Perm)
	}
	if err == nil && opts.Sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if fi, lerr := os.Lstat(path); lerr == nil && fi.IsDir() {
		return &fs.PathError{Op: "replace", Path: path, Err: syscall.EISDIR}
	}
	return os.Rename(tmp, path)
}

// Perm returns the permission bits of the file at path (a link
// followed), or def when there is no such file: what a caller passes to
// [Write] to keep a file's permissions.
func Perm(path string, def fs.FileMode) fs.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return def
}
