package gateway

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/gitrules"
	"github.com/clada/clada/internal/gitstate"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/specs"
)

// Decision is what clada does with one command.
type Decision string

// The three decisions (docs/rules.md).
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// Options configure a [Gateway]. The zero value of each bool is the
// safe one.
type Options struct {
	// Root is the project root; every path must stay inside it.
	Root string
	// Base is where the person stands, relative to Root and
	// slash-separated ("" is the root): a block's dir attribute, and so
	// the paths in its command, are relative to it. It is confined like
	// any dir attribute.
	Base string
	// Specs are the effective command specs; nil means specs.Default().
	Specs *specs.Set
	// Commands are the user's allowed/blocked patterns; nil means none.
	Commands *approve.Commands
	// Untrusted turns every allow into ask.
	Untrusted bool
	// NoHardBlocks switches the built-in hard blocks off (config
	// hard_blocks = false).
	NoHardBlocks bool
	// Secrets are file name patterns added to [DefaultSecrets] (config
	// secrets = [...]); nil adds none.
	Secrets []string
	// OS is the system to decide for (`--os`, see [specs.ParseOS]): the
	// dialect of the programs' options, and on windows the Windows path
	// rules and the backslash rule. "" is the system clada runs on.
	OS string
	// DecideOnly says the verdicts are only reported, never run (clada
	// check, run --dry-run, clada hook, the MCP check tool): the PATH an
	// allowed command would run with, without the project's directories,
	// is then not worked out (resolving every PATH entry was a fifth of
	// clada check's own start-up). Never run a verdict of such a gateway.
	DecideOnly bool
	// Compose lets [Gateway.Check] decide a composition (config compose,
	// on unless it is false); ComposeRunBlocks lets [Gateway.Plan] decide
	// RUN blocks that are compositions (compose = true).
	Compose, ComposeRunBlocks bool
	// Hosts are the host patterns every command that runs code the
	// person chose (asked and approved, or allowed by a pattern) or
	// whose spec grants the network may reach through clada's proxy
	// (config hosts = [...]); OpenNetwork gives a command whose spec
	// grants the network the whole network instead (network = "open").
	Hosts       []string
	OpenNetwork bool
	// Dirs are the directories outside the root the person granted
	// (dirs in config.toml, resolved): paths in them count as inside the
	// root for reading, and for writing when the grant says so.
	Dirs []specs.GrantedDir
}

// Gateway decides commands for one run. It caches symlink resolution
// and program lookups for the run, so it is not safe for concurrent use.
type Gateway struct {
	opts     Options
	resolver *specs.Resolver
	dirs     map[string]bool   // resolved dir attribute → is a directory; cleared with the resolver
	programs map[string]string // program → its file inside the root, "" when outside; cleared with the resolver
	git      *gitstate.State   // what git can restore; nil until a command destroys something, cleared with the resolver
	secrets  []secretMatcher   // DefaultSecrets and Options.Secrets, lower case, compiled
	sysPath  *systemPathResult // systemPath's answer; nil until asked, cleared with the resolver
}

// systemPathResult is what [Gateway.systemPath] found.
type systemPathResult struct {
	path    string
	dropped bool
}

// New returns a Gateway for opts.
func New(opts Options) (*Gateway, error) {
	if opts.Specs == nil {
		s, err := specs.Default()
		if err != nil {
			return nil, err
		}
		opts.Specs = s
	}
	if opts.Commands == nil {
		opts.Commands = &approve.Commands{}
	}
	sys, err := specs.ParseOS(opts.OS)
	if err != nil {
		return nil, err
	}
	opts.OS = sys
	if sys != specs.HostOS() {
		opts.Specs = opts.Specs.ForOS(sys)
	}
	r, err := specs.NewResolver(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("project root: %w", err)
	}
	r.ForWindows(sys == specs.OSWindows).Grant(opts.Dirs)
	return &Gateway{opts: opts, resolver: r, dirs: map[string]bool{}, programs: map[string]string{},
		secrets: secretPatterns(opts.Secrets)}, nil
}

// forget drops what the gateway learned about the file system, after a
// command ran and may have changed it.
func (g *Gateway) forget() {
	g.resolver.Reset()
	clear(g.dirs)
	clear(g.programs)
	g.git = nil
	g.sysPath = nil
}

