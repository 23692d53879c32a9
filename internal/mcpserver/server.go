package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/decisionlog"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/project"
	"github.com/clada/clada/internal/report"
	"github.com/clada/clada/internal/sandbox"
)

// Options configure [Serve]. The zero value serves the project found from
// the working directory, as `clada run` finds it, and asks through the
// client about every command that needs approval.
type Options struct {
	// Root is the project root (--root); "" finds it from the working
	// directory as clada run does.
	Root string
	// TrustAll approves every command that would be asked (--trust-all);
	// deny stays deny.
	TrustAll bool
	// Untrusted asks even for commands the specs allow (--untrusted).
	Untrusted bool
	// Sandbox is --sandbox: auto, required or off; "" means config.toml's.
	Sandbox string
	// Version is clada's version, reported to the client.
	Version string
	// Log receives clada's own messages (stderr); nil discards them.
	Log io.Writer
	// Getenv reads the environment (CI); nil is os.Getenv.
	Getenv func(string) string
}

// Server is one clada MCP server over an opened project. Its tools may
// be called concurrently.
type Server struct {
	p         *project.Project
	sb        *sandbox.Sandbox
	sbWarning string // the warning of sandbox = off, printed once by Serve
	o         Options
	log       io.Writer
	jobs      *jobs
	roots     *roots
	mcp       *mcp.Server

	idleMu sync.Mutex
	idle   *time.Timer // gives memory back once no request came for idleAfter

	wsMu       sync.Mutex
	workspaces map[string]*Server // the projects of the client's workspaces (workspace.go), by root
}

// legacyProtocols are the protocol versions clada speaks. Versions from
// 2026-07-28 on carry a question inside the tool result and have the
// client call again (multi round-trip requests); clada keeps its question
// open in the call instead, with the approval timeout running, so that
// one call is one decision and no approval state travels through the
// client. Clients of newer versions fall back to these.
var legacyProtocols = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// New opens the project and returns its server.
func New(o Options) (*Server, error) {
	if err := project.CheckRunOptions(project.RunOptions{TrustAll: o.TrustAll}, o.Untrusted); err != nil {
		return nil, err
	}
	root, _, err := project.Locate(o.Root)
	if err != nil {
		return nil, err
	}
	// dir arguments are relative to the root, wherever clada mcp started.
	p, err := project.Open(project.Options{Root: root, WorkDir: root, Untrusted: o.Untrusted})
	if err != nil {
		return nil, err
	}
	if err := p.CheckManaged(o.TrustAll); err != nil {
		return nil, err
	}
	resolved := p.Root
	if r, err := filepath.EvalSymlinks(p.Root); err == nil {
		resolved = r
	}
	sb, warning, err := p.Sandbox(o.Sandbox)
	if err != nil {
		return nil, err
	}
	s := &Server{p: p, sb: sb, sbWarning: warning, o: o, log: o.Log, jobs: newJobs()}
	if s.log == nil {
		s.log = io.Discard
	}
	if note := p.UntrustedNote(); note != "" {
		fmt.Fprintf(s.log, "clada mcp: %s\n", note)
	}
	s.roots = &roots{root: resolved, log: s.log}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "clada", Title: "clada: a shell-free command gateway", Version: o.Version},
		&mcp.ServerOptions{
			Instructions: instructions,
			// No logging capability: clada's messages go to stderr.
			Capabilities:              &mcp.ServerCapabilities{},
			SupportedProtocolVersions: legacyProtocols,
			//lint:ignore SA1019 the protocols clada speaks have roots (legacyProtocols)
			RootsListChangedHandler: func(context.Context, *mcp.RootsListChangedRequest) {
				s.roots.changed()
			},
		})
	if err := s.addTools(); err != nil {
		return nil, err
	}
	s.idle = time.AfterFunc(time.Hour, debug.FreeOSMemory)
	s.idle.Stop()
	s.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			defer s.touch()
			return next(ctx, method, req)
		}
	})
	return s, nil
}

