//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// seccompArch is the audit architecture of native system calls;
// seccompX32 says that x32 calls (numbers with bit 30 set) share it.
const (
	seccompArch = unix.AUDIT_ARCH_X86_64
	seccompX32  = true
)
