package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/decisionlog"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/project"
	"github.com/clada/clada/internal/report"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/specs"
)

type runOptions struct {
	root      string
	files     []string
	dryRun    bool
	format    string
	noPrompt  bool
	trustAll  bool
	untrusted bool
	// trustProject is --trust-project: the project's own files are used
	// without a trust record.
	trustProject bool
	timeout      time.Duration
	timeoutSet   bool
	maxOutput    string
	budget       string // --report-budget
	stopOnError  bool
	keepGoing    bool
	os           string // --os; "" is this system
	sandbox      string // --sandbox; "" means config.toml's
}

// openProject opens the project for a command: --root when given, else
// the root found from the working directory; sys is --os.
// mcpOptions are clada mcp's flags, which mcpAction hands to clada-mcp.
type mcpOptions struct {
	root                string
	trustAll, untrusted bool
	sandbox             string // --sandbox; "" means config.toml's
	args                int
}

func openProject(root string, untrusted bool, sys string) (*project.Project, error) {
	return project.Open(project.Options{Root: root, Untrusted: untrusted, OS: sys})
}

// openTrusted opens the project for clada run and check, which CI runs:
// there (CI set, or --no-prompt) a project file the person has not
// trusted is an error naming it, unless --trust-project vouches for the
// repository. Elsewhere clada goes on with what the files tighten, and
// the note saying so is returned for the caller to print once.
func openTrusted(root string, untrusted, trustProject, noPrompt bool, sys string) (p *project.Project, note string, err error) {
	p, err = project.Open(project.Options{Root: root, Untrusted: untrusted, TrustProject: trustProject, OS: sys})
	if err != nil {
		return nil, "", err
	}
	note = p.UntrustedNote()
	if note != "" && (noPrompt || os.Getenv("CI") != "") {
		why := "CI set"
		if noPrompt {
			why = "--no-prompt"
		}
		return nil, "", withHint(fmt.Errorf("%s", note),
			"with %s nobody can review it here: run `clada trust` where a person can, or pass --trust-project when the workflow's author vouches for the repository", why)
	}
	if len(p.DirsMissing) > 0 {
		missing := fmt.Sprintf("the granted directories %s do not exist here, so reads there are asked like any read outside the project (dirs in config.toml)",
			strings.Join(p.DirsMissing, ", "))
		if note != "" {
			note += "; " + missing
		} else {
			note = missing
		}
	}
	return p, note, nil
}

// mayRun reports whether executing plan may start a command: it is well
// formed and some block is allowed or asked about.
func mayRun(plan *gateway.Plan) bool {
	return plan.OK() && slices.ContainsFunc(plan.Results, func(r *gateway.Result) bool { return r.Decision != gateway.Deny })
}