// idleAfter is how long the server waits after a request before it gives
// the memory its requests left behind back to the system. The SDK's JSON
// decoding allocates a large buffer per message, which the Go runtime
// would otherwise keep for minutes: an agent's server sits idle most of
// the time, and its resident memory is what the person pays for.
const idleAfter = 2 * time.Second

// touch restarts the idle timer.
func (s *Server) touch() {
	s.idleMu.Lock()
	s.idle.Reset(idleAfter)
	s.idleMu.Unlock()
}

// Root is the project root the server serves.
func (s *Server) Root() string { return s.p.Root }

// instructions tell the model how to use the tools.
const instructions = "clada runs commands without a shell, inside the project root, after checking each one: " +
	"allowed commands run at once, others are asked about (the person answers in the client) or refused with the rule " +
	"and what to do instead. One command per run call, written as in a terminal but without pipes, redirections, " +
	"&&, $VARIABLES or globs; use dir for the working directory. A command still running after background_after seconds " +
	"becomes a job: poll it with output, stop it with kill. Use check to learn whether a command would be allowed."

// Serve runs s on the connection (in, out) until in ends or ctx is
// cancelled, then kills every job's process group and waits for them.
// An ended connection is no error.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	rc, ok := in.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(in)
	}
	return s.serve(ctx, &mcp.IOTransport{Reader: rc, Writer: nopWriteCloser{out}})
}

func (s *Server) serve(ctx context.Context, t mcp.Transport) error {
	err := s.mcp.Run(ctx, t)
	s.jobs.close()
	s.closeWorkspaces()
	s.idleMu.Lock()
	s.idle.Stop()
	s.idleMu.Unlock()
	if errors.Is(err, io.EOF) || (err != nil && ctx.Err() != nil) {
		return nil
	}
	return err
}

