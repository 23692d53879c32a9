//go:build unix

package specs

import (
	"io/fs"
	"syscall"
)

// linkCount returns the number of hard links of a regular file, or 1 when
// it cannot tell.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
