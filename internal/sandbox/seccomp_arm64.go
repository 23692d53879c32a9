//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// seccompArch is the audit architecture of native system calls.
const (
	seccompArch = unix.AUDIT_ARCH_AARCH64
	seccompX32  = false
)

// seccompArchModeCalls is empty: arm64 has only the *at calls of
// modeCalls (no chmod, open, creat, mknod or mkdir).
var seccompArchModeCalls []modeCall