func runAction(o runOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	format, err := report.ParseFormat(o.format)
	if err != nil {
		return withHint(err, "--format text|json|github")
	}
	ro := project.RunOptions{NoPrompt: o.noPrompt, TrustAll: o.trustAll, StopOnError: o.stopOnError}
	if o.timeoutSet {
		if o.timeout <= 0 {
			return withHint(fmt.Errorf("--timeout %s is not positive", o.timeout), "give a duration such as 30s or 5m")
		}
		ro.Timeout = o.timeout
	}
	if o.maxOutput != "" {
		if ro.MaxOutput, err = approve.ParseSize(o.maxOutput); err != nil {
			return withHint(fmt.Errorf("--max-output: %w", err), "give a size such as 10MB or 512KiB")
		}
	}
	if o.budget != "" {
		if ro.ReportBudget, err = approve.ParseBudget(o.budget); err != nil {
			return withHint(fmt.Errorf("--report-budget: %w", err), "give a size such as 32KiB, or a size and a line count such as 32KiB,800")
		}
	}
	if err := project.CheckRunOptions(ro, o.untrusted); err != nil {
		return err
	}
	if o.stopOnError && o.keepGoing {
		return withHint(errors.New("--stop-on-error can't be used with --keep-going"), "choose one")
	}
	if o.os != "" && !o.dryRun {
		return withHint(fmt.Errorf("--os %s decides as on another system, and a real run happens on this one", o.os),
			"use --os with --dry-run (or clada check) to validate for that system; run for real on it")
	}
	restoreGC := lessGC()
	defer restoreGC()
	p, note, err := openTrusted(o.root, o.untrusted, o.trustProject, o.noPrompt, o.os)
	if err != nil {
		return err
	}
	if err := p.CheckManaged(o.trustAll); err != nil {
		return err
	}
	gw := p.Gateway
	if o.dryRun {
		gw = p.DecideGateway
	}
	g, err := gw()
	if err != nil {
		return err
	}
	// What is read from stdin is kept, for clada started again in its
	// namespace (below) to read the same document.
	var read bytes.Buffer
	in := stdin
	if !o.dryRun && reexec != nil {
		in = io.TeeReader(stdin, &read)
	}
	docs, err := project.ReadDocuments(o.files, in, p.OS() == specs.OSWindows)
	if err != nil {
		return err
	}
	plan := g.Plan(docs)
	// A command may run: clada goes on in a namespace of its own, where
	// it reads the document again and does all that follows; this
	// process has written nothing yet. The started clada gets what was
	// read from stdin (read to its end), or stdin itself when the
	// documents came from files: a stdin that is never closed must not
	// hold anything up.
	if !o.dryRun && mayRun(plan) {
		replay := stdin
		if read.Len() > 0 {
			replay = &read
		}
		if code, ok := inNamespace(p.SandboxMode(o.sandbox), replay, stdout, stderr); ok {
			return exitError(code)
		}
	}
	if note != "" {
		warnf(stderr, "%s", note)
	}
	for _, d := range docs {
		for _, w := range d.Warnings {
			warnf(stderr, "%s", w.Error())
		}
	}
	// The report makes many small writes (a dry run of 10,000 blocks made
	// 33,000 write calls); buffer them, and flush after each executed block
	// so that the model and the person see it as soon as it is finished.
	out := bufio.NewWriterSize(stdout, 64<<10)
	opts := report.Options{DryRun: o.dryRun, Budget: p.ReportBudget(ro), Base: p.Base}
	if format == report.GitHub {
		var done func()
		opts.GitHub, done = githubOptions(p.Root, stderr)
		defer done()
	}
	rep := report.New(out, format, opts)
	dlog := newDecisionLogger(p, decisionlog.EntryRun, stderr)
	if o.dryRun || !plan.OK() {
		for _, r := range plan.Results {
			rep.Block(r)
		}
		dlog.log(plan.Results...)
		rep.Errors(plan.Errors)
		rep.Notes(plan)
		code := hintsExit(plan, project.PlanExit(plan), stderr)
		rep.Summary(report.Summarize(plan), code)
		return exitCode(code, errors.Join(rep.Err(), out.Flush()))
	}

	sb, warning, err := p.Sandbox(o.sandbox)
	if err != nil {
		return err
	}
	defer sb.Close()
	if warning != "" {
		fmt.Fprintln(stderr, warning)
	}
	x := p.ExecOptions(ro, stderr)
	x.Sandbox = sb
	defer x.Output.Close()
	if o.trustAll {
		warnf(stderr, "--trust-all: every command that would be asked about runs without asking (denied ones still don't)")
	}
	if x.NoAsk == "" && project.NeedsAsk(plan) {
		prompter, err := approve.Open(nil)
		if err != nil {
			warnf(stderr, "cannot open the terminal to ask: %v", err)
			x.NoAsk = approve.NoTTY
		} else {
			defer prompter.Close()
			prompter.SetClock(testOnlyClock)
			x.Asker = prompter
		}
	}
	// Commands run with the usual collector: output capture must stay
	// within max_output plus a little, whatever the commands print.
	restoreGC()
	// Ctrl-C or SIGTERM cancels ctx: an open question is answered no at
	// once, a running command's process group is killed, and nothing
	// after it runs.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	prog := newProgress(stderr, len(plan.Results), os.Getenv)
	if prog != nil {
		x.Live, x.Started = prog, prog.started
	}
	g.Execute(ctx, plan, x, func(r *gateway.Result) {
		if prog != nil {
			prog.done(r)
		}
		rep.Block(r)
		out.Flush() // a write error is kept by out and returned below
		dlog.log(r)
	})
	interrupted := ctx.Err() != nil
	code := hintsExit(plan, project.RunExit(plan, interrupted), stderr)
	if interrupted {
		fmt.Fprintln(stderr, "clada: interrupted: the running command or question was stopped and nothing else ran")
	}
	rep.Notes(plan)
	rep.Summary(report.Summarize(plan), code)
	return exitCode(code, errors.Join(rep.Err(), out.Flush()))
}

// hintsExit applies project.HintsExit in CI, saying on stderr why the
// exit code is 1.
func hintsExit(plan *gateway.Plan, code int, stderr io.Writer) int {
	got := project.HintsExit(plan, code, project.IsCI(os.Getenv))
	if got != code {
		fmt.Fprintf(stderr, "clada: CI: exit %d: a document has no RUN block but has lines that look like commands (see the notes), so nothing it meant to run ran\n", got)
	}
	return got
}

