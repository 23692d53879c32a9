package gateway

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/specs"
)

// ExecArgs are the arguments of `clada exec [--root R] [--dir D] [--]
// ARGV…`, as [ParseExec] reads them. `clada exec` and the gateway's
// judgement of a command that runs `clada exec` both read them with
// ParseExec, so the two can never disagree about what will run.
type ExecArgs struct {
	Root string // --root; "" when not given
	Dir  string // --dir; "" when not given
	// Sandbox is --sandbox (auto, required or off); "" when not given.
	// The gateway judging a command that runs clada exec ignores it:
	// the command it decides runs under the sandbox of the clada that
	// decided it, which an inner --sandbox off cannot lift.
	Sandbox string
	Argv    []string // the command, at least one word, unless Line is set
	// Agent is --agent: the agent (claude-code, gemini) whose scratch
	// output directories clada exec may read, as the hook that rewrote
	// the command to clada exec allowed (hook.ScratchDirs). The gateway
	// judging a command that runs clada exec ignores it: the command it
	// decides gets no grant a model wrote.
	Agent string
	// Timeout is --timeout: the agent's own time limit for the command
	// (Claude Code's Bash timeout, run_in_background, Monitor), which
	// replaces clada's per-command timeout (timeout in
	// .clada/config.toml, 60 s by default); 0 when not given.
	Timeout time.Duration
	// Line is a command line (--line TEXT, or --line64 with the text
	// encoded by [EncodeLine]): a composition, decided part by part and
	// run by clada without a shell. Argv is then nil.
	Line string
	Help bool // -h or --help was given (then Argv is nil)
}

// ErrExecUsage wraps every error of [ParseExec].
var ErrExecUsage = errors.New("clada exec")

// ParseExec reads the arguments of `clada exec` (those after "exec"):
// options --root R, --root=R, --dir D, --dir=D, --sandbox MODE, --line
// TEXT (--root64, --dir64 and --line64 take their value encoded by
// [EncodeLine], the form clada hook writes for a value that some shell
// would read differently) (also with one dash, as
// urfave/cli accepts them) and -h/--help, then the command: everything
// after "--", or from the first word that is not an option. An unknown
// option or a missing command is an error; nothing after the command's
// first word is ever read as an option of clada's.
func ParseExec(args []string) (ExecArgs, error) {
	var x ExecArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			x.Argv = args[i+1:]
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			x.Argv = args[i:]
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "---") {
			name = "" // not an option urfave/cli knows
		}
		var dst *string
		switch name {
		case "h", "help":
			if hasVal {
				return x, fmt.Errorf("%w: %s takes no value", ErrExecUsage, a)
			}
			x.Help = true
			return x, nil
		case "root", "root64":
			dst = &x.Root
		case "dir", "dir64":
			dst = &x.Dir
		case "sandbox":
			dst = &x.Sandbox
		case "line", "line64":
			dst = &x.Line
		case "agent":
			dst = &x.Agent
		case "timeout":
			dst = new(string)
		default:
			return x, fmt.Errorf("%w: unknown option %s", ErrExecUsage, a)
		}
		if !hasVal {
			if i+1 >= len(args) {
				return x, fmt.Errorf("%w: %s needs a value", ErrExecUsage, a)
			}
			i++
			val = args[i]
		}
		if strings.HasSuffix(name, "64") {
			text, err := DecodeLine(val)
			if err != nil {
				return x, fmt.Errorf("%w: --%s: %v", ErrExecUsage, name, err)
			}
			val = text
		}
		if dst == &x.Line && x.Line != "" {
			return x, fmt.Errorf("%w: more than one command line", ErrExecUsage)
		}
		*dst = val
		if name == "timeout" {
			// As clada run's --timeout: a duration, or whole seconds.
			d, err := approve.ParseDuration(val)
			if err != nil || d < time.Second || d > 24*time.Hour {
				return x, fmt.Errorf("%w: --timeout %q: a duration from 1s to 24h, such as 120s or 10m, or whole seconds", ErrExecUsage, val)
			}
			x.Timeout = d
		}
	}
	switch {
	case x.Agent != "" && x.Agent != "claude-code" && x.Agent != "gemini":
		return x, fmt.Errorf("%w: --agent %q: clada exec knows claude-code and gemini", ErrExecUsage, x.Agent)
	case x.Line != "" && len(x.Argv) > 0:
		return x, fmt.Errorf("%w: both a command line and a command", ErrExecUsage)
	case x.Line == "" && len(x.Argv) == 0:
		return x, fmt.Errorf("%w: no command to run", ErrExecUsage)
	}
	return x, nil
}

// linePrefix starts every encoded command line: a letter, so that no
// shell reads the word as an option, a number or anything but text.
const linePrefix = "L"

