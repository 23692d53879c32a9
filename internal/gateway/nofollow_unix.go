//go:build unix

package gateway

import (
	"io/fs"
	"syscall"
)

// noFollow makes opening a redirection's file fail when its last
// component is a symbolic link.
const noFollow = syscall.O_NOFOLLOW

// linkCount returns the number of hard links of the file fi describes.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
