//go:build !unix

package leftover

import (
	"os"
	"syscall"
)

func killPID(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// newSession: no sessions here; the tests that use leftovers run on Linux.
func newSession() *syscall.SysProcAttr { return nil }
