package guide

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/gitrules"
	"github.com/clada/clada/internal/project"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/runner"
)

// Input is what the instructions say about one project. Zero values give
// the instructions for a project with clada's defaults and no approvals.
type Input struct {
	Rules     []rules.Info  // the rules; nil means rules.All()
	Programs  []string      // programs whose specs allow them without asking, sorted ("go (doc, env, …)" for one with subcommands)
	Runners   []string      // project runners whose specs ask until the person consents, sorted ("make", "go test")
	Git       []string      // git subcommands allowed without asking, sorted
	Allowed   []string      // the person's allowed patterns, as written
	Untrusted bool          // every command is asked
	Timeout   time.Duration // per command; 0 means runner.DefaultTimeout
	MaxOutput int64         // bytes; 0 means runner.DefaultMaxOutput
	Base      string        // where dir and paths are relative to, slash-separated; "" for the project root
	// Installed reports whether a program is installed here; the lists
	// of programs and runners leave out the ones that are not (a model
	// cannot use them here anyway). nil counts every program.
	Installed func(name string) bool
	// OS is the system decisions are made for ("" is this one): rules
	// that only apply elsewhere (backslash on Windows,
	// option-after-operand on macOS and the BSDs) are left out.
	OS string
	// Compose is compose = true: RUN blocks may be compositions, so the
	// shell rules are listed one by one with what they still refuse;
	// without it they are one line, since a RUN block takes no shell
	// syntax at all.
	Compose bool
}

// installedHere reports whether PATH finds a program, each name looked
// up once.
func installedHere() func(string) bool {
	seen := map[string]bool{}
	return func(name string) bool {
		ok, done := seen[name]
		if !done {
			_, err := exec.LookPath(name)
			ok = err == nil
			seen[name] = ok
		}
		return ok
	}
}

// installedOnly keeps the entries of list ("go (doc, env …)", "cargo
// build", "python -m pytest") whose program is installed.
func installedOnly(list []string, installed func(string) bool) []string {
	if installed == nil {
		return list
	}
	var out []string
	for _, e := range list {
		name, _, _ := strings.Cut(e, " ")
		if installed(name) {
			out = append(out, e)
		}
	}
	return out
}

// shellRules are the parser's rules that, without compose, all say the
// same: a RUN block is one command without shell syntax.
var shellRules = map[rules.Rule]bool{rules.ShellSyntax: true, rules.Cd: true, rules.Redirect: true, rules.Expansion: true,
	rules.Substitution: true, rules.Glob: true, rules.Assignment: true, rules.Builtin: true}

// Applies reports whether the refusal rule code can be met with in, so
// that the instructions list it: rules of another system, and those of
// compositions when RUN blocks take none, are left out; without compose
// the shell rules are one line of their own.
func Applies(in Input, code rules.Rule) bool {
	sys := in.OS
	if sys == "" {
		sys = runtime.GOOS
	}
	switch {
	case code == rules.Error:
		return false
	case code == rules.Backslash:
		return sys == "windows"
	case code == rules.OptionAfterOperand:
		return sys == "darwin" || sys == "freebsd"
	case code == rules.RedirectTarget || shellRules[code]:
		return in.Compose
	}
	return true
}

// maxAllowed is how many allowed patterns the text lists before it says
// how many more there are.
const maxAllowed = 12

// FromProject returns the Input of an opened project; untrusted is the
// --untrusted flag (config.toml's untrusted counts too).
func FromProject(p *project.Project, untrusted bool) Input {
	programs, runners := p.Specs.Summary()
	in := Input{
		Programs:  programs,
		Runners:   runners,
		Git:       gitrules.Subcommands(),
		Untrusted: untrusted || p.Config.Untrusted,
		Timeout:   p.Config.Timeout,
		MaxOutput: p.Config.MaxOutput,
		Base:      p.Base,
		OS:        p.OS(),
		Compose:   p.Config.ComposeRunBlocks(),
	}
	in.Installed = installedHere()
	allowed, _ := p.Commands.Lists()
	for _, a := range allowed {
		in.Allowed = append(in.Allowed, a.Text)
	}
	return in
}