// lessGC makes the garbage collector run less often (GOGC 400) while
// clada parses and decides documents, a short burst of small allocations
// that a dry run of 10,000 blocks spent a third of its time collecting
// (bench/README.md). A soft memory limit of 128 MiB, or the user's
// GOMEMLIMIT when lower, bounds the heap on large documents. The returned
// function restores the previous settings; calling it again does nothing.
func lessGC() (restore func()) {
	pct := debug.SetGCPercent(400)
	limit := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(min(limit, 128<<20))
	return sync.OnceFunc(func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	})
}

func exitCode(code int, writeErr error) error {
	if writeErr != nil {
		return fmt.Errorf("writing the report: %w", writeErr)
	}
	if code == exitOK {
		return nil
	}
	return exitError(code)
}

type checkOptions struct {
	root, dir, format string
	os                string // --os
	untrusted         bool
	trustProject      bool // --trust-project
	args              []string
}

func checkAction(o checkOptions, stdout, stderr io.Writer) error {
	format, err := report.ParseFormat(o.format)
	if err != nil || format == report.GitHub {
		return withHint(fmt.Errorf("unknown format %q for check", o.format), "--format text|json")
	}
	var body string
	switch len(o.args) {
	case 0:
		return withHint(errors.New("no command to check"), "clada check -- git status, or clada check 'git status'")
	case 1:
		body = o.args[0]
	default:
		// The words were already split by the caller's shell; quoting
		// them gives the body that parses back to exactly these words.
		body = parser.Quote(o.args)
	}
	p, note, err := openTrusted(o.root, o.untrusted, o.trustProject, false, o.os)
	if err != nil {
		return err
	}
	if note != "" {
		warnf(stderr, "%s", note)
	}
	g, err := p.DecideGateway()
	if err != nil {
		return err
	}
	r := g.Check(body, o.dir)
	newDecisionLogger(p, decisionlog.EntryCheck, stderr).log(r)
	plan := &gateway.Plan{Results: []*gateway.Result{r}}
	rep := report.New(stdout, format, report.Options{DryRun: true})
	rep.Block(r)
	code := project.PlanExit(plan)
	if format == report.JSON {
		rep.Summary(report.Summarize(plan), code)
	}
	return exitCode(code, rep.Err())
}

func storeAction(name, root, pattern string, nargs int, force bool, stdout io.Writer) error {
	if nargs == 0 {
		return withHint(errors.New("no pattern"), "clada %s 'npm test'", name)
	}
	abs, how, err := project.Locate(root)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "clada: project root %s\n", project.Where(abs, how))
	switch name {
	case "forget":
		path, removed, err := approve.Remove(abs, pattern, gateway.ParsePattern)
		if err != nil {
			return storeError(err)
		}
		if !removed {
			fmt.Fprintf(stdout, "clada: `%s` was not in %s\n", pattern, path)
			return exitError(exitFailed)
		}
		fmt.Fprintf(stdout, "clada: removed `%s` from %s\n", pattern, path)
		return nil
	default:
		list := approve.ListAllowed
		if name == "block" {
			list = approve.ListBlocked
		} else if err := gateway.CheckAllowPattern(abs, pattern); err != nil {
			return withHint(err, "%s", err.(*gateway.PatternError).Advice)
		} else if stop, err := allowChecks(abs, pattern, force, stdout); stop || err != nil {
			return err
		}
		path, changed, err := approve.AddChanged(abs, list, pattern, gateway.ParsePattern)
		if err != nil {
			return storeError(err)
		}
		if !changed {
			fmt.Fprintf(stdout, "clada: `%s` is already in %s in %s\n", pattern, list, path)
			return nil
		}
		fmt.Fprintf(stdout, "clada: added `%s` to %s in %s\n", pattern, list, path)
		return nil
	}
}