// Serve opens the project of o and serves it on (in, out); see
// [Server.Serve].
func Serve(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	s, err := New(o)
	if err != nil {
		return err
	}
	if o.TrustAll {
		fmt.Fprintln(s.log, "clada mcp: warning: --trust-all: every command that would be asked about runs without asking (denied ones still don't)")
	}
	if s.sbWarning != "" {
		fmt.Fprintln(s.log, s.sbWarning)
	}
	defer s.sb.Close()
	fmt.Fprintf(s.log, "clada mcp: serving %s\n", s.p.Root)
	return s.Serve(ctx, in, out)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// The tools' inputs. Field names and JSON names are a contract.
type (
	runInput struct {
		Command         string   `json:"command" jsonschema:"one command line, parsed exactly as a CSL RUN body: words and quotes only; pipes, redirections, &&, $VARIABLES, globs and ~ are refused"`
		Dir             string   `json:"dir,omitempty" jsonschema:"working directory, relative to the project root (default: the root)"`
		BackgroundAfter *float64 `json:"background_after,omitempty" jsonschema:"seconds to wait for the command before it goes on as a background job (default: background_after in .clada/config.toml, 30)"`
	}
	checkInput struct {
		Command string `json:"command" jsonschema:"one command line, parsed exactly as a CSL RUN body"`
		Dir     string `json:"dir,omitempty" jsonschema:"working directory, relative to the project root (default: the root)"`
	}
	jobInput struct {
		Job int `json:"job" jsonschema:"the job id a run result gave"`
	}
	// checkOutput is the structured result of check.
	checkOutput struct {
		Decision string   `json:"decision" jsonschema:"allow, ask or deny"`
		Rule     string   `json:"rule" jsonschema:"the stable code of the rule that decided"`
		Reason   string   `json:"reason"`
		Advice   string   `json:"advice" jsonschema:"what to do instead; empty when allowed"`
		Argv     []string `json:"argv" jsonschema:"the words of the command; empty when it was refused before it was split"`
		Word     string   `json:"word,omitempty" jsonschema:"the offending word, when there is one"`
	}
)

// maxBackgroundAfter bounds background_after given in a call.
const maxBackgroundAfter = 3600

func (s *Server) addTools() error {
	ptr := func(b bool) *bool { return &b }
	checkOut, err := jsonschema.For[checkOutput](nil)
	if err != nil {
		return err
	}
	checkOut.Properties["decision"].Enum = []any{"allow", "ask", "deny"}
	checkOut.Properties["argv"].Types, checkOut.Properties["argv"].Type = nil, "array"
	checkIn, err := jsonschema.For[checkInput](nil)
	if err != nil {
		return err
	}
	runIn, err := jsonschema.For[runInput](nil)
	if err != nil {
		return err
	}
	bg := runIn.Properties["background_after"]
	bg.Types, bg.Type = nil, "number"
	bg.Minimum, bg.Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(float64(maxBackgroundAfter))
	jobIn, err := jsonschema.For[jobInput](nil)
	if err != nil {
		return err
	}
	jobIn.Properties["job"].Minimum = jsonschema.Ptr(1.0)

	addTool(s.mcp, &mcp.Tool{
		Name:  "run",
		Title: "Run a command (checked by clada, no shell)",
		Description: "Run one command in the project without a shell, if clada allows it or a person approves it. " +
			"The result is clada's report: the decision, and when it ran its exit status and output. " +
			"isError is true when the command was denied, not approved, failed or timed out. " +
			"A command still running after background_after seconds returns a job id; use output and kill with it.",
		InputSchema:  runIn,
		OutputSchema: reportSchema("the JSON report block of the command (as `clada run --format json` writes it), plus job while it runs as a job"),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, IdempotentHint: false,
			DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	}, s.run)
	addTool(s.mcp, &mcp.Tool{
		Name:  "check",
		Title: "Check a command (nothing runs)",
		Description: "Decide one command as run would (allow, ask or deny) and say why, without running it " +
			"or asking anyone.",
		InputSchema:  checkIn,
		OutputSchema: checkOut,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.check)
	addTool(s.mcp, &mcp.Tool{
		Name:  "output",
		Title: "A job's status and output",
		Description: "The status of a job (running, exited, killed or timed out), its exit code when it is done, " +
			"and its output so far. Finished jobs stay available for a while (the newest " + fmt.Sprint(keepFinished) + ").",
		InputSchema:  jobIn,
		OutputSchema: reportSchema("the JSON report block of the job's command, with job and status (running, exited, killed or timed out)"),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: false, OpenWorldHint: ptr(false)},
	}, s.output)
	addTool(s.mcp, &mcp.Tool{
		Name:         "kill",
		Title:        "Stop a job",
		Description:  "Stop a running job: its command and every process it started are killed. Reports the job's final status.",
		InputSchema:  jobIn,
		OutputSchema: reportSchema("the JSON report block of the job's command, with job and its final status"),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, IdempotentHint: true,
			DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	}, s.kill)
	return nil
}

// input is a tool's arguments, which check their own values.
type input interface {
	runInput | checkInput | jobInput
	valid() error
}

func (in runInput) valid() error {
	switch b := in.BackgroundAfter; {
	case in.Command == "":
		return errors.New("command is required: one command line, such as \"git status\"")
	case b != nil && (*b < 0 || *b > maxBackgroundAfter):
		return fmt.Errorf("background_after %v is out of range: give seconds from 0 to %d", *b, maxBackgroundAfter)
	}
	return nil
}

func (in checkInput) valid() error {
	if in.Command == "" {
		return errors.New("command is required: one command line, such as \"git status\"")
	}
	return nil
}

func (in jobInput) valid() error {
	if in.Job < 1 {
		return errors.New("job is required: the job id a run result gave")
	}
	return nil
}

// addTool adds a tool whose arguments are decoded into In and whose
// structured result is h's second value. It does what the SDK's generic
// AddTool does, with encoding/json: the SDK's decoder allocates a large
// buffer per call, several times per call, which made check's round trip
// slower and the server's memory larger (bench/README.md). The schemas
// are still declared; arguments are checked by decoding (unknown fields
// and wrong types are errors) and by In.valid, and tests check the
// results against the output schemas.
func addTool[In input](srv *mcp.Server, t *mcp.Tool, h func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, any, error)) {
	srv.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		args := req.Params.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = []byte("{}")
		}
		d := json.NewDecoder(bytes.NewReader(args))
		d.DisallowUnknownFields()
		err := d.Decode(&in)
		if err == nil {
			err = in.valid()
		}
		if err != nil {
			return toolError("invalid arguments for %s: %v", t.Name, err), nil
		}
		res, out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		if out != nil {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(out); err != nil {
				return nil, fmt.Errorf("encoding the result of %s: %w", t.Name, err)
			}
			res.StructuredContent = json.RawMessage(bytes.TrimRight(b.Bytes(), "\n"))
		}
		return res, nil
	})
}

