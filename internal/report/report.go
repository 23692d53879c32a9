package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/output"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/runner"
)

// Format is an output format (docs/report.md).
type Format string

// The formats.
const (
	Text   Format = "text"
	JSON   Format = "json"
	GitHub Format = "github"
)

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Text, JSON, GitHub:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q: use text, json or github", s)
}

// Options configure a [Reporter]. The zero value reports a run with the
// default budgets.
type Options struct {
	// DryRun words the report for a run that executes nothing (dry-run
	// and check).
	DryRun bool
	// Budget is how much of each block's output is shown, stdout and
	// stderr together; a zero field means that of output.DefaultBudget.
	Budget output.Budget
	// DocBudget is how many bytes of output the whole report shows, over
	// all blocks; zero means DefaultDocBudget, or Budget.Bytes when that
	// is larger.
	DocBudget int
	// Base is where RUN blocks without a dir attribute run, relative to
	// the project root with forward slashes ("" for the root): the report
	// names saved files the way such a block reads them
	// (../.clada/out/3/1.stdout from sub/). JSON's stdout_file and
	// stderr_file stay relative to the root.
	Base string
	// CapSetting is the config.toml key of the output cap, named when a
	// command is killed at the cap; "" is max_output (clada mcp's
	// commands have job_max_output).
	CapSetting string
	// GitHub holds what only the github format uses.
	GitHub GitHubOptions
}

// Reporter writes one report. It is not safe for concurrent use.
type Reporter struct {
	w         io.Writer
	format    Format
	dryRun    bool
	budget    output.Budget
	docBudget int
	docLeft   int // bytes of output the rest of the report may show
	base      string
	capSet    string
	gh        GitHubOptions
	findings  []finding // github: annotations, written by Summary
	err       error
	buf       []byte // reused for each text block
}

// New returns a Reporter writing format to w.
func New(w io.Writer, format Format, o Options) *Reporter {
	r := &Reporter{w: w, format: format, dryRun: o.DryRun, budget: o.Budget, docBudget: o.DocBudget,
		base: strings.Trim(o.Base, "/"), capSet: o.CapSetting, gh: o.GitHub}
	if r.capSet == "" {
		r.capSet = "max_output"
	}
	if r.budget.Bytes <= 0 {
		r.budget.Bytes = output.DefaultBudget.Bytes
	}
	if r.budget.Lines <= 0 {
		r.budget.Lines = output.DefaultBudget.Lines
	}
	if r.docBudget <= 0 {
		r.docBudget = max(DefaultDocBudget, r.budget.Bytes)
	}
	r.docLeft = r.docBudget
	return r
}

// raise says how to raise the output cap.
func (r *Reporter) raise() string {
	if r.capSet == "max_output" {
		return "--max-output or max_output"
	}
	return r.capSet
}

// Err returns the first write error.
func (r *Reporter) Err() error { return r.err }

func (r *Reporter) printf(format string, a ...any) {
	if r.err == nil {
		_, r.err = fmt.Fprintf(r.w, format, a...)
	}
}

// Block reports one RUN block.
func (r *Reporter) Block(b *gateway.Result) {
	switch r.format {
	case JSON:
		r.json(r.blockJSON(b))
	case GitHub:
		r.githubBlock(b)
	default:
		r.textBlock(b)
	}
}

// blockSyntax is how to write a RUN block, shown with CSL errors and
// notes.
const blockSyntax = "write each command as a RUN block, each marker alone at column 1: a line `<---RUN--->`, the command, a line `<---END--->`"

// errorOut is a CSL error or a note in the JSON report.
type errorOut struct {
	Type    string `json:"type"`
	Source  string `json:"source"`
	Line    int    `json:"line"`
	Text    string `json:"text,omitempty"`
	Message string `json:"message"`
	Advice  string `json:"advice"`
}

