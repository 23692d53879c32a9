package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/parser"
)

// GitHubOptions configure the github format.
type GitHubOptions struct {
	// Workdir is the directory that relative document paths are relative
	// to: clada's working directory.
	Workdir string
	// Repo is the repository's top directory ($GITHUB_WORKSPACE, else the
	// project root): annotations name files relative to it, as GitHub
	// needs to attach them to the code. A document outside it keeps the
	// path it was given. "" keeps every path as given.
	Repo string
	// StepSummary, when not nil, receives a Markdown table of every
	// finding, annotated or not ($GITHUB_STEP_SUMMARY, opened for
	// appending).
	StepSummary io.Writer
}

// MaxAnnotations is how many annotations of one level (error, warning)
// GitHub shows for a step; the rest would be lost silently.
const MaxAnnotations = 10

// finding is one annotation of the github format. They are kept until
// Summary, which knows how many there are of each level.
type finding struct {
	level         string // "error" or "warning"
	source        string // the document as given
	line, col     int
	block         int // the block's [n]; 0 for CSL errors and notes
	title, msg    string
	rule, command string
	text          string // the line as written, for CSL errors and notes
}

// githubBlock keeps the finding of one RUN block, if it has one: a deny,
// an ask in a dry run, an ask that did not run, a command that failed.
func (r *Reporter) githubBlock(b *gateway.Result) {
	f := finding{source: b.Source, line: b.Line, col: b.Col, block: b.Index + 1, rule: string(b.Rule), command: b.Command}
	if b.Argv != nil {
		f.command = quoteArgv(b.Argv)
	}
	if b.WordLine > 0 {
		f.line = b.WordLine
	}
	withAdvice := func(msg, advice string) string {
		if advice != "" {
			return msg + " — " + advice
		}
		return msg
	}
	switch {
	case b.Status == gateway.StatusRan && !b.Run.OK():
		f.level, f.col, f.line = "error", 0, b.Line
		f.title = fmt.Sprintf("clada: [%d] failed", f.block)
		f.msg = fmt.Sprintf("`%s`: %s", f.command, r.statusText(b))
		for _, s := range []struct {
			name string
			path string
		}{{"stdout", b.Stdout.Path()}, {"stderr", b.Stderr.Path()}} {
			if s.path != "" {
				f.msg += fmt.Sprintf("; %s saved in %s", s.name, s.path)
			}
		}
	case b.Status == gateway.StatusRan, b.Status == gateway.StatusSkipped:
		return
	case b.Decision == gateway.Deny:
		f.level, f.title = "error", fmt.Sprintf("clada deny (%s)", b.Rule)
		f.msg = withAdvice(b.Reason, b.Advice)
	case b.Status == gateway.StatusNotApproved:
		lead, advice := notApproved(b)
		f.level, f.title = "warning", fmt.Sprintf("clada ask (%s)", b.Rule)
		f.msg = withAdvice(lead+": "+b.Reason, cmpOr(advice, b.Advice))
	case b.Decision == gateway.Ask:
		f.level, f.title = "warning", fmt.Sprintf("clada ask (%s)", b.Rule)
		f.msg = withAdvice(b.Reason, b.Advice)
	default:
		return
	}
	r.findings = append(r.findings, f)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// quoteArgv is the command as the text report shows it, on one line.
func quoteArgv(argv []string) string {
	return strings.ReplaceAll(parser.Quote(argv), "\n", "⏎")
}

// githubPath is the path an annotation names: relative to the
// repository when the document is inside it, with forward slashes.
func (r *Reporter) githubPath(source string) string {
	if r.gh.Repo == "" || strings.HasPrefix(source, "<") {
		return source
	}
	abs := source
	if !filepath.IsAbs(abs) {
		if r.gh.Workdir == "" {
			return source
		}
		abs = filepath.Join(r.gh.Workdir, source)
	}
	rel, err := filepath.Rel(r.gh.Repo, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return source
	}
	return filepath.ToSlash(rel)
}

// githubSummary writes the annotations, at most MaxAnnotations of each
// level, the last one saying how many more there are; then the summary
// notice; and, when there is a step summary, the table of every finding.
func (r *Reporter) githubSummary(summary string) {
	total := map[string]int{}
	for _, f := range r.findings {
		total[f.level]++
	}
	more := ""
	if r.gh.StepSummary != nil {
		more = "; every finding is in the job summary"
	}
	shown := map[string]int{}
	for _, f := range r.findings {
		n := shown[f.level]
		if n == MaxAnnotations {
			continue
		}
		shown[f.level]++
		msg := f.msg
		if n == MaxAnnotations-1 && total[f.level] > MaxAnnotations {
			rest := total[f.level] - MaxAnnotations
			msg += fmt.Sprintf("\n\n(and %d more %s%s not shown as annotations: GitHub shows %d per step%s)",
				rest, f.level, plural(rest), MaxAnnotations, more)
		}
		col := ""
		if f.col > 0 {
			col = fmt.Sprintf(",col=%d", f.col)
		}
		r.printf("::%s file=%s,line=%d%s,title=%s::%s\n", f.level, ghProp(r.githubPath(f.source)), f.line, col,
			ghProp(f.title), ghData(msg))
	}
	var hidden []string
	for _, level := range []string{"error", "warning"} {
		if n := total[level] - shown[level]; n > 0 {
			hidden = append(hidden, fmt.Sprintf("%d %s%s", n, level, plural(n)))
		}
	}
	notice := summary
	if len(hidden) > 0 {
		notice += " · " + strings.Join(hidden, " and ") + " not shown as annotations" + more
	}
	r.printf("::notice title=clada::%s\n", ghData(notice))
	if r.gh.StepSummary != nil {
		r.stepSummary(summary)
	}
}

// stepSummary appends the Markdown table of every finding to the step
// summary. Its write errors are the caller's to see (the report itself
// is complete without it).
func (r *Reporter) stepSummary(summary string) {
	var b strings.Builder
	fmt.Fprintf(&b, "### clada\n\n%s\n\n", mdText(summary))
	if len(r.findings) == 0 {
		b.WriteString("No findings.\n\n")
	} else {
		b.WriteString("| | where | block | rule | command | finding |\n|---|---|---|---|---|---|\n")
		for _, f := range r.findings {
			block := ""
			if f.block > 0 {
				block = fmt.Sprintf("[%d]", f.block)
			}
			cmd := f.command
			if cmd == "" {
				cmd = f.text
			}
			fmt.Fprintf(&b, "| %s | %s:%d | %s | %s | %s | %s |\n", f.level, mdText(r.githubPath(f.source)), f.line,
				block, mdText(f.rule), mdCode(cmd), mdText(f.msg))
		}
		b.WriteString("\n")
	}
	_, _ = io.WriteString(r.gh.StepSummary, b.String())
}

// mdText escapes text for a Markdown table cell: HTML, pipes and newlines.
// Inside a code span (`…`, as clada's messages quote commands) Markdown
// shows every character as written, so there only the pipe, which ends a
// table cell even inside a code span, is escaped, and a newline, which a
// code span cannot hold, becomes ⏎: `a && b` stays `a && b`, not
// `a &amp;&amp; b`. A backtick without its closing one is text.
func mdText(s string) string {
	s = visible(s)
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('`')
		}
		inCode := i%2 == 1 && i < len(parts)-1
		if inCode {
			mdCodeSpan.WriteString(&b, p)
		} else {
			mdCell.WriteString(&b, p)
		}
	}
	return b.String()
}

var (
	mdCell     = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "\\|", "\r", "", "\n", "<br>")
	mdCodeSpan = strings.NewReplacer("|", "\\|", "\r", "", "\n", "⏎")
)

// mdCode shows a command as code in a table cell.
func mdCode(s string) string {
	if s == "" {
		return ""
	}
	return "<code>" + strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "&#124;", "\r", "", "\n", "⏎").Replace(visible(s)) + "</code>"
}