// Root returns the resolved project root.
func (g *Gateway) Root() string { return g.resolver.Root() }

// Verdict is the decision for one command.
type Verdict struct {
	Decision Decision
	Rule     rules.Rule // stable rule code
	Word     string     // offending word or argument, "" when none
	Reason   string
	Advice   string
	Exec     []string // what will run: absolute program path and final arguments (allow and ask)
	Env      []string // extra environment entries for the command
	Dir      string   // absolute working directory; "" when the dir attribute was refused
	// Why says, for ask, why the person is asked: unknown command,
	// wrapper that runs other programs, untrusted mode.
	Why string
	// Missing says that the program cannot start here: "`rg` is not
	// installed here (not found in PATH)", "`./build.sh` does not exist
	// here". The decision is the policy's all the same (a dry run in CI
	// decides as on a laptop); a dry run shows the note, and running
	// reports exit 127 (126 for a directory or a file without x
	// permission) without asking anyone (missing.go).
	Missing string
	// Inner are, for an ask of a program that runs other commands for
	// the files it finds (find -exec), those commands with {} standing
	// for a starting point; nil otherwise. Only an exact pattern
	// consents to such a command, never a prefix pattern.
	Inner [][]string
	// Outside are, for an ask, the files outside the project (and every
	// granted directory) the command reads (rule read-outside). Only an
	// exact pattern consents to such a command, never a prefix pattern.
	Outside []specs.Path
	// Grants are what the command may do under the sandbox besides
	// writing in the project (allow and ask): the network and the caches
	// its spec, or clada's built-in list, grant it. Repository lets an
	// approved git command write the repository.
	Grants     specs.Grants
	Repository bool
	// HostCommand is the command, quoted, as a question about a host it
	// wants to reach names it; HostPattern the pattern the person's
	// always or never for that host is remembered for: the allowed
	// pattern that let the command run, else the command itself
	// (docs/rules.md, "The network"). Both "" for a deny.
	HostCommand, HostPattern string
	// Lost names, for an ask, the files (and directories, with a final
	// "/") the command destroys that git cannot restore, relative to the
	// root; nil when it destroys nothing that cannot be restored.
	Lost []string
}

// Decide applies the decision order of docs/rules.md to argv, run in dir
// (the RUN block's dir attribute, relative to the base directory; "" is
// the base itself, the root unless [Options.Base] says otherwise).
func (g *Gateway) Decide(argv []string, dir string) Verdict {
	// 0. clada itself: its permissions are the person's, and clada exec
	// is judged by what it runs (self.go).
	if v, ok := g.decideSelf(argv, dir); ok {
		return v
	}
	root := g.resolver.Root()
	attr := dir
	dir = g.inBase(dir)
	// 1. Blocked patterns.
	if v, ok := g.blocked(argv); ok {
		return v
	}
	// 2. Confinement of dir.
	absDir := root
	if dir != "" {
		d, err := g.resolver.Resolve(root, dir)
		if err != nil {
			return refused(err, attr)
		}
		if !g.isDir(d) {
			return Verdict{Decision: Deny, Rule: rules.DirNotFound, Word: attr,
				Reason: fmt.Sprintf("the dir attribute %q is not a directory inside the project", attr),
				Advice: "create the directory first, or fix the dir attribute (" + g.dirRelativeTo() + ")"}
		}
		absDir = d
	}
	v := g.untrusted(g.decide(argv, absDir, 0))
	if v.Decision != Deny {
		v.Grants.Hosts = append(slices.Clip(v.Grants.Hosts), g.opts.Hosts...)
		v.Grants.OpenNetwork = v.Grants.OpenNetwork || g.opts.OpenNetwork
		// The hosts the person answered always or never for a pattern
		// that matches the command.
		allow, deny := g.opts.Commands.MatchHosts(argv)
		v.Grants.Hosts = append(v.Grants.Hosts, allow...)
		v.Grants.DeniedHosts = deny
		v.HostCommand = PatternFor(argv)
		if v.Rule != rules.AllowedPattern || v.HostPattern == "" {
			v.HostPattern = v.HostCommand
		}
	} else {
		v.HostPattern = ""
	}
	return v
}

