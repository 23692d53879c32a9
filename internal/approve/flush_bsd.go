//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package approve

import "golang.org/x/sys/unix"

// fread is FREAD from <sys/fcntl.h>: TIOCFLUSH then flushes input only.
const fread = 1

// flushInput discards input the terminal received but nobody read.
func flushInput(fd int) error { return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fread) }
