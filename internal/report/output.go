package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/output"
)

// DefaultDocBudget is how many bytes of command output one report shows
// in all, over every block, when [Options.DocBudget] is zero.
const DefaultDocBudget = 64 << 10

// shown is what a report shows of one stream of a block that ran.
type shown struct {
	name   string
	s      *output.Stream // nil: the stream is empty
	e      output.Excerpt
	capped bool // the command was killed at the output cap: the stream is whole only up to it
	// docLimited reports that what is left of the document budget was
	// less than the block budget.
	docLimited bool
}

func (sh shown) empty() bool { return sh.s == nil || sh.s.Bytes() == 0 }

// excerpts takes the block's share of the report budget and picks what
// is shown of each stream: the block budget, or what is left of the
// document budget when that is less, split between stdout and stderr.
func (r *Reporter) excerpts(b *gateway.Result) (stdout, stderr shown) {
	capped := b.Run != nil && b.Run.Truncated
	stdout = shown{name: "stdout", s: b.Stdout, capped: capped}
	stderr = shown{name: "stderr", s: b.Stderr, capped: capped}
	bb, bl := r.budget.Bytes, r.budget.Lines
	if r.docLeft < bb {
		bl = int(int64(bl) * int64(r.docLeft) / int64(bb))
		bb = r.docLeft
		stdout.docLimited, stderr.docLimited = true, true
	}
	ob, eb := share(bb, size(b.Stdout), size(b.Stderr))
	ol, el := share(bl, lines(b.Stdout), lines(b.Stderr))
	if !stdout.empty() {
		stdout.e = b.Stdout.Excerpt(ob, ol)
		r.docLeft -= len(stdout.e.Head) + len(stdout.e.Tail)
	}
	if !stderr.empty() {
		stderr.e = b.Stderr.Excerpt(eb, el)
		r.docLeft -= len(stderr.e.Head) + len(stderr.e.Tail)
	}
	r.docLeft = max(r.docLeft, 0)
	return stdout, stderr
}

func size(s *output.Stream) int64 {
	if s == nil {
		return 0
	}
	return s.Bytes()
}

func lines(s *output.Stream) int64 {
	if s == nil {
		return 0
	}
	return s.Lines()
}

// share splits total between two streams that need a and b: each gets
// what it needs when both fit; else the smaller keeps what it needs when
// that is at most half, and the larger gets the rest.
func share(total int, a, b int64) (int, int) {
	t := int64(total)
	switch half := t / 2; {
	case a+b <= t:
		return int(a), int(b)
	case a <= half:
		return int(a), int(t - a)
	case b <= half:
		return int(t - b), int(b)
	default:
		return int(t - half), int(half)
	}
}

// marker is the one line that stands for what an excerpt leaves out: how
// much, where the whole stream is, and allowed commands that read it.
func (r *Reporter) marker(sh shown) string {
	var b strings.Builder
	b.WriteString("… ")
	e, s := sh.e, sh.s
	switch {
	case len(e.Head) == 0 && len(e.Tail) == 0:
		fmt.Fprintf(&b, "%s: all %s (%s) left out", sh.name, count(s.Lines(), "line"), count(s.Bytes(), "byte"))
		if sh.docLimited {
			fmt.Fprintf(&b, ", the report's budget of %s of output is used up", sizeText(int64(r.docBudget)))
		}
	case e.OmittedLines == 0:
		fmt.Fprintf(&b, "%s of a long line left out here", count(e.OmittedBytes, "byte"))
	default:
		fmt.Fprintf(&b, "%s (%s) left out here", count(e.OmittedLines, "line"), count(e.OmittedBytes, "byte"))
		if e.Cut {
			b.WriteString(", a line at the cut shown in part")
		}
	}
	if sh.docLimited && (len(e.Head) > 0 || len(e.Tail) > 0) {
		fmt.Fprintf(&b, " (fewer than usual: the report's budget of %s of output is nearly used up)", sizeText(int64(r.docBudget)))
	}
	b.WriteString("; ")
	b.WriteString(r.savedText(sh))
	return b.String()
}

