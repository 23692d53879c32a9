package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/output"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/runner"
	"github.com/clada/clada/internal/sandbox"
	"github.com/clada/clada/internal/specs"
)

// Status is where a RUN block ended up.
type Status string

// The statuses of a [Result].
const (
	StatusPlanned     Status = "planned"      // decided, not executed (dry run, check)
	StatusRan         Status = "ran"          // started (see Run for how it ended)
	StatusDenied      Status = "denied"       // refused by a rule
	StatusNotApproved Status = "not-approved" // asked, and not approved
	StatusSkipped     Status = "skipped"      // not considered: an earlier failure in its TASKS group, --stop-on-error or Ctrl-C
)

// Result is one RUN block: where it is, what was decided and, once
// executed, what happened.
type Result struct {
	Source   string   // document path, or "<stdin>"
	Index    int      // 0-based position among all RUN blocks of the run
	Line     int      // line of the opening marker
	Col      int      // column of the offending word, 0 when none
	WordLine int      // document line of the offending word, 0 when none
	Group    int      // TASKS group within its document, 0 = standalone
	Command  string   // the body as written, without surrounding blank lines
	Argv     []string // the words the model wrote; nil when the body was refused or is a composition
	// Composite is the body decided part by part when it is a
	// composition (pipelines, `&&`, `cd` …); nil for one plain command.
	Composite *Composite
	DirAttr   string // the dir attribute as written
	Verdict

	Status      Status
	ApprovedBy  string         // allow rule, or the person's answer "yes", "always" or "prefix" (always for the pattern ending in *), or "trust-all"
	NotApproved string         // approve's reason: "answered no", "timed out", "no terminal" …
	Skip        string         // why it was skipped
	Wrote       string         // file written by always/never
	Run         *runner.Result // set when Status is StatusRan
	// Parts are, for a composition that ran, how each of its parts ran.
	Parts []PartRun
	// Confinement says how the command ran under the sandbox, what the
	// integrity check found and whether the sandbox may be why it
	// failed; set when Status is StatusRan.
	Confinement Confinement
	// Stdout and Stderr are what the command printed, saved (see
	// ExecOptions.Output) and counted, with its ends kept for the report;
	// set when Status is StatusRan. Execute releases the kept ends once
	// the block is reported.
	Stdout, Stderr *output.Stream
}

// Failed reports whether the block counts as a failure for TASKS and
// --stop-on-error: refused, declined, or ran and did not exit 0.
func (r *Result) Failed() bool {
	switch r.Status {
	case StatusDenied, StatusNotApproved:
		return true
	case StatusRan:
		return !r.Run.OK()
	}
	return false
}

// Plan is every RUN block of every document, decided, plus the CSL
// errors that stop a run.
type Plan struct {
	Results []*Result
	// Errors are the CSL errors that are not reported with a RUN block:
	// fatal errors (one per broken document) and block errors of WRITE
	// and SEARCH blocks (a SEARCH without REPLACE). Any of them, like a
	// RUN block with a block error, means nothing runs.
	Errors   []*parser.Error
	Warnings []*parser.Error
	// Hints are the lines that look like commands (parser's
	// Document.Hints) of documents with no RUN block and no fatal error:
	// nothing of such a document runs, and the report says why.
	Hints   []*parser.Error
	Skipped int // WRITE and SEARCH blocks, skipped whole
}

// OK reports whether every document is valid CSL, the condition for
// running anything.
func (p *Plan) OK() bool {
	if len(p.Errors) > 0 {
		return false
	}
	for _, r := range p.Results {
		if r.Rule == rules.CSLSyntax {
			return false
		}
	}
	return true
}