// Errors reports the fatal CSL errors of a plan, and the block errors of
// WRITE and SEARCH blocks: where, the line as written, what is wrong and
// how to write it.
func (r *Reporter) Errors(errs []*parser.Error) {
	const advice = "fix it: while any document has a CSL error nothing in the reply runs; " + blockSyntax
	for _, e := range errs {
		switch r.format {
		case JSON:
			r.json(errorOut{Type: "error", Source: e.Source, Line: e.Line, Text: e.Text, Message: e.Msg, Advice: advice})
		case GitHub:
			r.findings = append(r.findings, finding{level: "error", source: e.Source, line: e.Line,
				title: "clada: CSL error", msg: e.Msg, rule: string(rules.CSLSyntax), text: e.Text})
		default:
			r.printf("%s\n", visible(e.Error()))
			if e.Text != "" {
				r.printf("    %d | %s\n", e.Line, visible(e.Text))
			}
		}
	}
	if len(errs) > 0 && r.format == Text {
		r.printf("  nothing in the reply runs until this is fixed; %s.\n\n", blockSyntax)
	}
}

// Notes reports, on the report's own stream, what a model must see even
// though it stops nothing: lines that look like commands in documents
// with no RUN block (so nothing of them ran), and lines that look like
// a RUN block but are not (docs/csl.md §7 warnings).
func (r *Reporter) Notes(p *gateway.Plan) {
	notes := append(append([]*parser.Error{}, p.Warnings...), p.Hints...)
	if len(notes) == 0 {
		return
	}
	switch r.format {
	case JSON:
		for _, n := range notes {
			r.json(errorOut{Type: "note", Source: n.Source, Line: n.Line, Text: n.Text, Message: r.noteMessage(p, n), Advice: blockSyntax})
		}
		return
	case GitHub:
		for _, n := range notes {
			r.findings = append(r.findings, finding{level: "warning", source: n.Source, line: n.Line,
				title: "clada: not a RUN block", msg: r.noteMessage(p, n) + " — " + blockSyntax, text: n.Text})
		}
		return
	}
	for _, w := range p.Warnings {
		r.printf("note: %s\n", visible(w.Error()))
		if w.Text != "" {
			r.printf("    %d | %s\n", w.Line, visible(w.Text))
		}
	}
	source := ""
	for _, h := range p.Hints {
		if h.Source != source {
			source = h.Source
			r.printf("note: %s has no RUN block, so nothing in it ran; these lines look like commands:\n", visible(source))
		}
		r.printf("    %d | %s   (%s)\n", h.Line, visible(h.Text), visible(h.Msg))
	}
	r.printf("  %s, e.g.\n    <---RUN--->\n    ls -la\n    <---END--->\n\n", blockSyntax)
}

// noteMessage is the message of a note in JSON and GitHub annotations.
func (r *Reporter) noteMessage(p *gateway.Plan, n *parser.Error) string {
	for _, h := range p.Hints {
		if h == n {
			return n.Source + " has no RUN block, so nothing in it ran: " + n.Msg
		}
	}
	return n.Msg
}

// Summary is the counts of a run.
type Summary struct {
	Blocks      int `json:"blocks"`
	Allow       int `json:"allow"`
	Ask         int `json:"ask"`
	Deny        int `json:"deny"`
	Ran         int `json:"ran"`
	OK          int `json:"ok"`
	Failed      int `json:"failed"`
	Denied      int `json:"denied"`
	NotApproved int `json:"not_approved"` // asked and not approved, declined ones included
	Declined    int `json:"declined"`     // the person answered no or never
	Skipped     int `json:"skipped"`
	WriteSearch int `json:"write_search_skipped"`
	Errors      int `json:"errors"` // CSL errors: fatal ones and RUN blocks with block errors
	Notes       int `json:"notes"`  // lines that look like commands or blocks but are not (see Reporter.Notes)
}

// Summarize counts a plan's results.
func Summarize(p *gateway.Plan) Summary {
	s := Summary{Blocks: len(p.Results), WriteSearch: p.Skipped, Errors: len(p.Errors), Notes: len(p.Warnings) + len(p.Hints)}
	for _, b := range p.Results {
		if b.Rule == rules.CSLSyntax {
			s.Errors++
		}
		switch b.Decision {
		case gateway.Allow:
			s.Allow++
		case gateway.Ask:
			s.Ask++
		case gateway.Deny:
			s.Deny++
		}
		switch b.Status {
		case gateway.StatusRan:
			s.Ran++
			if b.Run.OK() {
				s.OK++
			} else {
				s.Failed++
			}
		case gateway.StatusDenied:
			s.Denied++
		case gateway.StatusNotApproved:
			s.NotApproved++
			if declined(b) {
				s.Declined++
			}
		case gateway.StatusSkipped:
			s.Skipped++
		}
	}
	return s
}

