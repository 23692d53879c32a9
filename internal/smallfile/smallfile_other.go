//go:build !unix

package smallfile

func read(path string, limit int64) ([]byte, error) { return readOS(path, limit) }