// Plan decides every RUN block of docs, in order.
func (g *Gateway) Plan(docs []*parser.Document) *Plan {
	p := &Plan{}
	for _, d := range docs {
		p.Warnings = append(p.Warnings, d.Warnings...)
		p.Skipped += d.Skipped()
		before := len(p.Results) // RUN blocks of earlier documents
		for i := range d.Blocks {
			b := &d.Blocks[i]
			if b.Kind != parser.KindRun {
				if b.Err != nil {
					p.Errors = append(p.Errors, b.Err)
				}
				continue
			}
			r := &Result{Source: d.Source, Index: len(p.Results), Line: b.Line, Group: b.Group,
				Command: strings.Trim(b.Body, "\n"), DirAttr: b.Dir, Status: StatusPlanned}
			switch {
			case g.opts.ComposeRunBlocks && (b.Denied != nil || b.Err != nil && b.Err.MoreThanOne()) && g.composeBlock(r, b.Body):
			case b.Err != nil:
				// The reason is the error as docs/csl.md §6 prints it:
				// SOURCE:LINE: message.
				r.Verdict = Verdict{Decision: Deny, Rule: rules.CSLSyntax, Reason: b.Err.Error(),
					Advice: "fix the block; while any block has a CSL error nothing in the reply runs"}
			case b.Denied != nil:
				r.Verdict = parserRefusal(b.Denied)
				if b.Denied.Line > 0 {
					r.WordLine, r.Col = b.Line+b.Denied.Line, b.Denied.Col
				}
			default:
				r.Argv = b.Argv
				r.Verdict = g.Decide(b.Argv, b.Dir)
			}
			p.Results = append(p.Results, r)
		}
		if d.Fatal != nil {
			p.Errors = append(p.Errors, d.Fatal)
		} else if before == len(p.Results) {
			p.Hints = append(p.Hints, d.Hints...)
		}
	}
	return p
}

// Check decides one command line, parsed exactly as a RUN body, run in
// dir; it is `clada check`. The result's Source is "<check>" and its line
// 1; nothing is executed.
func (g *Gateway) Check(body, dir string) *Result {
	r := &Result{Source: "<check>", Line: 1, Command: strings.Trim(body, "\n"), DirAttr: dir, Status: StatusPlanned}
	argv, err := parser.New().ForWindows(g.opts.OS == specs.OSWindows).Command(body)
	var d *rules.Denied
	switch {
	case errors.As(err, &d) && g.opts.Compose && composable(d.Rule) && g.composeBlock(r, body):
	case errors.As(err, &d):
		r.Verdict = parserRefusal(d)
		if d.Line > 0 {
			r.WordLine, r.Col = d.Line, d.Col
		}
	case err != nil:
		r.Verdict = refused(err, "")
	default:
		r.Argv = argv
		r.Verdict = g.Decide(argv, dir)
	}
	return r
}

// composable reports whether a body the parser refused for rule may be a
// composition.
func composable(rule rules.Rule) bool {
	switch rule {
	case rules.ShellSyntax, rules.Redirect, rules.Glob, rules.Assignment,
		rules.Builtin, rules.Substitution, rules.Expansion, rules.CSLSyntax:
		return true
	}
	return false
}

// composeBlock decides body as a composition into r. It reports false
// when the body is not one (or is one plain command after all), leaving
// r to the caller; a composition the parser refuses is a deny with the
// composition's own reason.
func (g *Gateway) composeBlock(r *Result, body string) bool {
	s, err := parser.New().ForWindows(g.opts.OS == specs.OSWindows).Script(body)
	var d *rules.Denied
	switch {
	case errors.As(err, &d):
		if d.Rule == rules.CSLSyntax {
			return false
		}
		r.Verdict = parserRefusal(d)
		if d.Line > 0 {
			r.WordLine, r.Col = d.Line, d.Col
			if r.Source != "<check>" {
				r.WordLine = r.Line + d.Line
			}
		}
		return true
	case err != nil:
		return false
	}
	c := g.DecideScript(s, r.DirAttr)
	r.Composite, r.Verdict = c, c.Verdict
	return true
}

// parserRefusal is the deny verdict for a body the parser refused.
func parserRefusal(d *rules.Denied) Verdict {
	return Verdict{Decision: Deny, Rule: d.Rule, Word: d.Word, Reason: d.Reason, Advice: d.Advice}
}

