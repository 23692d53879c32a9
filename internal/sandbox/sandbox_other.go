//go:build !linux && !darwin

package sandbox

import (
	"os/exec"
	"runtime"
)

type platform struct{}

func (platform) close() error { return nil }

// probePlatform says plainly that nothing confines commands here: on
// Windows neither a restricted token nor an AppContainer would keep a
// command to the project without breaking ordinary programs, and a
// confinement done badly would be worse than none that says so.
func probePlatform(s *Support) {
	if runtime.GOOS == "windows" {
		s.Reason = "Windows has no confinement clada supports"
		return
	}
	s.Reason = runtime.GOOS + " has no confinement clada supports"
}

func (s *Sandbox) start(cmd *exec.Cmd, _ Command) (Outcome, error) {
	return Unconfined(s.support.Reason), cmd.Start()
}

func (s *Sandbox) outcome(Command, bool, bool) Outcome { return Unconfined(s.support.Reason) }

func (s *Sandbox) netNamespaceFor(Command) bool { return false }

// TempRoot returns "": each command's TMPDIR is made where the caller
// makes it by default (only Linux keeps confined launchers, which need
// one directory for all of them).
func (s *Sandbox) TempRoot() string { return "" }
