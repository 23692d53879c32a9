//go:build unix

package hook

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByMe reports whether fi belongs to the person running clada.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