// reportSchema is the output schema of run, output and kill: a JSON
// report block object, whose fields docs/report.md lists.
func reportSchema(desc string) *jsonschema.Schema {
	str := func() *jsonschema.Schema { return &jsonschema.Schema{Type: "string"} }
	return &jsonschema.Schema{
		Type:        "object",
		Description: desc,
		Properties: map[string]*jsonschema.Schema{
			"command":   str(),
			"decision":  {Type: "string", Enum: []any{"allow", "ask", "deny"}},
			"rule":      str(),
			"reason":    str(),
			"advice":    str(),
			"status":    str(),
			"exit_code": {Type: "integer"},
			"job":       {Type: "integer", Description: "the job id, while the command runs in the background and for output and kill"},
			"hint":      {Type: "string", Description: "what to do next, while the command runs in the background: call output or kill with the job id"},
		},
		Required: []string{"decision", "status"},
	}
}

// toolError is an isError result with text, for calls clada cannot serve
// (bad arguments, an unreadable .clada/ file, an unknown job).
func toolError(format string, a ...any) *mcp.CallToolResult {
	r := &mcp.CallToolResult{}
	r.SetError(fmt.Errorf(format, a...))
	return r
}

// refusedForRoots is the result of run and check while the client offers
// a root outside the project.
func refusedForRoots(why string) *mcp.CallToolResult {
	return toolError("clada mcp runs and checks no command while %s; a person must start clada mcp with --root "+
		"set to a directory that holds every root of the client, or remove that root from the client's workspace", why)
}

// check's result is typed any so that an error result carries no
// structured content (a typed result always would, and it would have to
// fit the schema).
func (s *Server) check(ctx context.Context, req *mcp.CallToolRequest, in checkInput) (*mcp.CallToolResult, any, error) {
	s, why := s.forCall(ctx, req)
	if why != "" {
		return refusedForRoots(why), nil, nil
	}
	g, err := s.p.DecideGateway()
	if err != nil {
		return toolError("%s", projectError(err)), nil, nil
	}
	r := g.Check(in.Command, in.Dir)
	s.logDecision(req, r)
	out := checkOutput{Decision: string(r.Decision), Rule: string(r.Rule), Reason: r.Reason, Advice: r.Advice, Argv: r.Argv, Word: r.Word}
	if out.Argv == nil {
		out.Argv = []string{}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: blockText(r, report.Options{DryRun: true})}}}, out, nil
}

// logDecision appends r to the project's decision log (entry mcp, the
// client's name as the agent). A failure to write it goes to clada's
// own log, never to the client.
func (s *Server) logDecision(req *mcp.CallToolRequest, r *gateway.Result) {
	agent := ""
	if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
		agent = p.ClientInfo.Name
	}
	if err := s.p.Log(s.p.LogEntry(decisionlog.EntryMCP, agent, r)); err != nil {
		fmt.Fprintf(s.log, "clada: decision log: %v\n", err)
	}
}

// projectError words an error opening the project's files, with its hint.
func projectError(err error) string {
	var pe *project.Error
	if errors.As(err, &pe) && pe.Hint != "" {
		return fmt.Sprintf("%v (%s)", err, pe.Hint)
	}
	return err.Error()
}