// declined reports whether the person at the prompt answered no or never.
func declined(b *gateway.Result) bool {
	return b.Status == gateway.StatusNotApproved &&
		(b.NotApproved == string(approve.NoAnswered) || b.NotApproved == "answered never")
}

// notApproved words what happened to a block that was asked about and
// did not run, and, when the verdict's advice no longer fits, what to do
// instead ("" keeps the verdict's advice).
func notApproved(b *gateway.Result) (lead, advice string) {
	const dontResend = "the person decided; do not send this command again unchanged: do without it, or explain why it is needed and let the person run it or approve it"
	switch why := b.NotApproved; {
	case why == string(approve.NoAnswered):
		return "not run: declined by the person (answered no)", dontResend
	case why == "answered never":
		lead = "not run: declined by the person (answered never"
		if b.Wrote != "" {
			lead += "; added to blocked in " + b.Wrote
		}
		return lead + ")", dontResend
	case why == string(approve.NoTimeout):
		return "not run: nobody answered the question at the prompt before it timed out (that counts as no)", ""
	case why == string(approve.NoEOF):
		return "not run: the prompt's input ended without an answer (that counts as no)", ""
	case why == string(approve.NoInterrupted):
		return "not run: clada was interrupted at the prompt", ""
	case why == string(approve.NoTTY):
		return "not run: needs approval (no terminal to ask on)", ""
	case strings.HasPrefix(why, "prompt failed: "):
		return "not run: asking failed (" + strings.TrimPrefix(why, "prompt failed: ") + ")", ""
	}
	return "not run: needs approval (" + b.NotApproved + ")", ""
}

// Summary writes the last line of the report.
func (r *Reporter) Summary(s Summary, exitCode int) {
	switch r.format {
	case JSON:
		r.json(struct {
			Type string `json:"type"`
			Summary
			DryRun   bool `json:"dry_run"`
			ExitCode int  `json:"exit_code"`
		}{"summary", s, r.dryRun, exitCode})
	case GitHub:
		r.githubSummary(r.summaryText(s))
	default:
		r.printf("%s\n", r.summaryText(s))
	}
}

