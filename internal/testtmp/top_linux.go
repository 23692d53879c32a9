package testtmp

import (
	"os"

	"golang.org/x/sys/unix"
)

const useOwnDir = true

// fsTopdirFL is FS_TOPDIR_FL of linux/fs.h (ext4's EXT4_TOPDIR_FL, set
// by chattr +T), which golang.org/x/sys/unix does not name.
const fsTopdirFL = 0x00020000

// markTop marks dir as the top of a hierarchy, where the file system has
// such a flag (ext2, ext3, ext4); elsewhere it does nothing.
func markTop(dir string) {
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err != nil {
		return
	}
	_ = unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags|fsTopdirFL))
}