// Asker asks the person about one command; *approve.Prompter is one.
// Cancelling ctx ends the question at once, as a No.
type Asker interface {
	Ask(ctx context.Context, q approve.Question, timeout time.Duration) (approve.Answer, approve.NoReason, error)
}

// ExecOptions configure [Gateway.Execute]. The zero value asks nobody
// (nothing that needs approval runs) and uses the runner's defaults.
type ExecOptions struct {
	Asker           Asker            // nil: no terminal, asks are not approved
	NoAsk           approve.NoReason // why Asker is nil, e.g. "no terminal" or "--no-prompt"
	TrustAll        bool             // approve every ask (deny stays deny)
	StopOnError     bool             // stop at the first failure anywhere
	ApprovalTimeout time.Duration    // 0 = 60 s
	Runner          runner.Config    // Timeout and MaxOutput; Dir, Env, Stdout and Stderr are set per block
	Diag            io.Writer        // clada's own messages (the file always/never wrote); nil = discard
	// Sandbox confines each command to what its verdict grants; nil
	// runs commands unconfined without saying so (tests of the gateway
	// alone).
	Sandbox *sandbox.Sandbox
	// Output saves each command's stdout and stderr under .clada/out/
	// and keeps their ends for the report; nil saves nothing and keeps
	// output.DefaultBudget.Bytes at each end of each stream in memory.
	Output *output.Store
	// Live, when set, also gets each command's stdout and stderr as they
	// come (clada run's progress on a terminal); its errors are ignored
	// and change nothing of what is saved or reported. Started, when
	// set, is called as a command is about to start.
	Live    io.Writer
	Started func(*Result)
	// Hosts, when not nil, asks the person about a host a running
	// command wants to reach and was not granted (clada run at a
	// terminal); Execute sets its Remember. nil refuses such a host.
	Hosts *HostQuestions
}

// Execute runs a valid plan in document order, calling emit for each
// block as soon as it is finished. The kept ends of a block's output are
// released when emit returns. It never runs anything when the plan
// has a CSL error.
func (g *Gateway) Execute(ctx context.Context, p *Plan, x ExecOptions, emit func(*Result)) {
	if !p.OK() {
		return
	}
	if x.Diag == nil {
		x.Diag = io.Discard
	}
	if x.ApprovalTimeout == 0 {
		x.ApprovalTimeout = 60 * time.Second
	}
	type groupKey struct {
		source string
		group  int
	}
	failedGroup := map[groupKey]int{} // group → index of the block that failed
	stopped := ""
	anyRan, dirty, remembered := false, false, false
	for _, r := range p.Results {
		if (anyRan || remembered) && r.Argv != nil {
			// A command that ran may have changed the file system
			// (mkdir, mv, cp, an approved ln): decide again on fresh
			// symlink resolution, so a path checked before the run
			// cannot point elsewhere now. An always or never answer
			// changed the patterns: a later identical block is
			// decided by them, not asked again.
			if dirty {
				g.forget()
				dirty = false
			}
			r.Verdict = g.Decide(r.Argv, r.DirAttr)
		}
		if (anyRan || remembered) && r.Composite != nil {
			if dirty {
				g.forget()
				dirty = false
			}
			r.Composite = g.DecideScript(r.Composite.Script, r.DirAttr)
			r.Verdict = r.Composite.Verdict
		}
		key := groupKey{r.Source, r.Group}
		switch {
		case ctx.Err() != nil:
			r.Status, r.Skip = StatusSkipped, "clada was interrupted before this command"
		case stopped != "":
			r.Status, r.Skip = StatusSkipped, stopped
		case r.Group > 0 && failedGroup[key] > 0:
			r.Status = StatusSkipped
			r.Skip = fmt.Sprintf("block %d in the same TASKS group was refused, declined or failed", failedGroup[key])
		default:
			g.execute(ctx, r, x)
			if r.Status == StatusRan {
				anyRan, dirty = true, true
			}
			remembered = remembered || r.Wrote != ""
		}
		if r.Failed() {
			if r.Group > 0 && failedGroup[key] == 0 {
				failedGroup[key] = r.Index + 1
			}
			if x.StopOnError && stopped == "" {
				stopped = fmt.Sprintf("--stop-on-error: block %d was refused, declined or failed", r.Index+1)
			}
		}
		if emit != nil {
			emit(r)
		}
		if r.Stdout != nil {
			// Reported: drop the kept ends, so memory holds one
			// command's at a time however many blocks run.
			r.Stdout.Release()
			r.Stderr.Release()
		}
	}
}

