//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// seccompArch is the audit architecture of native system calls.
const (
	seccompArch = unix.AUDIT_ARCH_AARCH64
	seccompX32  = false
)
