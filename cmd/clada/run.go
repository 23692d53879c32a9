package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/decisionlog"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/project"
	"github.com/clada/clada/internal/report"
	"github.com/clada/clada/internal/specs"
	"github.com/urfave/cli/v2"
)

// runCommand is `clada run [FILE...]`: the RUN blocks of CSL documents
// decided, asked about, run and reported.
func runCommand(stdin io.Reader, stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "check, ask about and run the RUN blocks of CSL documents",
		ArgsUsage: "[FILE...|-]",
		Description: "Reads CSL documents (stdin when no FILE or -), decides allow / ask / deny for every\n" +
			"RUN block, asks on the terminal about the ones that need approval, runs the approved\n" +
			"ones without a shell and reports to stdout. Any CSL error: nothing runs, exit 2.\n" +
			"Flags come before the files." + examples(
			"clada run reply.csl                          # decide, ask, run, report",
			"model-reply | clada run                      # the reply on stdin",
			"clada run --dry-run --format json reply.csl  # decide only; JSON Lines",
			"clada run --dry-run --format github *.csl    # annotations for CI",
			"clada run --timeout 5m --no-prompt reply.csl # run what is allowed, ask nothing",
			"clada run --dry-run --os darwin reply.csl    # decide as on macOS (CI on Linux)"),
		Flags: []cli.Flag{
			rootFlag(),
			&cli.BoolFlag{Name: "dry-run", Usage: "decide every block and report; run nothing, ask nothing"},
			osFlag(),
			formatFlag("report format: text, json or github"),
			&cli.BoolFlag{Name: "no-prompt", Usage: "never ask: commands that need approval are not run"},
			&cli.BoolFlag{Name: "trust-all", Usage: "approve every command that would be asked (deny stays deny); prints a warning"},
			&cli.BoolFlag{Name: "untrusted", Usage: "ask even for commands the specs allow"},
			trustProjectFlag(),
			&cli.StringFlag{Name: "timeout", Usage: "per-command timeout: 30s, 5m, or whole seconds (1s to 24h)", DefaultText: "60s, or timeout in .clada/config.toml"},
			&cli.StringFlag{Name: "max-output", Usage: "cap on stdout+stderr per command, e.g. 512KiB; past it the command is killed", DefaultText: "10MB, or max_output in .clada/config.toml"},
			&cli.StringFlag{Name: "report-budget", Usage: "how much of each command's output the report shows (all of it is saved in .clada/out/): a size, or a size and a line count, e.g. 32KiB,800", DefaultText: "10KiB,256, or report_budget in .clada/config.toml"},
			&cli.BoolFlag{Name: "stop-on-error", Usage: "stop at the first refused, declined or failed command anywhere"},
			&cli.BoolFlag{Name: "keep-going", Usage: "outside TASKS groups, go on after a failure", DefaultText: "on unless --stop-on-error"},
			sandboxFlag(),
		},
		Action: func(c *cli.Context) error {
			o, err := runOptionsFrom(c)
			if err != nil {
				return err
			}
			return runAction(o, stdin, stdout, stderr)
		},
	}
}

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

// runOptionsFrom copies clada run's flags into runOptions.
func runOptionsFrom(c *cli.Context) (runOptions, error) {
	o := runOptions{
		root: c.String("root"), files: c.Args().Slice(), dryRun: c.Bool("dry-run"),
		format: c.String("format"), noPrompt: c.Bool("no-prompt"), trustAll: c.Bool("trust-all"),
		untrusted: c.Bool("untrusted"), trustProject: c.Bool("trust-project"), timeoutSet: c.IsSet("timeout"),
		maxOutput: c.String("max-output"), budget: c.String("report-budget"), stopOnError: c.Bool("stop-on-error"), keepGoing: c.Bool("keep-going"),
		os:      c.String("os"),
		sandbox: c.String("sandbox"),
	}
	files, flag, file := runFiles(o.files)
	o.files = files
	if flag != "" {
		return o, withHint(fmt.Errorf("flag %s comes after the file %s, so it would be read as a file name", flag, file),
			"put flags before the files: clada run %s %s (write a file named %s as ./%s)", flag, file, flag, flag)
	}
	if o.timeoutSet {
		d, err := parseTimeout(c.String("timeout"))
		if err != nil {
			return o, err
		}
		o.timeout = d
	}
	return o, nil
}

// runFiles returns the file names of clada run's arguments, and the
// first word after a file name that looks like a flag with that file name
// ("" when there is none). urfave/cli stops reading flags at the first
// file, so `clada run reply.csl --dry-run` would open a file named
// --dry-run and run the reply for real. A "--" after a file makes the
// rest file names; it is not one itself.
func runFiles(args []string) (files []string, flag, file string) {
	dashes := false
	for _, a := range args {
		switch {
		case dashes:
		case a == "--" && len(files) > 0:
			dashes = true
			continue
		case len(files) > 0 && len(a) > 1 && a[0] == '-':
			return nil, a, files[0]
		}
		files = append(files, a)
	}
	return files, "", ""
}

// parseTimeout reads --timeout as config.toml reads timeout: a Go
// duration ("30s", "5m", "1h30m") or a whole number of seconds ("5" is
// 5 s), from 1 s to 24 h.
func parseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	d, err := approve.ParseDuration(s)
	if err != nil {
		return 0, withHint(fmt.Errorf("--timeout %q is not a duration", s), "write 30s, 5m or 1h30m, or a number of seconds")
	}
	if d < approve.MinTimeout || d > approve.MaxTimeout {
		return 0, withHint(fmt.Errorf("--timeout %s is out of range", s), "give a duration from 1s to 24h")
	}
	return d, nil
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
	// The terminal is opened when a block needs asking, and when a
	// command runs at all: a running command that wants a host it was
	// not granted is put to the person then and there.
	var prompter *approve.Prompter
	if x.NoAsk == "" && (project.NeedsAsk(plan) || mayRun(plan)) {
		prompter, err = approve.Open(nil)
		if err != nil {
			warnf(stderr, "cannot open the terminal to ask: %v", err)
			x.NoAsk = approve.NoTTY
			prompter = nil
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
	if prompter.Terminal() {
		x.Hosts = &gateway.HostQuestions{Asker: prompter, Timeout: x.ApprovalTimeout, Diag: stderr}
		if prog != nil {
			x.Hosts.Hold = prog.hold
		}
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