// readPath is a saved file's path as a RUN block without a dir attribute
// names it: relative to the base directory.
func (r *Reporter) readPath(path string) string {
	if r.base == "" || path == "" {
		return path
	}
	return strings.Repeat("../", strings.Count(r.base, "/")+1) + path
}

// savedText says where the whole stream is, and how to read it.
func (r *Reporter) savedText(sh shown) string {
	s := sh.s
	path := r.readPath(s.Path())
	switch {
	case path == "" && s.Err() != nil:
		return fmt.Sprintf("%s was not saved: %v", sh.name, s.Err())
	case path == "":
		return sh.name + " was not saved"
	case s.Err() != nil:
		return fmt.Sprintf("only its first %s are saved, in %s (then saving failed: %v): `tail -n 100 %s`",
			count(s.Saved(), "byte"), path, s.Err(), path)
	}
	whole := "the whole " + sh.name
	if sh.capped {
		whole = sh.name + " up to the output cap"
	}
	return fmt.Sprintf("%s (%s) is in %s: read it with `grep -n PATTERN %s` or `tail -n 100 %s`",
		whole, count(s.Lines(), "line"), path, path, path)
}

// count writes "1 line", "3000000 lines".
func count(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.FormatInt(n, 10) + " " + unit + "s"
}

// sizeText writes a byte count the way sizes are configured: "64 KiB",
// "10 MB", "1234 bytes".
func sizeText(n int64) string {
	for _, u := range []struct {
		name string
		mult int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if n >= u.mult && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + " " + u.name
		}
	}
	return count(n, "byte")
}

// fence returns the line of backticks that opens and closes shown output:
// three, or one more than the longest run of backticks starting a line of
// the output (after spaces and tabs), so no line of output can close it.
func fence(parts ...[]byte) string {
	longest := 0
	for _, p := range parts {
		atStart := true
		run := 0
		for _, c := range p {
			switch {
			case c == '\n':
				atStart, run = true, 0
			case !atStart:
			case c == '`':
				run++
				longest = max(longest, run)
			case (c == ' ' || c == '\t') && run == 0:
			default:
				atStart = false
			}
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// jsonText is the shown text of a stream in the JSON report: the whole
// stream, or the head, the marker line and the tail.
func (r *Reporter) jsonText(sh shown) string {
	if sh.empty() {
		return ""
	}
	if sh.e.Whole {
		return string(sh.e.Head)
	}
	var b strings.Builder
	b.Write(sh.e.Head)
	if len(sh.e.Head) > 0 && sh.e.Head[len(sh.e.Head)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(r.marker(sh))
	b.WriteByte('\n')
	b.Write(sh.e.Tail)
	return b.String()
}

// textStream writes one non-empty stream: fenced output, and the marker
// between head and tail when it is not whole.
func (r *Reporter) textStream(sh shown) {
	e := sh.e
	f := fence(e.Head, e.Tail)
	if e.Whole || len(e.Head) > 0 {
		r.fenced(f, sh.name, e.Head)
	}
	if !e.Whole {
		r.printf("    %s\n", visible(r.marker(sh)))
		if len(e.Tail) > 0 {
			r.fenced(f, sh.name, e.Tail)
		}
	}
	end := e.Tail
	if e.Whole {
		end = e.Head
	}
	if len(end) > 0 && end[len(end)-1] != '\n' {
		r.printf("    (no newline at end of %s)\n", sh.name)
	}
}

// fenced writes data between two fence lines, the first labelled with
// the stream's name, escaping what would act on a terminal.
func (r *Reporter) fenced(f, name string, data []byte) {
	buf := append(r.buf[:0], f...)
	buf = append(buf, name...)
	buf = append(buf, '\n')
	r.write(buf)
	r.buf = buf
	if hasHiddenBytes(data) {
		// Escape sequences and carriage returns a command printed would
		// act on the terminal of a person reading the report (clear it,
		// fake lines): show them as \x1b, \r.
		r.writeVisible(data)
	} else {
		r.write(data)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		r.write(newline)
	}
	r.write([]byte(f + "\n"))
}
