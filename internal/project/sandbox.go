package project

import (
	"fmt"
	"path/filepath"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/sandbox"
)

// Sandbox returns the sandbox the commands of a run are confined by: its
// mode is flag (--sandbox) when given, else config.toml's sandbox, else
// auto. warning is the line to print once when the mode is off, naming
// where that came from; "" otherwise. In required mode on a machine that
// cannot confine commands it returns an error saying why, and nothing
// may run.
func (p *Project) Sandbox(flag string) (sb *sandbox.Sandbox, warning string, err error) {
	from := "--sandbox"
	if flag == "" {
		from = p.Config.Origins["sandbox"]
	}
	if err := p.managedSandbox(flag); err != nil {
		return nil, "", err
	}
	m, err := sandbox.ParseMode(p.SandboxMode(flag))
	if err != nil {
		return nil, "", hint(err, "give --sandbox auto, required or off")
	}
	if sb, err = sandbox.New(sandbox.Options{Mode: m, Root: p.Root, WriteDirs: p.WriteDirs()}); err != nil {
		return nil, "", err
	}
	switch sup := sb.Support(); {
	case m == sandbox.ModeOff:
		warning = fmt.Sprintf("clada: warning: sandbox = off (%s): commands run unconfined, with nothing behind clada's rules", from)
	case m == sandbox.ModeRequired && !sup.Confines():
		sb.Close()
		return nil, "", hint(fmt.Errorf("sandbox = required (%s), and this machine cannot confine commands: %s", from, sup.Reason),
			"`clada sandbox` says what this machine supports; a person who accepts running commands unconfined can pass --sandbox auto")
	}
	return sb, warning, nil
}

// SandboxMode is the sandbox mode as written: flag (--sandbox), else
// config.toml's sandbox, else "" (auto). It is not checked; Sandbox does.
func (p *Project) SandboxMode(flag string) string {
	if flag != "" {
		return flag
	}
	return p.Config.Sandbox
}

// managedSandbox refuses a --sandbox flag that would lower the managed
// configuration's sandbox = "required": what the administrator requires,
// nobody below lifts.
func (p *Project) managedSandbox(flag string) error {
	if flag == "" || p.Config.Sandbox != "required" || !p.fromManaged("sandbox") {
		return nil
	}
	if m, err := sandbox.ParseMode(flag); err == nil && m == sandbox.ModeRequired {
		return nil
	}
	return hint(fmt.Errorf("--sandbox %s: the managed configuration (%s) requires the sandbox", flag, p.Config.Origins["sandbox"]),
		"run without --sandbox; only the administrator can change it")
}

// fromManaged reports whether the effective value of key comes from the
// managed scope.
func (p *Project) fromManaged(key string) bool {
	origin := p.Config.Origins[key]
	return origin != "" && filepath.Dir(origin) == approve.ManagedDir()
}

// CheckManaged returns an error when the managed configuration forbids
// what the person asked for: --trust-all under trust_all = false.
func (p *Project) CheckManaged(trustAll bool) error {
	if trustAll && p.Config.TrustAll != nil && !*p.Config.TrustAll {
		return hint(fmt.Errorf("--trust-all: the managed configuration (%s) sets trust_all = false", p.Config.Origins["trust_all"]),
			"answer the questions instead; only the administrator can change it")
	}
	return nil
}
