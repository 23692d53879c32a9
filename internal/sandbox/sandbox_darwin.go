package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

// sandboxExec is the program that runs a command under a profile; its
// full path, so that PATH cannot replace it.
const sandboxExec = "/usr/bin/sandbox-exec"

type platform struct{}

func (platform) close() error { return nil }

func probePlatform(s *Support) {
	if os.Getenv(testNoLandlock) != "" {
		s.Reason = "no sandbox-exec (simulated: " + testNoLandlock + " is set)"
		return
	}
	if _, err := os.Stat(sandboxExec); err != nil {
		s.Reason = "no " + sandboxExec
		return
	}
	s.Profile = true
	s.NamespaceReason = "not needed: the profile keeps .git and .clada read-only"
}

// start runs cmd under sandbox-exec with the profile of c: the program
// becomes sandbox-exec, which then runs the command (by its resolved
// path; its argv[0] is that path rather than the name written).
func (s *Sandbox) start(cmd *exec.Cmd, c Command) (Outcome, error) {
	c.TmpDir = canonical(c.TmpDir)
	for i := range c.Caches {
		c.Caches[i] = canonical(c.Caches[i])
	}
	for i := range c.Files {
		c.Files[i] = canonical(c.Files[i])
	}
	if cmd.Path == "" {
		return Outcome{}, errors.New("sandbox: no program")
	}
	profile, params := darwinProfile(s.root, s.home, s.dirs, c)
	args := []string{"sandbox-exec", "-p", profile}
	for _, p := range params {
		args = append(args, "-D", p.Name+"="+p.Value)
	}
	args = append(args, "--", cmd.Path)
	args = append(args, slices.Clone(cmd.Args[1:])...)
	cmd.Path, cmd.Args = sandboxExec, args
	o := s.outcome(c, false, false)
	return o, cmd.Start()
}

func (s *Sandbox) outcome(c Command, _, _ bool) Outcome {
	text := "confined: sandbox-exec profile"
	if c.Repository {
		text += ", repository writable"
	}
	if c.Network {
		return Outcome{Confined: true, Network: true, Text: text + ", network on"}
	}
	return Outcome{Confined: true, Text: text + ", network off"}
}

// canonical resolves symbolic links (/tmp is /private/tmp on macOS), as
// sandbox-exec compares resolved paths.
func canonical(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// TempRoot returns "": each command's TMPDIR is made where the caller
// makes it by default (only Linux keeps confined launchers, which need
// one directory for all of them).
func (s *Sandbox) TempRoot() string { return "" }

// netNamespaceFor is false: macOS has no network namespaces; the profile
// lets a proxied command reach only the proxy's loopback port.
func (s *Sandbox) netNamespaceFor(Command) bool { return false }
