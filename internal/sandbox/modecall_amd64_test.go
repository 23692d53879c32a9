//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// legacyModeCalls are the mode calls amd64 has besides the *at ones.
var legacyModeCalls = map[string]uintptr{
	"chmod": unix.SYS_CHMOD,
	"open":  unix.SYS_OPEN,
	"creat": unix.SYS_CREAT,
	"mknod": unix.SYS_MKNOD,
	"mkdir": unix.SYS_MKDIR,
}