func (s *Server) run(ctx context.Context, req *mcp.CallToolRequest, in runInput) (*mcp.CallToolResult, any, error) {
	caps := req.Session.InitializeParams().Capabilities
	s, why := s.forCall(ctx, req)
	if why != "" {
		return refusedForRoots(why), nil, nil
	}
	wait := s.p.Config.BackgroundAfter
	if wait == 0 {
		wait = approve.DefaultBackgroundAfter
	}
	if in.BackgroundAfter != nil {
		wait = time.Duration(*in.BackgroundAfter * float64(time.Second))
	}
	g, err := s.p.DecideGateway()
	if err != nil {
		return toolError("%s", projectError(err)), nil, nil
	}
	r := g.Check(in.Command, in.Dir)
	r.Source = "<run>"
	plan := &gateway.Plan{Results: []*gateway.Result{r}}

	timeout, maxOutput := s.p.Config.JobTimeout, s.p.Config.JobMaxOutput
	if timeout == 0 {
		timeout = approve.DefaultJobTimeout
	}
	if maxOutput == 0 {
		maxOutput = approve.DefaultJobMaxOutput
	}
	x := s.p.ExecOptions(project.RunOptions{TrustAll: s.o.TrustAll, Timeout: timeout, MaxOutput: maxOutput, Getenv: s.o.Getenv}, s.log)
	x.Sandbox = s.sb
	by := string(r.Rule)
	if r.Decision == gateway.Ask {
		switch {
		case x.TrustAll:
			by = "trust-all"
		case x.NoAsk != "":
		case !canElicit(caps):
			x.NoAsk = noElicitation
		default:
			// Ask before the command starts: background_after counts
			// from its start. gateway.Execute applies the answer as it
			// does the terminal's, always and never included.
			q := approve.Question{Command: parser.Quote(r.Argv), Dir: relDir(g.Root(), r.Dir), Why: r.Why,
				Sandbox: gateway.SandboxPhrase(s.sb, r.Verdict)}
			ans, no := elicit(ctx, req.Session, q, x.ApprovalTimeout)
			x.Asker = answered{ans, no}
			by = ans.String()
		}
	}
	if r.Decision == gateway.Ask && !x.TrustAll && x.Asker == nil {
		// Not approved: say who can approve it and how.
		r.Advice = notApprovedAdvice(r, s.p.Root, x.NoAsk)
	}
	if a, ok := x.Asker.(answered); ok && a.answer != approve.Yes && a.answer != approve.Always {
		r.Advice = declinedAdvice(a.answer)
	}

	opts := report.Options{Budget: s.p.ReportBudget(project.RunOptions{}), CapSetting: "job_max_output"}
	if !willStart(r, x) {
		// Denied, or asked and not approved: nothing runs, so no job is
		// made (a job would say the command runs in the background with
		// background_after 0). Execute still reports it and keeps a
		// "never" answer.
		defer x.Output.Close()
		var f *finished
		g.Execute(ctx, plan, x, func(r *gateway.Result) { f = finish(r, opts); s.logDecision(req, r) })
		if f == nil {
			f = finish(r, opts)
		}
		return &mcp.CallToolResult{IsError: f.failed, Content: []mcp.Content{&mcp.TextContent{Text: f.text}}}, f.block, nil
	}
	view := runningView{result: *r, opts: opts, root: s.p.Root, store: x.Output}
	view.result.ApprovedBy = by
	j, err := s.jobs.start(view, func(ctx context.Context) *finished {
		defer x.Output.Close() // trims the saved history
		var f *finished
		g.Execute(ctx, plan, x, func(r *gateway.Result) { f = finish(r, opts); s.logDecision(req, r) })
		if f == nil { // not executed: cannot happen for a valid plan
			f = finish(r, opts)
		}
		return f
	})
	if err != nil {
		x.Output.Close()
		return toolError("%v (%d at most); wait for a job to end or stop one with the kill tool, then call run again", err, maxRunning), nil, nil
	}

	timer := time.NewTimer(wait)
	defer timer.Stop()
	// A client that sent a progress token hears, every progressEvery,
	// that the command still runs (Codex shows it, and a client may
	// extend its own timeout on it).
	var tick <-chan time.Time
	token := req.Params.GetProgressToken()
	if token != nil {
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		tick = t.C
	}
wait:
	for {
		select {
		case <-j.done:
			break wait
		case <-tick:
			running := time.Since(j.started)
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
				Progress: running.Seconds(), Message: progressMessage(r, running, wait)})
		case <-timer.C:
			if s.jobs.toBackground(j) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: jobText(j, nil)}}}, jobObject(j, nil), nil
			}
			<-j.done
			break wait
		case <-ctx.Done():
			// The client cancelled the call or went away: the command
			// stops with it, as at the terminal with Ctrl-C.
			s.jobs.stop(j, errCanceled)
			break wait
		}
	}
	f := s.jobs.result(j)
	res := &mcp.CallToolResult{IsError: f.failed, Content: []mcp.Content{&mcp.TextContent{Text: f.text}}}
	return res, f.block, nil
}

