package project

import (
	"fmt"

	"github.com/clada/clada/sandbox"
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
		from = p.Config.Path
	}
	m, err := sandbox.ParseMode(p.SandboxMode(flag))
	if err != nil {
		return nil, "", hint(err, "give --sandbox auto, required or off")
	}
	if sb, err = sandbox.New(sandbox.Options{Mode: m, Root: p.Root}); err != nil {
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