func (g *Gateway) isDir(d string) bool {
	isDir, ok := g.dirs[d]
	if !ok {
		fi, err := os.Stat(d)
		isDir = err == nil && fi.IsDir()
		g.dirs[d] = isDir
	}
	return isDir
}

func (g *Gateway) blocked(argv []string) (Verdict, bool) {
	p, ok := g.opts.Commands.MatchBlocked(argv)
	if !ok {
		return Verdict{}, false
	}
	advice := "do not run this command; if it is needed, ask the person to remove the pattern with `clada forget`"
	if p.Source != "" && filepath.Dir(p.Source) == approve.ManagedDir() {
		advice = "do not run this command: the administrator's managed configuration blocks it, and nobody can allow it; find another way"
	}
	return Verdict{Decision: Deny, Rule: rules.BlockedPattern, Word: p.Text,
		Reason: fmt.Sprintf("the command matches the blocked pattern `%s` in %s", p.Text, patternSource(p, g.opts.Commands)),
		Advice: advice}, true
}

// decide is the decision for argv run in absDir (resolved and confined),
// from the hard blocks on, without untrusted mode. A simple wrapper's
// command is decided by decide too, one level deeper.
func (g *Gateway) decide(argv []string, absDir string, depth int) Verdict {
	if !g.opts.NoHardBlocks {
		if d := specs.HardBlock(argv, absDir, g.resolver); d != nil {
			v := refused(d, d.Word)
			v.Dir = absDir
			return v
		}
	}
	// git -C DIR runs git in DIR: decided as git without -C, in DIR.
	if stripped, dir, v := g.gitChdir(argv, absDir); v != nil {
		return *v
	} else if stripped != nil {
		return g.decide(stripped, dir, depth)
	}
	// Confinement of a path-like argv[0].
	var program string
	if strings.ContainsRune(argv[0], '/') || strings.ContainsRune(argv[0], filepath.Separator) {
		p, err := g.resolver.Resolve(absDir, argv[0])
		if err != nil {
			if v, ok := g.outsideProgram(argv, absDir, depth, err); ok {
				return v
			}
			return refused(err, argv[0])
		}
		program = p
	}
	// A program inside the project is asked (project_program.go); a
	// pattern may still consent to it.
	v := g.projectProgram(argv, withGrants(argv, g.judge(argv, absDir, program, depth)))
	if program != "" && v.Missing == "" {
		// A path-like program that cannot start is a fact too: an
		// earlier block may still create it (missing.go).
		if why, _ := notRunnable(program); why != "" {
			v.Missing = fmt.Sprintf("`%s` %s here", argv[0], why)
		}
	}
	if v.Decision == Ask {
		return g.consent(argv, absDir, v)
	}
	return v
}