// allowChecks checks a pattern clada allow is about to add: one that hands
// the model any code (a shell, an interpreter or a wrapper with * or with
// code) is refused without --force; one an allowed pattern of any scope
// already covers is not added (stop, saying which); one a blocked pattern
// overrides, in whole or in part, is added with a note that the block
// wins. A pattern that does not parse is left to the writer to report.
func allowChecks(root, text string, force bool, stdout io.Writer) (stop bool, err error) {
	pat, err := approve.ParsePattern(text, gateway.ParsePattern)
	if err != nil {
		return false, nil
	}
	if why := gateway.RunsAnything(pat); why != "" && !force {
		return true, withHint(fmt.Errorf("`%s` would let the model run any code it likes without asking: %s", pat.Text, why),
			"allow exact commands instead, such as `bash scripts/check.sh` (the script is yours to read), or pass --force if you mean it")
	}
	p, err := project.Open(project.Options{Root: root})
	if err != nil {
		return false, nil // the writer reports an unusable file
	}
	head := pat.Argv
	if pat.Prefix {
		head = head[:len(head)-1]
	}
	// Only a prefix pattern is covered by a shorter one: an exact pattern
	// allows exactly what the person saw (paths outside included), which
	// a prefix pattern's * never does.
	for _, q := range p.Commands.AllowedPatterns() {
		if pat.Prefix && q.Prefix && !slices.Equal(q.Argv, pat.Argv) && (approve.Pattern{Argv: q.Argv, Prefix: true}).Match(head) {
			fmt.Fprintf(stdout, "clada: `%s` is already covered by `%s` in %s; nothing added\n", pat.Text, q.Text, q.Source)
			return true, nil
		}
	}
	_, blocked := p.Commands.Lists()
	for _, l := range p.Commands.Layers() {
		blocked = append(blocked, l.Blocked...)
	}
	for _, b := range blocked {
		bhead := b.Argv
		if b.Prefix {
			bhead = bhead[:len(bhead)-1]
		}
		if b.Match(head) || (pat.Prefix && len(bhead) >= len(head) && slices.Equal(bhead[:len(head)], head)) {
			fmt.Fprintf(stdout, "clada: note: the blocked pattern `%s` in %s overrides it where both match: a block wins over an allow\n", b.Text, b.Source)
		}
	}
	return false, nil
}

// storeError gives an error of allow/block/forget the hint that fits it:
// the file is unusable, or the pattern is.
func storeError(err error) error {
	var fe *approve.FileError
	if errors.As(err, &fe) {
		return withHint(err, "fix or move the file; clada never rewrites a file it cannot read")
	}
	var d *rules.Denied
	if errors.As(err, &d) {
		return withHint(err, "patterns are command lines without shell syntax; a final * matches any further words")
	}
	return withHint(err, "check that .clada/ is a directory clada can write")
}

func listAction(root string, stdout io.Writer) error {
	abs, how, err := project.Locate(root)
	if err != nil {
		return err
	}
	p, err := project.Open(project.Options{Root: abs})
	if err != nil {
		return err
	}
	// Every pattern as written, trusted or not, from the project's file.
	cmds, err := approve.LoadCommands(abs, gateway.ParsePattern)
	if err != nil {
		return withHint(err, "fix the file; clada never rewrites it")
	}
	fmt.Fprintf(stdout, "root: %s\n", project.Where(abs, how))
	fmt.Fprintf(stdout, "file: %s\n", cmds.Path)
	printLists := func(c *approve.Commands, indent string) {
		for _, l := range []struct {
			name string
			ps   []approve.Pattern
		}{{"allowed", c.Allowed}, {"blocked", c.Blocked}} {
			fmt.Fprintf(stdout, "%s%s (%d):\n", indent, l.name, len(l.ps))
			for _, p := range l.ps {
				fmt.Fprintf(stdout, "%s  %s\n", indent, p.Text)
			}
		}
	}
	printLists(cmds, "")
	untrusted := p.Untrusted()
	if slices.Contains(untrusted, approve.CommandsFile) || slices.Contains(untrusted, approve.LegacyFile) {
		fmt.Fprintf(stdout, "(not trusted: its allowed patterns are not used until clada trust)\n")
	}
	for _, l := range p.Commands.Layers() {
		if len(l.Allowed) == 0 && len(l.Blocked) == 0 {
			continue
		}
		fmt.Fprintf(stdout, "%s: %s\n", l.Scope(), l.Path)
		printLists(l, "  ")
	}
	return nil
}

func specsAction(root, name string, check bool, stdout io.Writer) error {
	abs, _, err := project.Locate(root)
	if err != nil {
		return err
	}
	if check {
		path := filepath.Join(abs, ".clada", "specs.toml")
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stdout, "clada: no %s: only the embedded default specs are in use\n", path)
			return nil
		}
		set, err := specs.LoadFile(path)
		if err != nil {
			return withHint(err, "fix the file; docs/specs.md describes the format")
		}
		r, err := specs.NewResolver(abs)
		if err != nil {
			return err
		}
		if err := set.CheckExamples(r); err != nil {
			return withHint(err, "make each spec's allow/deny examples hold, or change the spec")
		}
		fmt.Fprintf(stdout, "clada: %s: ok (%d commands)\n", path, len(set.Names()))
		return nil
	}
	set, err := specs.Load(abs)
	if err != nil {
		return withHint(err, "fix .clada/specs.toml")
	}
	if name == "" {
		return set.List(stdout)
	}
	if err := set.Print(stdout, name); err != nil {
		return withHint(err, "`clada specs` lists every command")
	}
	return nil
}