func (g *Gateway) execute(ctx context.Context, r *Result, x ExecOptions) {
	if r.Decision != Deny && r.Missing != "" {
		notInstalled(r, x)
		return
	}
	switch r.Decision {
	case Deny:
		r.Status = StatusDenied
		return
	case Allow:
		r.ApprovedBy = string(r.Rule)
	case Ask:
		if !g.approve(ctx, r, x) {
			r.Status = StatusNotApproved
			return
		}
	}
	stdout, stderr := resultStreams(r, x)
	cfg := x.Runner
	cfg.Stdout, cfg.Stderr = stdout, stderr
	if x.Live != nil {
		cfg.Stdout, cfg.Stderr = liveWriter{stdout, x.Live}, liveWriter{stderr, x.Live}
	}
	if x.Started != nil {
		x.Started(r)
	}
	var res runner.Result
	if r.Composite != nil {
		cr := g.RunComposite(ctx, r.Composite, cfg, x.Sandbox, g.hostQuestions(r, x))
		res, r.Confinement, r.Parts = cr.Result, cr.Confinement, cr.Parts
	} else {
		var conf Confinement
		res, conf = RunVerdict(ctx, r.Verdict, cfg, x.Sandbox, g.hostQuestions(r, x))
		r.Confinement = conf
	}
	// A Stream's error is its own (Err); Close only ends the file.
	_ = stdout.Close()
	_ = stderr.Close()
	r.Status, r.Run = StatusRan, &res
	r.Stdout, r.Stderr = stdout, stderr
}

// liveWriter writes to w and, ignoring its errors, to live.
type liveWriter struct {
	w    io.Writer
	live io.Writer
}

func (t liveWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	_, _ = t.live.Write(p)
	return n, err
}