// progressEvery is how often run reports progress on a command that is
// still running, to a client that asked for it (a progress token).
const progressEvery = time.Second

// progressMessage is a progress notification's text: what runs, for how
// long, and when it becomes a background job.
func progressMessage(r *gateway.Result, running, wait time.Duration) string {
	return fmt.Sprintf("clada: `%s` running for %s; it goes on as a background job after %s",
		r.Command, running.Round(time.Second), wait.Round(100*time.Millisecond))
}

// willStart reports whether Execute will start r's command: it is allowed,
// or asked and approved (by --trust-all or the person's yes or always).
// Only such a command becomes a job.
func willStart(r *gateway.Result, x gateway.ExecOptions) bool {
	switch r.Decision {
	case gateway.Allow:
		return true
	case gateway.Ask:
		if x.TrustAll {
			return true
		}
		a, ok := x.Asker.(answered)
		return ok && (a.answer == approve.Yes || a.answer == approve.Always)
	}
	return false
}

// relDir shows dir relative to root, as the terminal prompt does.
func relDir(root, dir string) string {
	if dir == "" || dir == root {
		return "."
	}
	if rel, ok := strings.CutPrefix(dir, root+string(os.PathSeparator)); ok {
		return filepath.ToSlash(rel) + "/"
	}
	return dir
}

// notApprovedAdvice tells the model that a person must approve the
// command, and how.
func notApprovedAdvice(r *gateway.Result, root string, no approve.NoReason) string {
	allow := gateway.AllowCommand(r.Argv)
	how := fmt.Sprintf("a person must approve it: in a terminal in %s, `%s` (or `clada run` there, which asks), then call run again; ", root, allow)
	if no == noElicitation {
		return how + "or use an MCP client that supports elicitation, where clada asks the person directly"
	}
	return how + "clada mcp does not ask here (" + string(no) + ")"
}

// declinedAdvice tells the model not to insist.
func declinedAdvice(a approve.Answer) string {
	if a == approve.Never {
		return "the person refused it for good (added to blocked); do not run it, find another way or ask the person"
	}
	return "the person did not approve it; do not repeat it unchanged: ask the person, or find another way"
}

func (s *Server) output(ctx context.Context, req *mcp.CallToolRequest, in jobInput) (*mcp.CallToolResult, any, error) {
	j := s.jobs.get(in.Job)
	if j == nil {
		return unknownJob(in.Job), nil, nil
	}
	f := s.jobs.result(j)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: jobText(j, f)}}}, jobObject(j, f), nil
}

func (s *Server) kill(ctx context.Context, req *mcp.CallToolRequest, in jobInput) (*mcp.CallToolResult, any, error) {
	j := s.jobs.get(in.Job)
	if j == nil {
		return unknownJob(in.Job), nil, nil
	}
	f := s.jobs.result(j)
	note := ""
	if f == nil {
		f = s.jobs.stop(j, errKilled)
	} else {
		note = fmt.Sprintf("    job %d had already ended; nothing was killed\n", j.id)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: jobText(j, f) + note}}}, jobObject(j, f), nil
}

func unknownJob(id int) *mcp.CallToolResult {
	return toolError("no job %d: job ids come from run results, and only the newest %d finished jobs are kept", id, keepFinished)
}