// EncodeLine encodes a command line for `clada exec --line64` as one word
// made only of letters, digits, - and _: every shell an agent may use
// passes it to clada unchanged, with no quoting to get wrong.
func EncodeLine(line string) string {
	return linePrefix + base64.RawURLEncoding.EncodeToString([]byte(line))
}

// DecodeLine reverses [EncodeLine].
func DecodeLine(word string) (string, error) {
	enc, ok := strings.CutPrefix(word, linePrefix)
	if !ok {
		return "", fmt.Errorf("not an encoded command line (it starts with %q)", linePrefix)
	}
	b, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", errors.New("the command line is not UTF-8")
	}
	return string(b), nil
}

// decideSelf judges a command that runs clada itself, before anything
// else is decided: a model may never change clada's permissions
// (specs.SelfPermission), and `clada exec -- X` is judged as X — run in
// the directory exec would give it — with X's Exec, so that what runs is
// what was decided. ok is false for every other command, which Decide
// judges as usual. Only the clada that is running now counts as clada
// for exec: a program named clada elsewhere (a script in the project,
// another version) is judged like any other program.
func (g *Gateway) decideSelf(argv []string, dir string) (v Verdict, ok bool) {
	if d := specs.SelfPermission(argv); d != nil {
		return refused(d, d.Word), true
	}
	if len(argv) < 2 || argv[1] != "exec" || !g.isSelf(argv[0], dir) {
		return Verdict{}, false
	}
	if _, blocked := g.opts.Commands.MatchBlocked(argv); blocked {
		return Verdict{}, false // Decide denies it by its pattern
	}
	x, err := ParseExec(argv[2:])
	switch {
	case err != nil:
		return Verdict{Decision: Deny, Rule: rules.SelfExec, Word: strings.Join(argv[2:], " "),
			Reason: err.Error(), Advice: "write the command itself, without clada exec"}, true
	case x.Help:
		return Verdict{}, false
	case x.Line != "":
		// What a composition runs is clada's to start, part by part; a
		// command that runs clada exec of one would be a second gate
		// around it.
		return Verdict{Decision: Deny, Rule: rules.SelfExec, Word: "--line",
			Reason: "clada exec --line runs a command line that clada decides itself",
			Advice: "write the command line itself, without clada exec"}, true
	case x.Root != "" && !g.sameRoot(x.Root, dir):
		return Verdict{Decision: Deny, Rule: rules.SelfExec, Word: x.Root,
			Reason: fmt.Sprintf("clada exec --root %s names another project than %s", x.Root, g.Root()),
			Advice: "write the command itself, without clada exec"}, true
	}
	return g.Decide(x.Argv, joinDir(dir, x.Dir)), true
}

// joinDir is the dir attribute of a command that clada exec --dir inner
// runs from a block whose dir attribute is outer: inner is relative to
// where exec starts. It is joined without cleaning, as inBase does.
func joinDir(outer, inner string) string {
	switch {
	case inner == "":
		return outer
	case outer == "" || filepath.IsAbs(inner) || strings.HasPrefix(inner, "~"):
		return inner
	}
	return outer + "/" + inner
}

// isSelf reports whether argv0, run in dir, starts the clada executable
// that is running now. The path is left to the operating system to
// resolve, as running it would, never cleaned first.
func (g *Gateway) isSelf(argv0, dir string) bool {
	if specs.ProgName(argv0) != "clada" {
		return false
	}
	p := argv0
	if !strings.ContainsAny(argv0, `/\`) {
		var err error
		if p, err = g.opts.Specs.LookPath(argv0); err != nil {
			return false
		}
	} else if !filepath.IsAbs(p) {
		p = g.startDir(dir) + string(filepath.Separator) + p
	}
	if g.resolver.Windows() && specs.NetworkPath(p) {
		return false // never looked up: the path-like program is refused as one
	}
	self, err := os.Executable()
	if err != nil {
		return false
	}
	a, err1 := os.Stat(p)
	b, err2 := os.Stat(self)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// sameRoot reports whether root, as clada exec would open it when started
// in dir, is this gateway's root.
func (g *Gateway) sameRoot(root, dir string) bool {
	if !filepath.IsAbs(root) {
		root = g.startDir(dir) + string(filepath.Separator) + root
	}
	if g.resolver.Windows() && specs.NetworkPath(root) {
		return false // never looked up while deciding
	}
	a, err1 := os.Stat(root)
	b, err2 := os.Stat(g.Root())
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// startDir is the directory a command with dir attribute dir starts in,
// joined without cleaning.
func (g *Gateway) startDir(dir string) string {
	d := g.inBase(dir)
	switch {
	case d == "":
		return g.Root()
	case filepath.IsAbs(d):
		return d
	}
	return g.Root() + string(filepath.Separator) + filepath.FromSlash(d)
}