// judge applies the specs, the git rules and the wrapper rule: allow,
// deny, or ask with Exec set.
func (g *Gateway) judge(argv []string, absDir, program string, depth int) Verdict {
	if program == "" {
		if u, ok := specs.Unwrap(argv); ok {
			return g.wrapped(argv, u, absDir, depth)
		}
		sv, reads := g.checkSpecs(argv, absDir)
		switch sv.Outcome {
		case specs.Allow:
			env := sv.Env
			if p, dropped := g.systemPath(); dropped {
				env = append(append([]string(nil), sv.Env...), "PATH="+p)
			}
			v := g.restorable(Verdict{Decision: Allow, Rule: sv.Rule, Reason: sv.Reason,
				Exec: sv.Exec, Env: env, Dir: absDir, Missing: sv.Missing,
				Grants: specGrants(argv, sv), Repository: sv.Repository}, argv, sv.Destroys)
			return g.outsideChecked(argv[0], g.secret(v, sv.Paths), reads, append(sv.Paths, reads...))
		case specs.Deny:
			return Verdict{Decision: Deny, Rule: sv.Rule, Word: sv.Arg, Reason: sv.Reason, Advice: sv.Advice, Dir: absDir}
		case specs.Ask:
			v := g.runnable(argv, absDir, program)
			if v.Decision == Deny {
				return v
			}
			if len(sv.Exec) > 0 {
				// A spec that asks still says what runs (its harden
				// arguments); the program is the one found above.
				v.Exec = append([]string{v.Exec[0]}, sv.Exec[1:]...)
				v.Env = append(v.Env, sv.Env...)
			}
			v.Decision, v.Rule, v.Word, v.Reason, v.Advice = Ask, sv.Rule, sv.Arg, sv.Reason, sv.Advice
			v.Why = sv.Reason
			if len(sv.Inner) > 0 {
				if d, denied := g.inner(argv, sv.Inner, absDir, depth); denied {
					return d
				}
				v.Why = innerWhy(sv.Reason, sv.Inner)
				v.Inner = sv.Inner
				v.Reason = v.Why + ", so the person must approve it"
			}
			v.Grants, v.Repository = specGrants(argv, sv), sv.Repository
			if len(reads) > 0 {
				// A program that runs code (a build tool, a linter
				// with plugins) may run what a file outside holds:
				// its config, plugin or project there stays refused.
				return g.runsCodeOutside(argv, absDir, v, reads[0])
			}
			return g.outsideChecked(argv[0], g.restorable(v, argv, sv.Destroys), nil, sv.Paths)
		}
	}
	// A lone --version or --help of a program PATH finds (version.go).
	if v, ok := g.versionQuery(argv, absDir, program); ok {
		return v
	}
	// Everything else is asked.
	v := g.runnable(argv, absDir, program)
	if v.Decision == Deny {
		return v
	}
	v.Decision, v.Rule = Ask, rules.NotInSpecs
	v.Why = fmt.Sprintf("`%s` is not in clada's specs", argv[0])
	v.Reason = v.Why + ", so the person must approve it"
	v.Advice = fmt.Sprintf("the person can approve it at the prompt or with `%s`; prefer commands clada's specs allow (see `clada specs`)",
		AllowCommand(argv))
	return v
}

// specGrants are the sandbox grants of a spec's verdict for argv: with
// the network, the registries of its program (npm: registry.npmjs.org).
func specGrants(argv []string, sv specs.Verdict) specs.Grants {
	gr := specs.Grants{Network: sv.Network, Caches: sv.Caches, CacheQuery: sv.CacheQuery}
	if gr.Network {
		prog := specs.ProgName(argv[0])
		gr.Hosts = specs.RegistryHosts(prog)
		// git's remotes may be ssh, which no HTTP proxy carries; a
		// person approves every git command that has the network.
		gr.OpenNetwork = prog == "git"
	}
	return gr
}

// withGrants gives a command whose spec grants no cache the built-in
// cache grants of its program (go, cargo, npm …), so that an approved
// build finds its cache under the sandbox. A wrapper's verdict already
// carries the grants of the command it runs.
func withGrants(argv []string, v Verdict) Verdict {
	if v.Decision == Deny || len(v.Grants.Caches) > 0 || len(v.Grants.CacheQuery) > 0 ||
		strings.ContainsAny(argv[0], `/\`) {
		return v
	}
	if gr, ok := specs.ProgramGrants(specs.ProgName(argv[0])); ok {
		// The network stays what the spec says (npm install: yes).
		v.Grants.Caches, v.Grants.CacheQuery = gr.Caches, gr.CacheQuery
	}
	return v
}

// dirRelativeTo says what a dir attribute is relative to, for advice:
// the directory clada was started in, which is the root or, with a
// [Options.Base], a directory below it.
func (g *Gateway) dirRelativeTo() string {
	if g.opts.Base == "" {
		return "it is relative to the project root, where clada runs"
	}
	return "it is relative to " + g.opts.Base + "/, the directory clada runs in, and confined to the project root"
}

// inBase is dir (a dir attribute) relative to the root: joined onto the
// base without cleaning, so that the resolver applies symlinks before
// "..", as it does for every path.
func (g *Gateway) inBase(dir string) string {
	switch {
	case g.opts.Base == "":
		return dir
	case dir == "":
		return g.opts.Base
	case filepath.IsAbs(dir) || strings.HasPrefix(dir, "~"):
		return dir // refused or confined as written
	}
	return g.opts.Base + "/" + dir
}

// untrusted turns an allow into ask in untrusted mode.
func (g *Gateway) untrusted(v Verdict) Verdict {
	if !g.opts.Untrusted || v.Decision != Allow {
		return v
	}
	v.Decision, v.Rule = Ask, rules.Untrusted
	v.Why = "clada runs in untrusted mode, so every command is asked"
	v.Reason = v.Why
	v.Advice = "the person approves each command at the prompt"
	return v
}

// runnable returns an allow verdict with the Exec clada would run for a
// command no spec vouched for: the resolved program, git hardened.
func (g *Gateway) runnable(argv []string, dir, program string) Verdict {
	missing := ""
	if program == "" {
		p, err := g.opts.Specs.LookPath(argv[0])
		if err != nil {
			p, missing = argv[0], specs.MissingNote(argv[0], err)
		}
		program = p
	}
	ex, env := specs.Command(program, argv, g.Root())
	return Verdict{Decision: Allow, Exec: ex, Env: env, Dir: dir, Missing: missing}
}

// refused is the denial of err: its rule and advice when it is a
// *rules.Denied (from the parser or the specs), else rule error.
func refused(err error, word string) Verdict {
	v := Verdict{Decision: Deny, Reason: err.Error(), Word: word}
	var d *rules.Denied
	if errors.As(err, &d) {
		v.Rule, v.Advice = d.Rule, d.Advice
	}
	if v.Rule == "" {
		v.Rule = rules.Error
	}
	return v
}

// outsideProgram decides a command whose program is named by a path
// outside the project (/usr/bin/ls, an agent's bundled …/rg), where err
// is the resolver's refusal of that path (issue 27): when the path is the
// very file PATH finds for its name, or lies (with its target) where the
// person cannot write, it is judged as that program, and run from the path
// given; any other existing program file is asked (rule program-outside),
// since a program the person can write may be anything. ok is false when
// the path is no program file (the refusal stands).
func (g *Gateway) outsideProgram(argv []string, absDir string, depth int, err error) (Verdict, bool) {
	var d *rules.Denied
	if !errors.As(err, &d) || d.Rule != rules.PathOutsideRoot || strings.HasPrefix(argv[0], "~") {
		return Verdict{}, false
	}
	abs := argv[0]
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(absDir, abs)
	}
	real, rerr := filepath.EvalSymlinks(abs)
	fi, serr := os.Stat(real)
	if rerr != nil || serr != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return Verdict{}, false
	}
	name := filepath.Base(argv[0])
	same := false
	if lp, err := exec.LookPath(name); err == nil {
		if li, err := os.Stat(lp); err == nil && os.SameFile(li, fi) {
			same = true
		}
	}
	if !same && !notWritable(real, abs) {
		return Verdict{Decision: Ask, Rule: rules.ProgramOutside, Word: argv[0], Dir: absDir,
			Reason: fmt.Sprintf("%s is a program outside the project, not the %s that PATH finds, in a place you can write: it may be anything", argv[0], name),
			Advice: "run the program by its name, as PATH finds it; otherwise the person must approve it"}, true
	}
	v := g.decide(append([]string{name}, argv[1:]...), absDir, depth)
	if len(v.Exec) > 0 && v.Exec[0] != "" {
		v.Exec = append([]string{abs}, v.Exec[1:]...)
		v.Missing = ""
	}
	return v, true
}

// notWritable reports whether the person can write none of the program
// file, its directory, and (for a link) the link's directory.
func notWritable(real, abs string) bool {
	for _, p := range []string{real, filepath.Dir(real), filepath.Dir(abs)} {
		if writable(p) {
			return false
		}
	}
	return true
}

// gitChdir takes apart git's global -C options before the subcommand:
// `git [allowed globals] -C DIR … SUBCOMMAND …` runs git in DIR (each -C
// from the one before, as git takes them), as `cd DIR && git …` would. It
// returns argv without the -C options and the directory, resolved and
// confined (a directory inside the project, not in .git or .clada); or a
// refusal; or nil, nil when argv is not git or has no such -C (then the
// git rules judge it, and deny any -C they still see).
func (g *Gateway) gitChdir(argv []string, absDir string) (stripped []string, dir string, refusal *Verdict) {
	if len(argv) < 3 || specs.ProgName(argv[0]) != "git" {
		return nil, "", nil
	}
	stripped, dir = []string{argv[0]}, absDir
	found := false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-C" && i+1 < len(argv) && argv[i+1] != "":
			res, err := g.resolver.Confine(dir, argv[i+1], true)
			if err != nil {
				v := refused(err, argv[i+1])
				v.Advice = "git -C only to directories inside the project, outside .git and .clada"
				return nil, "", &v
			}
			if !g.isDir(res) {
				return nil, "", &Verdict{Decision: Deny, Rule: rules.DirNotFound, Word: argv[i+1], Dir: absDir,
					Reason: fmt.Sprintf("`git -C %s`: %s is not a directory inside the project", argv[i+1], argv[i+1]),
					Advice: "create the directory in a command of its own first, or fix the path"}
			}
			dir, found = res, true
			i++
		case gitrules.GlobalAllowed(a):
			stripped = append(stripped, a)
		default:
			if !found {
				return nil, "", nil
			}
			return append(stripped, argv[i:]...), dir, nil
		}
	}
	if !found {
		return nil, "", nil
	}
	return stripped, dir, nil
}

// PatternFor is the pattern `always`/`never` writes for argv: the exact
// command, quoted.
func PatternFor(argv []string) string { return parser.Quote(argv) }

// AllowCommand is the command line that approves argv for good,
// `clada allow PATTERN` with [PatternFor]'s pattern as one word: what
// every advice to approve a command names.
func AllowCommand(argv []string) string { return "clada allow " + parser.QuoteWord(PatternFor(argv)) }

// RunsAnything says why a pattern hands a model any code it likes ("bash
// is a shell: it runs other programs"), or "" when it does not: its
// program runs other programs or code given to it (a wrapper, a shell, an
// interpreter; specs.RunsPrograms) and the pattern either ends in * (so
// the model chooses what follows) or already gives it code to run
// (python3 -c …). clada allow refuses such a pattern without --force, and
// clada trust marks it.
func RunsAnything(p approve.Pattern) string {
	if len(p.Argv) == 0 || !specs.RunsPrograms(p.Argv[0]) {
		return ""
	}
	if p.Prefix {
		if why, ok := specs.Wrapper(p.Argv[:len(p.Argv)-1]); ok {
			return why
		}
		return p.Argv[0] + " runs whatever code or program follows it"
	}
	// An exact command runs what it names: a script of the person's
	// (bash scripts/check.sh) or a fixed command (env FOO=1 make). Only
	// code on the command line is the model's to choose.
	if why, ok := specs.Wrapper(p.Argv); ok && strings.Contains(why, "runs code given on the command line") {
		return why
	}
	for _, a := range p.Argv[1:] {
		if a == "--" || !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			break
		}
		if strings.Contains(a, "c") && specs.IsShell(p.Argv[0]) {
			return p.Argv[0] + " " + a + " runs the command string given on the command line"
		}
	}
	return ""
}

// ParsePattern is the approve.ParseFunc clada uses: patterns are parsed
// by the same parser as commands.
func ParsePattern(s string) ([]string, error) { return parser.Command(s) }

// inner decides each command a program runs for the files it finds (find
// -exec CMD ;) as if it stood alone, with {} standing for a starting
// point: when one is denied, so is the program (denied is true).
func (g *Gateway) inner(argv []string, cmds [][]string, absDir string, depth int) (Verdict, bool) {
	for _, c := range cmds {
		if depth >= maxWrapDepth {
			return Verdict{Decision: Deny, Rule: rules.Wrapper, Word: argv[0], Dir: absDir,
				Reason: fmt.Sprintf("more than %d commands inside each other", maxWrapDepth),
				Advice: "run the inner command in its own RUN block"}, true
		}
		in := g.decideInner(c, absDir, depth+1)
		if in.Decision == Deny {
			in.Reason = fmt.Sprintf("%s would run `%s`, which is denied on its own: %s", argv[0], parser.Quote(c), in.Reason)
			in.Dir = absDir
			return in, true
		}
	}
	return Verdict{}, false
}

// innerWhy is the question for a program that runs cmds: the person sees
// each command.
func innerWhy(reason string, cmds [][]string) string {
	shown := make([]string, len(cmds))
	for i, c := range cmds {
		shown[i] = "`" + parser.Quote(c) + "`"
	}
	return reason + ": " + strings.Join(shown, ", ")
}
