package approve

import "golang.org/x/sys/unix"

// flushInput discards input the terminal received but nobody read.
func flushInput(fd int) error { return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }
