package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/output"
	"github.com/clada/clada/internal/report"
	"github.com/clada/clada/internal/runner"
)

// blockText is r as the text report shows it.
func blockText(r *gateway.Result, o report.Options) string {
	var b strings.Builder
	report.New(&b, report.Text, o).Block(r)
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// blockObject is r as a JSON report block line, decoded, so that the
// tools can add their fields (job, status) to the same object.
func blockObject(r *gateway.Result, o report.Options) map[string]any {
	var b bytes.Buffer
	report.New(&b, report.JSON, o).Block(r)
	d := json.NewDecoder(&b)
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		// The report writes what it can encode; this is clada's bug.
		return map[string]any{"type": "block", "error": "clada could not read its own JSON report: " + err.Error()}
	}
	return m
}

// forModel trims a JSON report block for the model, which some clients
// (Codex) show the structured result instead of the text: exec, the
// program's path and clada's hardening arguments (for git, a dozen -c
// options), costs tokens on every result and tells the model nothing it
// can act on; advice, the decision's "what to do instead" (for an asked
// command, "wait for the person to approve"), is stale once the command
// started. type, index, line and source place a block in a CSL reply,
// which a tool call does not have. m is changed and returned.
func forModel(m map[string]any, started bool) map[string]any {
	for _, k := range []string{"exec", "type", "index", "line", "source"} {
		delete(m, k)
	}
	if started {
		delete(m, "advice")
	}
	return m
}

// jobHint tells the model what to do with a job still running, in the
// text and in the structured result.
func jobHint(id int) string {
	return fmt.Sprintf("call the output tool with {\"job\": %d} for more and for its exit status, or the kill tool to stop it", id)
}

// jobStatus is how a command that ran ended, in the words of the output
// tool.
func jobStatus(res *runner.Result) string {
	switch res.Status {
	case runner.StatusTimedOut:
		return statusTimedOut
	case runner.StatusCanceled, runner.StatusTruncated, runner.StatusSignaled:
		return statusKilled
	}
	return statusExited // also a command that could not start
}

// finish renders r, executed, as a job result. It runs inside the
// gateway's emit, before the kept output is released.
func finish(r *gateway.Result, o report.Options) *finished {
	f := &finished{text: blockText(r, o), block: forModel(blockObject(r, o), r.Run != nil), failed: r.Failed(), ended: time.Now()}
	f.status = statusExited
	if r.Run != nil {
		f.status = jobStatus(r.Run)
		if r.Run.Status == runner.StatusExited {
			code := r.Run.ExitCode
			f.exitCode = &code
		}
	}
	return f
}

// runningView is what the tools show of a job whose command is still
// running: the block as decided and approved, and where its output is
// being saved.
type runningView struct {
	result gateway.Result // before it ran; never changed
	opts   report.Options
	root   string        // the project root
	store  *output.Store // the run's saved output; nil in tests
}

// jobText is a job's text report: the block, then the job's status.
func jobText(j *job, f *finished) string {
	var b strings.Builder
	if f != nil {
		b.WriteString(f.text)
		fmt.Fprintf(&b, "    job %d: %s", j.id, f.status)
		if f.exitCode != nil {
			fmt.Fprintf(&b, " with exit code %d", *f.exitCode)
		}
		fmt.Fprintf(&b, " after %s\n", f.ended.Sub(j.started).Round(time.Millisecond))
		return b.String()
	}
	v := &j.running
	r := v.result
	dry := v.opts
	dry.DryRun = true
	b.WriteString(blockText(&r, dry))
	fmt.Fprintf(&b, "    job %d: running for %s in the background · %s\n", j.id,
		time.Since(j.started).Round(time.Second), approvedBy(r.ApprovedBy))
	out, errOut := v.live("stdout"), v.live("stderr")
	if out.bytes == 0 && errOut.bytes == 0 {
		b.WriteString("    no output so far\n")
	}
	for _, l := range []live{out, errOut} {
		if l.bytes > 0 || l.err != nil {
			l.text(&b, v.share())
		}
	}
	b.WriteString("    " + jobHint(j.id) + "\n")
	return b.String()
}

// approvedBy words ApprovedBy as the text report does.
func approvedBy(by string) string {
	switch by {
	case "yes", "always", "prefix":
		return "approved by the person (" + by + ")"
	case "trust-all":
		return "approved by --trust-all"
	}
	return "allowed (" + by + ")"
}

// jobObject is a job's JSON report block with the job's id and status.
func jobObject(j *job, f *finished) map[string]any {
	var m map[string]any
	if f != nil {
		m = copyMap(f.block)
		if f.exitCode != nil {
			m["exit_code"] = *f.exitCode
		}
		m["status"] = f.status
	} else {
		v := &j.running
		r := v.result
		dry := v.opts
		dry.DryRun = true
		m = forModel(blockObject(&r, dry), true)
		m["status"] = statusRunning
		m["hint"] = jobHint(j.id)
		m["approved_by"] = r.ApprovedBy
		m["running_ms"] = time.Since(j.started).Milliseconds()
		for _, l := range []live{v.live("stdout"), v.live("stderr")} {
			text, elided, err := l.json(v.share())
			if l.err == nil {
				l.err = err
			}
			m[l.name] = text
			m[l.name+"_bytes"] = l.bytes
			if l.path != "" {
				m[l.name+"_file"] = l.path
			}
			if elided > 0 {
				m[l.name+"_elided_bytes"] = elided
			}
			if l.err != nil {
				m[l.name+"_save_error"] = l.err.Error()
			}
		}
	}
	m["job"] = j.id
	return m
}

func copyMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m)+2)
	for k, v := range m {
		c[k] = v
	}
	return c
}

// live is a stream of a running command, as saved so far. It is read
// from the saved file: the gateway's stream is written by the command's
// reader and read only once the command has ended.
type live struct {
	name  string
	path  string // relative to the root, slash-separated; "" when nothing is saved yet
	abs   string
	bytes int64
	err   error // the saved file could not be read
}

// share is each stream's half of the report budget.
func (v *runningView) share() output.Budget {
	b := v.opts.Budget
	if b.Bytes <= 0 || b.Lines <= 0 {
		b = output.DefaultBudget
	}
	return output.Budget{Bytes: max(b.Bytes/2, 1), Lines: max(b.Lines/2, 1)}
}

// live finds the saved file of stream name ("stdout" or "stderr"):
// .clada/out/RUN/BLOCK.NAME, as output.Store names it.
func (v *runningView) live(name string) live {
	l := live{name: name}
	if v.store == nil {
		return l
	}
	run := v.store.Run()
	if run == 0 {
		return l // nothing printed yet
	}
	l.path = fmt.Sprintf("%s/%d/%d.%s", output.Dir, run, v.result.Index+1, name)
	l.abs = filepath.Join(v.root, filepath.FromSlash(l.path))
	fi, err := os.Stat(l.abs)
	switch {
	case os.IsNotExist(err):
		l.path, l.abs = "", "" // this stream printed nothing yet
	case err != nil:
		l.err = err
	default:
		l.bytes = fi.Size()
	}
	return l
}

// excerpt is the stream so far within budget: whole (tail nil), or its
// first third and last two thirds of the bytes and lines, whole lines
// where they fit. elided counts the bytes left out between them.
func (l live) excerpt(budget output.Budget) (head, tail []byte, elided int64, err error) {
	if l.bytes == 0 {
		return nil, nil, 0, nil
	}
	f, err := os.Open(l.abs)
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	if l.bytes <= int64(budget.Bytes) {
		data, err := io.ReadAll(io.LimitReader(f, int64(budget.Bytes)))
		if err != nil || bytes.Count(data, []byte{'\n'}) <= budget.Lines {
			return data, nil, 0, err
		}
	}
	hb := budget.Bytes / 3
	head = make([]byte, min(int64(hb), l.bytes))
	n, _ := f.ReadAt(head, 0)
	head = firstLines(head[:n], budget.Lines/3)
	tail = make([]byte, min(int64(budget.Bytes-hb), l.bytes-int64(len(head))))
	n, _ = f.ReadAt(tail, l.bytes-int64(len(tail)))
	tail = lastLines(tail[:n], budget.Lines-budget.Lines/3)
	elided = l.bytes - int64(len(head)) - int64(len(tail))
	return head, tail, elided, nil
}

// marker stands for what an excerpt leaves out, as the report's does.
func (l live) marker(elided int64) string {
	return fmt.Sprintf("… %d bytes left out here; the whole %s so far is in %s: read it with `tail -n 100 %s`",
		elided, l.name, l.path, l.path)
}

// json is the stream so far as JSON's stdout or stderr: the whole
// stream, or head, marker and tail.
func (l live) json(budget output.Budget) (text string, elided int64, err error) {
	head, tail, elided, err := l.excerpt(budget)
	if err != nil || elided == 0 {
		return string(head) + string(tail), 0, err
	}
	var b strings.Builder
	b.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(l.marker(elided) + "\n")
	b.Write(tail)
	return b.String(), elided, nil
}

// firstLines is the whole lines at the start of b, at most n of them; a
// first line longer than b is kept in part.
func firstLines(b []byte, n int) []byte {
	end := 0
	for range n {
		i := bytes.IndexByte(b[end:], '\n')
		if i < 0 {
			break
		}
		end += i + 1
	}
	if end == 0 {
		return b
	}
	return b[:end]
}

// lastLines is the whole lines at the end of b (which starts somewhere
// in the stream), at most n of them; a last line longer than b is kept
// in part.
func lastLines(b []byte, n int) []byte {
	start := len(b)
	if start > 0 && b[start-1] == '\n' {
		start--
	}
	taken := 0
	for taken < n {
		i := bytes.LastIndexByte(b[:start], '\n')
		if i < 0 {
			break
		}
		start = i
		taken++
	}
	if taken == 0 {
		return b
	}
	return b[start+1:]
}

// text writes the stream so far in the text report's framing: fenced
// output (a fence of backticks no line of it starts with), and the
// marker between head and tail.
func (l live) text(b *strings.Builder, budget output.Budget) {
	head, tail, elided, err := l.excerpt(budget)
	if err == nil {
		err = l.err
	}
	if err != nil {
		fmt.Fprintf(b, "    %s: %s could not be read: %v\n", l.name, l.path, err)
		return
	}
	fmt.Fprintf(b, "    %s so far: %d bytes, saved in %s\n", l.name, l.bytes, l.path)
	fence := fenceFor(string(head) + "\n" + string(tail))
	fenced := func(data []byte) {
		b.WriteString(fence + l.name + "\n" + visible(string(data)))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
		b.WriteString(fence + "\n")
	}
	if len(head) > 0 || elided == 0 {
		fenced(head)
	}
	if elided > 0 {
		b.WriteString("    " + visible(l.marker(elided)) + "\n")
		if len(tail) > 0 {
			fenced(tail)
		}
	}
}

// fenceFor returns three backticks, or one more than the longest run of
// backticks that starts a line of text, as the text report fences output.
func fenceFor(text string) string {
	longest := 0
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimLeft(line, " \t")
		n := len(line) - len(strings.TrimLeft(line, "`"))
		longest = max(longest, n)
	}
	return strings.Repeat("`", max(3, longest+1))
}

// visible shows control, bidi and zero-width characters and bytes that
// are not UTF-8 as escapes, as the text report does, so that command
// output cannot act on the terminal of a person reading the result.
func visible(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		c, size := utf8.DecodeRuneInString(s)
		switch {
		case c == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "\\x%02x", s[0])
		case c == '\n' || c == '\t':
			b.WriteRune(c)
		case c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || unicode.In(c, unicode.Cf, unicode.Zl, unicode.Zp):
			q := strconv.QuoteRune(c)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(c)
		}
		s = s[size:]
	}
	return b.String()
}