// commandEnv is the environment a command runs with: clada's own, less
// the variables that would make programs parse their arguments otherwise
// than the specs assume, plus the verdict's extras (git hardening).
// POSIXLY_CORRECT makes GNU programs stop at the first operand, so
// `grep x a.txt -e /etc/passwd`, checked with -e as an option, would read
// /etc/passwd as a file.
func commandEnv(environ, extra []string) []string {
	env := make([]string, 0, len(environ)+len(extra))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "POSIXLY_CORRECT=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// approve asks the person, or applies --trust-all, and records the
// answer in r.
func (g *Gateway) approve(ctx context.Context, r *Result, x ExecOptions) bool {
	if x.TrustAll {
		r.ApprovedBy = "trust-all"
		return true
	}
	if x.Asker == nil {
		r.NotApproved = string(x.NoAsk)
		if r.NotApproved == "" {
			r.NotApproved = string(approve.NoTTY)
		}
		return false
	}
	q := approve.Question{Command: parser.Quote(r.Argv), Dir: g.relDir(r.Dir), Why: r.Why, Prefix: g.prefixFor(r),
		Sandbox: sandboxPhrase(x.Sandbox, r.Verdict, x.Hosts.asking())}
	var asked []*Part // a composition's parts that need approval: what always and prefix remember
	if c := r.Composite; c != nil {
		for _, p := range c.Parts {
			if p.Decision == Ask {
				asked = append(asked, p)
			}
		}
		q.Command, q.Dir, q.Prefix = r.Command, g.relDir(g.startDir(r.DirAttr)), ""
		if len(asked) == 1 {
			q.Prefix = g.prefixFor(&Result{Argv: asked[0].Argv, Verdict: asked[0].Verdict})
		}
	}
	ans, no, err := x.Asker.Ask(ctx, q, x.ApprovalTimeout)
	if err != nil {
		r.NotApproved = "prompt failed: " + err.Error()
		return false
	}
	pattern := PatternFor(r.Argv)
	if r.Composite != nil && (ans == approve.Always || ans == approve.AlwaysPrefix || ans == approve.Never) {
		// Patterns are about parts, never the whole text: always and
		// prefix remember the parts that needed approval, never blocks
		// them.
		list := approve.ListAllowed
		r.ApprovedBy = ans.String()
		if ans == approve.Never {
			list, r.ApprovedBy, r.NotApproved = approve.ListBlocked, "", "answered never"
		}
		for _, p := range asked {
			pt := PatternFor(p.Argv)
			if ans == approve.AlwaysPrefix && q.Prefix != "" {
				pt = q.Prefix
			}
			g.remember(r, list, pt, x.Diag)
		}
		return ans != approve.Never
	}
	switch ans {
	case approve.Yes:
		r.ApprovedBy = "yes"
		return true
	case approve.Always:
		r.ApprovedBy = "always"
		g.remember(r, approve.ListAllowed, pattern, x.Diag)
		return true
	case approve.AlwaysPrefix:
		r.ApprovedBy = "prefix"
		if q.Prefix != "" {
			pattern = q.Prefix
		}
		g.remember(r, approve.ListAllowed, pattern, x.Diag)
		return true
	case approve.Never:
		r.NotApproved = "answered never"
		g.remember(r, approve.ListBlocked, pattern, x.Diag)
		return false
	}
	r.NotApproved = string(no)
	return false
}

func (g *Gateway) remember(r *Result, list approve.List, pattern string, diag io.Writer) {
	path, err := approve.Add(g.Root(), list, pattern, ParsePattern)
	if err != nil {
		fmt.Fprintf(diag, "clada: error: could not remember `%s`: %v\n", pattern, err)
		return
	}
	r.Wrote = path
	fmt.Fprintf(diag, "clada: added `%s` to %s in %s\n", pattern, list, path)
	// The patterns in memory follow the file, so the rest of this run
	// (and a resident clada) decides with the new pattern.
	if _, err := g.opts.Commands.Refresh(); err != nil {
		fmt.Fprintf(diag, "clada: error: re-reading %s: %v\n", path, err)
	}
}

// hostQuestions is x.Hosts for r's command, remembering always and never
// in the project's commands.toml; nil when x asks nobody.
func (g *Gateway) hostQuestions(r *Result, x ExecOptions) *HostQuestions {
	if !x.Hosts.asking() {
		return nil
	}
	hq := *x.Hosts
	if hq.Timeout == 0 {
		hq.Timeout = x.ApprovalTimeout
	}
	if hq.Diag == nil {
		hq.Diag = x.Diag
	}
	hq.Remember = func(pattern, host string, allow bool) string {
		path, _, err := approve.AddHost(g.Root(), pattern, host, allow, ParsePattern)
		if err != nil {
			return fmt.Sprintf("clada: error: could not remember %s for `%s`: %v", host, pattern, err)
		}
		r.Wrote = path
		// The rest of this run (and a resident clada) decides with
		// the new entry.
		if _, err := g.opts.Commands.Refresh(); err != nil {
			return fmt.Sprintf("clada: error: re-reading %s: %v", path, err)
		}
		list := "allow"
		if !allow {
			list = "deny"
		}
		return fmt.Sprintf("clada: added %s to the %s list of `%s` in [[network]] in %s", host, list, pattern, path)
	}
	return &hq
}

// relDir shows an absolute directory relative to the root ("." for the
// root itself).
func (g *Gateway) relDir(dir string) string {
	root := g.Root()
	if dir == root || dir == "" {
		return "."
	}
	if rel, ok := strings.CutPrefix(dir, root+string(os.PathSeparator)); ok {
		return rel + "/"
	}
	return dir
}