func (r *Reporter) summaryText(s Summary) string {
	var parts []string
	switch {
	case s.Blocks == 0 && s.Errors == 0 && r.dryRun:
		parts = append(parts, "dry run, no RUN block")
	case s.Blocks == 0 && s.Errors == 0:
		parts = append(parts, "no RUN block: nothing ran")
	case r.dryRun:
		parts = append(parts, fmt.Sprintf("dry run, %d RUN block%s: %d allow · %d ask · %d deny", s.Blocks, plural(s.Blocks), s.Allow, s.Ask, s.Deny))
	default:
		parts = append(parts, fmt.Sprintf("%d ran: %d ok, %d failed", s.Ran, s.OK, s.Failed),
			fmt.Sprintf("%d denied", s.Denied))
		if s.Declined > 0 {
			parts = append(parts, fmt.Sprintf("%d declined by the person", s.Declined))
		}
		parts = append(parts, fmt.Sprintf("%d needs approval", s.NotApproved-s.Declined),
			fmt.Sprintf("%d skipped", s.Skipped))
	}
	if s.WriteSearch > 0 {
		parts = append(parts, fmt.Sprintf("%d WRITE/SEARCH block%s skipped (clada run does not apply them)", s.WriteSearch, plural(s.WriteSearch)))
	}
	if s.Errors > 0 {
		parts = append(parts, fmt.Sprintf("%d CSL error%s: nothing ran", s.Errors, plural(s.Errors)))
	}
	return "summary: " + strings.Join(parts, " · ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (r *Reporter) json(v any) {
	if r.err != nil {
		return
	}
	// The encoder writes one line per value; HTML escaping would only
	// make commands like `a < b` harder to read.
	enc := json.NewEncoder(r.w)
	enc.SetEscapeHTML(false)
	r.err = enc.Encode(v)
}

type blockOut struct {
	Type        string   `json:"type"`
	Index       int      `json:"index"`
	Source      string   `json:"source"`
	Line        int      `json:"line"`
	Group       int      `json:"group,omitempty"`
	Command     string   `json:"command"`
	Argv        []string `json:"argv"`
	Exec        []string `json:"exec"`
	Dir         string   `json:"dir"`
	Decision    string   `json:"decision"`
	Rule        string   `json:"rule"`
	Word        string   `json:"word,omitempty"`
	WordLine    int      `json:"word_line,omitempty"`
	Col         int      `json:"col,omitempty"`
	Reason      string   `json:"reason"`
	Advice      string   `json:"advice,omitempty"`
	Status      string   `json:"status"`
	NotApproved string   `json:"not_approved,omitempty"`
	Declined    bool     `json:"declined,omitempty"`
	Skip        string   `json:"skipped_because,omitempty"`
	ApprovedBy  string   `json:"approved_by,omitempty"`
	Missing     string   `json:"missing,omitempty"` // the program is not installed here (gateway.Verdict.Missing)
	Wrote       string   `json:"wrote,omitempty"`
	// Parts are a composition's parts.
	Parts []partOut `json:"parts,omitempty"`
	// Set when the command ran.
	Outcome    string `json:"outcome,omitempty"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	Signal     string `json:"signal,omitempty"`
	*streamOut        // stdout_*, stderr_*
	Elided     *bool  `json:"elided,omitempty"`
	Truncated  *bool  `json:"truncated,omitempty"`
	MaxOutput  int64  `json:"max_output,omitempty"`
	Dropped    int64  `json:"dropped_bytes,omitempty"`
	TimedOut   *bool  `json:"timed_out,omitempty"`
	DurationMS *int64 `json:"duration_ms,omitempty"`
	Error      string `json:"error,omitempty"`
	// How the sandbox ran it: "confined: landlock v7 + seccomp, network
	// off" or "unconfined: kernel has no Landlock"; what it changed in
	// .git and .clada; whether the sandbox may be why it failed.
	Confinement string   `json:"confinement,omitempty"`
	Integrity   []string `json:"integrity,omitempty"`
	SandboxHint string   `json:"sandbox_hint,omitempty"`
	// NetworkRefused are the destinations (host:port) clada's proxy
	// refused the command.
	NetworkRefused []string `json:"network_refused,omitempty"`
	// NetworkAsked are the questions the person was asked at the
	// terminal about hosts while the command ran, "host:port answer".
	NetworkAsked []string `json:"network_asked,omitempty"`
	// NetworkNever are those of NetworkRefused refused because the
	// person answered never for them with the command's pattern.
	NetworkNever []string `json:"network_never,omitempty"`
}

// streamOut is the output of a block that ran: the shown text of each
// stream, where it is saved, and its full size.
type streamOut struct {
	Stdout            string `json:"stdout"`
	StdoutFile        string `json:"stdout_file,omitempty"`
	StdoutBytes       int64  `json:"stdout_bytes"`
	StdoutLines       int64  `json:"stdout_lines"`
	StdoutElidedBytes int64  `json:"stdout_elided_bytes,omitempty"`
	StdoutElidedLines int64  `json:"stdout_elided_lines,omitempty"`
	StdoutSaveError   string `json:"stdout_save_error,omitempty"`
	Stderr            string `json:"stderr"`
	StderrFile        string `json:"stderr_file,omitempty"`
	StderrBytes       int64  `json:"stderr_bytes"`
	StderrLines       int64  `json:"stderr_lines"`
	StderrElidedBytes int64  `json:"stderr_elided_bytes,omitempty"`
	StderrElidedLines int64  `json:"stderr_elided_lines,omitempty"`
	StderrSaveError   string `json:"stderr_save_error,omitempty"`
}

// streamJSON is one stream's part of a streamOut.
type streamJSON struct {
	text, file, saveErr          string
	bytes, lines, eBytes, eLines int64
	elided                       bool
}

func (r *Reporter) streamJSON(sh shown) streamJSON {
	if sh.empty() {
		return streamJSON{}
	}
	j := streamJSON{text: r.jsonText(sh), file: sh.s.Path(), bytes: sh.s.Bytes(), lines: sh.s.Lines()}
	if err := sh.s.Err(); err != nil {
		j.saveErr = err.Error()
	}
	if !sh.e.Whole {
		j.eBytes, j.eLines, j.elided = sh.e.OmittedBytes, sh.e.OmittedLines, true
	}
	return j
}

func (r *Reporter) blockJSON(b *gateway.Result) blockOut {
	o := blockOut{Type: "block", Index: b.Index + 1, Source: b.Source, Line: b.Line, Group: b.Group,
		Command: b.Command, Argv: b.Argv, Exec: b.Exec, Dir: dirAttr(b), Decision: string(b.Decision),
		Rule: string(b.Rule), Word: b.Word, WordLine: b.WordLine, Col: b.Col, Reason: b.Reason, Advice: b.Advice,
		Status: string(b.Status), NotApproved: b.NotApproved, Declined: declined(b), Skip: b.Skip, ApprovedBy: b.ApprovedBy, Wrote: b.Wrote,
		Missing: b.Missing, Parts: partsJSON(b)}
	if o.Argv == nil {
		o.Argv = []string{}
	}
	if o.Exec == nil {
		o.Exec = []string{}
	}
	if res := b.Run; res != nil {
		ms := res.Duration.Milliseconds()
		o.Outcome = res.Status.String()
		if res.Status == runner.StatusExited {
			o.ExitCode = &res.ExitCode
		}
		o.Signal = res.Signal
		stdout, stderr := r.excerpts(b)
		so, se := r.streamJSON(stdout), r.streamJSON(stderr)
		o.streamOut = &streamOut{
			Stdout: so.text, StdoutFile: so.file, StdoutBytes: so.bytes, StdoutLines: so.lines,
			StdoutElidedBytes: so.eBytes, StdoutElidedLines: so.eLines, StdoutSaveError: so.saveErr,
			Stderr: se.text, StderrFile: se.file, StderrBytes: se.bytes, StderrLines: se.lines,
			StderrElidedBytes: se.eBytes, StderrElidedLines: se.eLines, StderrSaveError: se.saveErr,
		}
		elided := so.elided || se.elided
		o.Elided = &elided
		o.Truncated, o.TimedOut = &res.Truncated, &res.TimedOut
		if res.Truncated {
			o.MaxOutput = res.MaxOutput
		}
		o.Dropped = res.Dropped
		o.DurationMS = &ms
		if res.Err != nil {
			o.Error = res.Err.Error()
		}
		o.Confinement, o.SandboxHint = b.Confinement.Text, b.Confinement.Hint
		o.NetworkRefused = b.Confinement.Refused
		o.NetworkAsked = b.Confinement.Asked
		o.NetworkNever = b.Confinement.Never
		for _, c := range b.Confinement.Changes {
			o.Integrity = append(o.Integrity, c.String())
		}
	}
	return o
}

// partOut is one part of a composition in the JSON report.
type partOut struct {
	Command  string   `json:"command"`
	Argv     []string `json:"argv"`
	Dir      string   `json:"dir"`
	Decision string   `json:"decision"`
	Rule     string   `json:"rule"`
	Word     string   `json:"word,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Decides  bool     `json:"decides,omitempty"`
	Status   string   `json:"status,omitempty"` // ran, skipped, not-run, refused
	ExitCode *int     `json:"exit_code,omitempty"`
	Signal   string   `json:"signal,omitempty"`
}

func partsJSON(b *gateway.Result) []partOut {
	c := b.Composite
	if c == nil {
		return nil
	}
	out := make([]partOut, len(c.Parts))
	for i, p := range c.Parts {
		o := partOut{Command: p.Text, Argv: p.Argv, Dir: p.DirAttr, Decision: string(p.Decision), Rule: string(p.Rule),
			Word: p.Word, Reason: p.Reason, Decides: i == c.Decider}
		if o.Dir == "" {
			o.Dir = "."
		}
		if o.Argv == nil {
			o.Argv = []string{}
		}
		if i < len(b.Parts) {
			pr := b.Parts[i]
			o.Status = string(pr.Status)
			if pr.Status == gateway.PartRan && pr.Result.Status == runner.StatusExited {
				code := pr.Result.ExitCode
				o.ExitCode = &code
			}
			o.Signal = pr.Result.Signal
		}
		out[i] = o
	}
	return out
}

// dirAttr is the block's directory as the model wrote it ("." for the
// project root).
func dirAttr(b *gateway.Result) string {
	if b.DirAttr == "" {
		return "."
	}
	return b.DirAttr
}

func (r *Reporter) textBlock(b *gateway.Result) {
	cmd := b.Command
	if b.Argv != nil {
		cmd = parser.Quote(b.Argv)
	}
	if strings.Contains(cmd, "\n") {
		cmd = strings.ReplaceAll(cmd, "\n", "\n      ")
	}
	// The text report of a dry run over a long transcript is tens of
	// thousands of lines: build each block in one buffer, no fmt.
	buf := append(r.buf[:0], '[')
	buf = strconv.AppendInt(buf, int64(b.Index+1), 10)
	buf = append(buf, "] "...)
	buf = append(buf, b.Source...)
	buf = append(buf, ':')
	buf = strconv.AppendInt(buf, int64(b.Line), 10)
	if b.DirAttr != "" {
		buf = append(buf, " (in "...)
		buf = append(buf, visible(b.DirAttr)...)
		buf = append(buf, ')')
	}
	buf = append(buf, "\n    $ "...)
	buf = append(buf, visible(cmd)...)
	buf = append(buf, '\n')
	if b.Group > 0 {
		buf = append(buf, "    in TASKS group "...)
		buf = strconv.AppendInt(buf, int64(b.Group), 10)
		buf = append(buf, '\n')
	}
	// line appends "    LEAD (rule RULE) `WORD` at L:C: REASON\n".
	line := func(buf []byte, lead string) []byte {
		buf = append(buf, "    "...)
		buf = append(buf, lead...)
		buf = append(buf, " (rule "...)
		buf = append(buf, b.Rule...)
		buf = append(buf, ')')
		if b.Word != "" {
			buf = append(buf, " `"...)
			buf = append(buf, visible(oneLine(b.Word))...)
			buf = append(buf, '`')
			if b.WordLine > 0 {
				buf = append(buf, " at "...)
				buf = strconv.AppendInt(buf, int64(b.WordLine), 10)
				buf = append(buf, ':')
				buf = strconv.AppendInt(buf, int64(b.Col), 10)
			}
		}
		buf = append(buf, ": "...)
		buf = append(buf, visible(b.Reason)...)
		return append(buf, '\n')
	}
	doInstead := func(buf []byte) []byte {
		if b.Advice == "" {
			return buf
		}
		buf = append(buf, "    do instead: "...)
		buf = append(buf, visible(b.Advice)...)
		return append(buf, '\n')
	}
	switch b.Status {
	case gateway.StatusPlanned:
		buf = line(buf, string(b.Decision))
		if b.Decision != gateway.Allow {
			buf = doInstead(buf)
		}
		if b.Missing != "" && b.Decision != gateway.Deny {
			// A fact about this machine, not part of the decision.
			buf = append(buf, "    note: "...)
			buf = append(buf, visible(b.Missing)...)
			buf = append(buf, "; running it here reports exit 127\n"...)
		}
	case gateway.StatusDenied:
		buf = doInstead(line(buf, "denied, not run"))
	case gateway.StatusNotApproved:
		lead, advice := notApproved(b)
		buf = line(buf, lead)
		if advice != "" {
			buf = append(buf, "    do instead: "...)
			buf = append(buf, visible(advice)...)
			buf = append(buf, '\n')
		} else {
			buf = doInstead(buf)
		}
	case gateway.StatusSkipped:
		buf = append(buf, "    skipped: "...)
		buf = append(buf, b.Skip...)
		buf = append(buf, '\n')
	}
	r.write(buf)
	r.buf = buf
	r.textParts(b)
	if b.Status == gateway.StatusRan {
		r.textRun(b)
	}
	r.printf("\n")
}

// textParts lists a composition's parts, each with its decision and,
// once it ran, how it ended; the part that decides is marked.
func (r *Reporter) textParts(b *gateway.Result) {
	c := b.Composite
	if c == nil || len(c.Parts) < 2 && b.Parts == nil {
		return
	}
	for i, p := range c.Parts {
		mark := ""
		if i == c.Decider {
			mark = " ← decides"
		}
		rule := ""
		if p.Decision != gateway.Allow || p.Rule != "" {
			rule = " (rule " + string(p.Rule) + ")"
		}
		ran := ""
		if i < len(b.Parts) {
			ran = " · " + partStatus(b.Parts[i])
		}
		r.printf("    %s: %s%s%s%s\n", visible(p.Label(i)), p.Decision, rule, ran, mark)
	}
}

// partStatus says how one part of a composition ran.
func partStatus(p gateway.PartRun) string {
	switch p.Status {
	case gateway.PartRan:
		if p.Result.Status == runner.StatusExited {
			return fmt.Sprintf("exit %d", p.Result.ExitCode)
		}
		if p.Result.Signal != "" {
			return p.Result.Status.String() + " (" + p.Result.Signal + ")"
		}
		return p.Result.Status.String()
	case gateway.PartRefused:
		return "not run: " + p.Refused.Reason
	}
	return string(p.Status)
}

// statusText says how a command that ran ended, and who let it run:
// "exit 1 · 12 ms · allowed (spec)".
func (r *Reporter) statusText(b *gateway.Result) string {
	res := b.Run
	by := "allowed (" + b.ApprovedBy + ")"
	switch b.ApprovedBy {
	case "yes", "always", "prefix":
		by = "approved by the person (" + b.ApprovedBy + ")"
	case "trust-all":
		by = "approved by --trust-all"
	case gateway.ApprovedNotInstalled:
		by = "not run, nobody asked (rule " + string(b.Rule) + "): " + visible(b.Reason)
	}
	dur := res.Duration.Round(time.Millisecond).Milliseconds()
	switch res.Status {
	case runner.StatusExited:
		return fmt.Sprintf("exit %d · %d ms · %s", res.ExitCode, dur, by)
	case runner.StatusStartFailed:
		return fmt.Sprintf("could not start: %v · %s", res.Err, by)
	case runner.StatusTimedOut:
		return fmt.Sprintf("timed out after %d ms and was killed with its child processes · %s", dur, by)
	case runner.StatusSignaled:
		return fmt.Sprintf("killed by %s · %d ms · %s", res.Signal, dur, by)
	case runner.StatusCanceled:
		// Ctrl-C cancels without a cause of its own; clada mcp's kill
		// tool and shutdown give one, which says who stopped it.
		why := "interrupted (Ctrl-C)"
		if res.Err != nil && !errors.Is(res.Err, context.Canceled) {
			why = "stopped (" + res.Err.Error() + ")"
		}
		return fmt.Sprintf("%s after %d ms and killed with its child processes · %s", why, dur, by)
	case runner.StatusTruncated:
		return fmt.Sprintf("killed at the output cap: it printed more than %s (%s) and was stopped after %d ms · %s",
			sizeText(res.MaxOutput), r.capSet, dur, by)
	}
	return fmt.Sprintf("%s · %d ms · %s", res.Status, dur, by)
}

func (r *Reporter) textRun(b *gateway.Result) {
	res := b.Run
	r.printf("    %s\n", r.statusText(b))
	if c := b.Confinement; c.Text != "" {
		r.printf("    %s\n", c.Text)
	}
	for _, c := range b.Confinement.Changes {
		r.printf("    WARNING: %s\n", visible(c.String()))
	}
	stdout, stderr := r.excerpts(b)
	switch {
	case stdout.empty() && stderr.empty():
		r.printf("    no output\n")
	case stderr.empty():
		r.textStream(stdout)
		r.printf("    stderr: (empty)\n")
	case stdout.empty():
		r.printf("    stdout: (empty)\n")
		r.textStream(stderr)
	default:
		r.textStream(stdout)
		r.textStream(stderr)
	}
	if res.Truncated {
		r.printf("    the first %s were kept and %s read past the cap were dropped; to keep more, raise %s in .clada/config.toml\n",
			sizeText(res.MaxOutput), count(res.Dropped, "byte"), r.raise())
	}
	if h := b.Confinement.Hint; h != "" {
		r.printf("    sandbox: %s\n", h)
	}
	if asked := b.Confinement.Asked; len(asked) > 0 {
		answers := make([]string, len(asked))
		for i, a := range asked {
			dest, ans, _ := strings.Cut(a, " ")
			answers[i] = dest + " (" + ans + ")"
		}
		r.printf("    network: the person was asked while it ran whether it may reach %s\n", strings.Join(answers, ", "))
	}
	refused := b.Confinement.Refused
	if never := b.Confinement.Never; len(never) > 0 {
		r.printf("    network: clada's proxy refused %s: the person answered never for it with this command's pattern ([[network]] deny in .clada/commands.toml). Do not try to work around it; only the person can take it out\n",
			strings.Join(never, ", "))
		refused = slices.DeleteFunc(slices.Clone(refused), func(d string) bool { return slices.Contains(never, d) })
	}
	if len(refused) > 0 {
		r.printf("    network: clada's proxy refused %s: the command may reach only the hosts granted to it. Do not try to work around it; if the host is needed, the person adds it to hosts = [...] in .clada/config.toml\n",
			strings.Join(refused, ", "))
	}
}

var newline = []byte("\n")

func (r *Reporter) write(b []byte) {
	if r.err == nil {
		_, r.err = r.w.Write(b)
	}
}

// visible shows control, bidi and zero-width characters of text the model
// wrote as escapes, so a denied command can't move the cursor or clear
// the screen of the person reading the report. Newlines and tabs stay.
func visible(s string) string {
	if !hasHidden(s) {
		return s
	}
	var b []byte
	for _, c := range s {
		b = appendVisible(b, c)
	}
	return string(b)
}

// appendVisible appends c, escaped as Go would quote it (\x1b, \r,
// \u202e) when it is hidden.
func appendVisible(b []byte, c rune) []byte {
	if !isHidden(c) {
		return utf8.AppendRune(b, c)
	}
	q := strconv.AppendQuoteRune(b, c) // b + 'ESCAPE'
	// Drop the quotes around the escape.
	esc := q[len(b)+1 : len(q)-1]
	return append(b, esc...)
}

const hexDigits = "0123456789abcdef"

// writeVisible writes captured output escaped like visible, in bounded
// chunks: a line of output may be as large as max_output, and escaping
// must not hold copies of it.
func (r *Reporter) writeVisible(line []byte) {
	buf := r.buf[:0]
	for len(line) > 0 && r.err == nil {
		c, size := utf8.DecodeRune(line)
		if c == utf8.RuneError && size == 1 {
			// A byte that is not UTF-8 is shown as \xNN.
			buf = append(buf, '\\', 'x', hexDigits[line[0]>>4], hexDigits[line[0]&15])
		} else {
			buf = appendVisible(buf, c)
		}
		line = line[size:]
		if len(buf) >= 32<<10 {
			r.write(buf)
			buf = buf[:0]
		}
	}
	r.write(buf)
	r.buf = buf
}

// hasHidden reports whether s has a rune isHidden reports, with a fast
// path for printable ASCII, which nearly every report line is.
func hasHidden(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			for _, r := range s[i:] {
				if isHidden(r) {
					return true
				}
			}
			return false
		}
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return true
		}
	}
	return false
}

// hasHiddenBytes is hasHidden for captured output, without copying it
// for the common printable-ASCII line.
func hasHiddenBytes(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if (r == utf8.RuneError && size == 1) || isHidden(r) {
			// Invalid UTF-8 too: a raw 0x9b is CSI on terminals that
			// take 8-bit controls.
			return true
		}
		i += size
	}
	return false
}

func isHidden(c rune) bool {
	switch {
	case c == '\n' || c == '\t':
		return false
	case c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f):
		return true
	}
	return unicode.In(c, unicode.Cf, unicode.Zl, unicode.Zp)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if len(s) > 80 {
		s = s[:77] + "…"
	}
	return s
}

// ghData escapes an annotation message as GitHub's toolkit does.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProp escapes an annotation property.
func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
