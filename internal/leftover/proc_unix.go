//go:build unix

package leftover

import "syscall"

func killPID(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }

// newSession starts a process in a session of its own.
func newSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
