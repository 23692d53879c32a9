//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// seccompArch is the audit architecture of native system calls;
// seccompX32 says that x32 calls (numbers with bit 30 set) share it.
const (
	seccompArch = unix.AUDIT_ARCH_X86_64
	seccompX32  = true
)

// seccompArchModeCalls are the mode calls amd64 has besides the generic
// ones (see modeCalls): chmod(path, mode), open(path, flags, mode),
// creat(path, mode), which always creates, mknod(path, mode, dev) and
// mkdir(path, mode).
var seccompArchModeCalls = []modeCall{
	{nr: unix.SYS_CHMOD, mode: 1, flags: -1, bits: setID},
	{nr: unix.SYS_OPEN, mode: 2, flags: 1, bits: setID},
	{nr: unix.SYS_CREAT, mode: 1, flags: -1, bits: setID},
	{nr: unix.SYS_MKNOD, mode: 1, flags: -1, bits: setID},
	{nr: unix.SYS_MKDIR, mode: 1, flags: -1, bits: unix.S_ISUID},
}