// Text returns the instructions, one block of Markdown-free plain text
// ending in a newline.
func Text(in Input) string {
	list := in.Rules
	if list == nil {
		list = rules.All()
	}
	timeout := in.Timeout
	if timeout <= 0 {
		timeout = runner.DefaultTimeout
	}
	maxOut := in.MaxOutput
	if maxOut <= 0 {
		maxOut = runner.DefaultMaxOutput
	}
	where := "the project root"
	if in.Base != "" {
		where = in.Base + "/ in the project"
	}

	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("You run commands in this project through clada. It reads your reply, runs each RUN block as one")
	line("program with its arguments (never through a shell) and shows you a report. Write a command so,")
	line("each marker alone on its own line, at column 1:")
	line("")
	line("<---RUN--->")
	line("git status")
	line("<---END--->")
	line("")
	line("- One command per block: a program and its arguments, quoted as in bash ('...' or \"...\").")
	line("- It runs in %s; paths are relative to that. For a subdirectory write", where)
	line("  <---RUN dir=\"src\"---> (relative to the same place). There is no cd.")
	line("- Blocks run in order, each on its own. Steps that depend on each other go in a group that stops")
	line("  at the first failure: <---TASKS--->, the RUN blocks, then <---END TASKS--->.")
	line("- Text outside blocks is ignored; no ``` fences inside a block. A malformed block (two commands,")
	line("  an unclosed quote, a missing <---END--->) means nothing of the reply runs.")
	line("- Stdin is closed; a command may run %s, and its output is cut at %s.", duration(timeout), size(maxOut))
	line("- The report gives each block's exit code and output, or why it did not run and what to write")
	line("  instead. Follow that advice; never resend a refused command unchanged.")
	line("")
	line("Refused: nothing runs and nobody can approve it. What to write instead:")
	if !in.Compose {
		line("- %s: no shell: pipes, && || ;, redirections, $VAR, $(…), backticks, globs, ~, {a,b}, NAME=value", ShellLine)
		line("  before a command, builtins (cd, export, source …), subshells, loops. Instead: one command per block")
		line("  with literal paths, dir= for where it runs, a TASKS group for steps that depend on each other.")
	}
	var asked []string
	for _, r := range list {
		switch {
		case r.Decision == "deny" && Applies(in, r.Rule):
			line("- %s: %s. Instead: %s.", r.Rule, r.Trigger, r.Advice)
		case strings.Contains(r.Decision, "ask"):
			asked = append(asked, string(r.Rule))
		}
	}
	line("")
	if in.Untrusted {
		line("Untrusted mode is on: a person approves every command, even those below.")
	}
	programs, runners := installedOnly(in.Programs, in.Installed), installedOnly(in.Runners, in.Installed)
	if len(programs) > 0 {
		line("Run without asking when every flag and path fits their spec (`clada specs NAME`):")
		line("  %s.", strings.Join(programs, ", "))
	}
	if len(in.Git) > 0 {
		line("  git, read-only: %s.", strings.Join(in.Git, ", "))
	}
	if len(runners) > 0 {
		line("Project runners run the project's code, so they are asked until the person consents; their flags")
		line("and paths are still checked: %s.", strings.Join(runners, ", "))
	}
	if len(in.Allowed) > 0 {
		shown := in.Allowed
		more := ""
		if len(shown) > maxAllowed {
			more = fmt.Sprintf(" and %d more", len(shown)-maxAllowed)
			shown = shown[:maxAllowed]
		}
		line("  Allowed by the person (a final * stands for any words): %s%s.", quoteAll(shown), more)
	}
	line("Everything else needs a person (%s): clada asks at the terminal, and if", strings.Join(asked, ", "))
	line("nobody answers it does not run (\"needs approval\"). Prefer the commands above; when you need")
	line("another, say in one sentence why before its block, and expect that the answer may be no.")
	line("Where the machine allows, every command also runs in a sandbox: it writes only in the project")
	line("(never .git/ or .clada/) and its TMPDIR, cannot read ~/.ssh and other credentials, and has no")
	line("network unless its spec grants it. A report line `sandbox: …` means the sandbox may have refused")
	line("it: do not work around it; tell the person what the command needs.")
	return b.String()
}

// ShellLine names the shell rules in the one line that stands for them
// without compose.
const ShellLine = "shell-syntax, redirect, expansion, substitution, glob, assignment, builtin, cd"

func quoteAll(ps []string) string {
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = "`" + p + "`"
	}
	return strings.Join(q, ", ")
}

// duration writes a timeout as config.toml does (approve.FormatDuration),
// to the second: 60s, 5m, 1h30m.
func duration(d time.Duration) string { return approve.FormatDuration(d.Round(time.Second)) }

// size writes a byte count with the largest unit that divides it.
func size(n int64) string {
	for _, u := range []struct {
		name string
		n    int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if n%u.n == 0 {
			return fmt.Sprintf("%d %s", n/u.n, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
