package parser

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clada/clada/internal/rules"
)

// Kind is a block type.
type Kind string

// The block kinds of docs/csl.md §4. TASKS is a group, not a block.
const (
	KindRun    Kind = "RUN"
	KindWrite  Kind = "WRITE"
	KindSearch Kind = "SEARCH"
)

// MaxInput caps the size of one document: 16 MiB, the cap age puts on
// recipient files. A model reply is a few KiB; anything near this size is
// a mistake (a binary file, a log piped in), and reading it whole is what
// lets the parser work without a line-length limit. A larger document is
// refused with [ErrTooLarge] and nothing in it is parsed.
const MaxInput = 16 << 20

// ErrTooLarge is returned, wrapped with the source name, by [Parser.Blocks]
// for a document over [MaxInput] bytes.
var ErrTooLarge = errors.New("document larger than 16 MiB: split it into smaller documents")

// Error is a CSL error at a line of a document (docs/csl.md §6). Its Error
// method gives "SOURCE:LINE: message".
type Error struct {
	Source string // the document's name: the path as given, or "<stdin>"
	Line   int    // 1-based line, counted after a leading BOM is removed
	Msg    string // the message: the docs/csl.md phrase, then what to write instead
	Fatal  bool   // true for a fatal error (parsing stopped), false for a block error or a warning
	// Text is the line as written (for a block error, its opening marker),
	// cut to 200 bytes; "" when the line is not valid UTF-8.
	Text string
}

func (e *Error) Error() string {
	return e.Source + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
}

// Block is one RUN, WRITE or SEARCH block of a document.
type Block struct {
	Kind  Kind
	Line  int               // line of the opening marker
	Attrs map[string]string // the marker's attributes; nil when it has none
	// Body is the raw body of a RUN block: its lines joined with "\n", no
	// trailing LF, untrimmed. It is always "" for WRITE and SEARCH blocks:
	// clada skips them whole, and nothing inside them may ever run.
	Body  string
	Group int    // 0 for a standalone block; n ≥ 1 inside the n-th TASKS group of the document
	Dir   string // RUN: the dir attribute; "" means the project root
	// Err is the CSL block error of this block (attributes, docs/csl.md §5, a
	// SEARCH without REPLACE); nil when none. A RUN block with Err is
	// reported as deny with rule csl-syntax, and it has no Argv or Denied.
	Err *Error
	// Argv is, for a RUN block without Err, the argv of a body that is a
	// plain simple command; nil otherwise.
	Argv []string
	// Denied is, for a RUN block without Err, why the body is not a plain
	// simple command; nil when Argv is set.
	Denied *rules.Denied
}

// MoreThanOne reports whether the error is a RUN body of more than one
// command: a composition, where compositions are accepted.
func (e *Error) MoreThanOne() bool { return strings.HasPrefix(e.Msg, moreThanOne) }

// moreThanOne starts the error of a RUN body of several commands.
const moreThanOne = "more than one command in RUN block: put each"

// Document is the parse of one CSL document.
type Document struct {
	Source   string   // path as given, or "<stdin>"
	Blocks   []Block  // every RUN, WRITE and SEARCH block closed before any fatal error, in order
	Errors   []*Error // block errors, in line order (also referenced from Block.Err)
	Fatal    *Error   // the fatal error that stopped parsing; nil when none
	Warnings []*Error // docs/csl.md §7 warnings (`<<<<<<< RUN`, `<run` at column 1); never errors
	// Hints are prose lines that look like commands clada will not run: a
	// ```bash fence, `RUN ls`, `$ ls`, an indented marker. At most
	// [MaxHints], in line order; never errors. A report shows them when the
	// document has no RUN block, so that a model learns why nothing ran.
	Hints []*Error
}

// MaxHints bounds [Document.Hints].
const MaxHints = 10

// OK reports whether the document has neither a fatal error nor a block
// error. Warnings don't count.
func (d *Document) OK() bool { return d.Fatal == nil && len(d.Errors) == 0 }

// Skipped returns the number of WRITE and SEARCH blocks, which clada run
// recognises and skips.
func (d *Document) Skipped() int {
	n := 0
	for i := range d.Blocks {
		if d.Blocks[i].Kind != KindRun {
			n++
		}
	}
	return n
}

// Blocks reads a whole document from r, up to [MaxInput] bytes, and parses
// it with [New]. See [Parser.Blocks].
func Blocks(source string, r io.Reader) (*Document, error) { return New().Blocks(source, r) }

// Blocks reads a whole document from r, up to [MaxInput] bytes, and parses
// it as docs/csl.md §1–§6 say. source names the document in errors. The
// returned error is only for reading, or [ErrTooLarge]; CSL errors are in
// the Document. Each RUN block with valid attributes has its body analysed
// (docs/csl.md §5) into Argv, Denied or a block error.
func (p *Parser) Blocks(source string, r io.Reader) (*Document, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", source, err)
	}
	if len(data) > MaxInput {
		return nil, fmt.Errorf("%s: %w", source, ErrTooLarge)
	}
	return p.parseDocument(source, string(data)), nil
}

// Advice shared by several messages.
const (
	adviceEnd   = "close it with a line `<---END--->`"
	adviceAttrs = "write attributes as name=\"value\", e.g. `<---RUN dir=\"sub\"--->`"
)

// markerClass is how docs/csl.md §2 classifies a line.
type markerClass int

const (
	notReserved  markerClass = iota // T doesn't start with `<---` at column 1
	marker                          // T is a marker, in full
	contentAfter                    // T starts with a marker but text follows its `--->`
	malformed                       // any other reserved line
)

// classify classifies T, a line with its trailing spaces and tabs removed.
// For marker and contentAfter it returns the NAME; for marker, also the
// ATTRTEXT with its leading whitespace ("" when there is none).
func classify(t string) (c markerClass, name, attrText string) {
	if !strings.HasPrefix(t, "<---") {
		return notReserved, "", ""
	}
	i := 4
	for i < len(t) && isNameByte(t[i]) {
		i++
	}
	if i == 4 {
		return malformed, "", ""
	}
	name, rest := t[4:i], t[i:]
	switch {
	case strings.HasPrefix(rest, "--->"):
		if len(rest) == 4 {
			return marker, name, ""
		}
		return contentAfter, name, ""
	case rest != "" && (rest[0] == ' ' || rest[0] == '\t'):
		// ATTRTEXT runs up to the last `--->` of T.
		j := strings.LastIndex(rest, "--->")
		switch {
		case j < 0:
			return malformed, "", ""
		case j+4 == len(rest):
			return marker, name, rest[:j]
		default:
			return contentAfter, name, ""
		}
	}
	return malformed, "", ""
}

func isNameByte(b byte) bool {
	return b == '_' || 'A' <= b && b <= 'Z' || 'a' <= b && b <= 'z' || '0' <= b && b <= '9'
}

func isBlank(s string) bool { return strings.Trim(s, " \t") == "" }

// attr is one parsed attribute, in source order.
type attr struct{ name, value string }

// parseAttrs parses ATTRTEXT (docs/csl.md §2). It returns the attributes in
// source order, or the message of a fatal attribute error.
func parseAttrs(s string) ([]attr, string) {
	var attrs []attr
	i := 0
	skipWS := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	for {
		skipWS()
		if i == len(s) {
			return attrs, ""
		}
		start := i
		for i < len(s) && !strings.ContainsRune(" \t=\"'", rune(s[i])) {
			i++
		}
		name := s[start:i]
		if name == "" {
			return nil, "missing attribute name before `" + string(s[i]) + "`: " + adviceAttrs
		}
		skipWS()
		if i == len(s) || s[i] != '=' {
			return nil, fmt.Sprintf("expected '=' after attribute name %q: %s", name, adviceAttrs)
		}
		i++
		skipWS()
		if i == len(s) {
			return nil, fmt.Sprintf("missing attribute value for %q: write %s=\"value\"", name, name)
		}
		q := s[i]
		if q != '"' && q != '\'' {
			return nil, fmt.Sprintf("unquoted attribute value for %q: quote it, %s=\"value\"", name, name)
		}
		i++
		value, n, closed := quotedValue(s[i:], q)
		i += n
		if !closed {
			return nil, fmt.Sprintf("unterminated quoted value for %q: close the quote with %c before `--->` (write \\%c for a quote inside it)", name, q, q)
		}
		for _, a := range attrs {
			if a.name == name {
				return nil, fmt.Sprintf("duplicate attribute %q: give each attribute once per marker", name)
			}
		}
		attrs = append(attrs, attr{name, value})
	}
}

// quotedValue reads a quoted value from s, just after its opening quote
// q, up to the closing quote. It returns the value with its escapes
// resolved, the bytes consumed (closing quote included), and whether the
// closing quote was found.
func quotedValue(s string, q byte) (value string, n int, closed bool) {
	end := -1
	escapes := false
	for i := 0; i < len(s); i++ {
		if s[i] == q {
			end = i
			break
		}
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == q || s[i+1] == '\\') {
			escapes = true
			i++
		}
	}
	if end < 0 {
		return "", len(s), false
	}
	if !escapes {
		return s[:end], end + 1, true
	}
	var b strings.Builder
	b.Grow(end)
	for i := 0; i < end; i++ {
		if s[i] == '\\' && i+1 < end && (s[i+1] == q || s[i+1] == '\\') {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String(), end + 1, true
}

// openBlock is the block being read.
type openBlock struct {
	kind      Kind
	line      int
	marker    string // the opening marker line
	attrs     []attr
	bodyStart int // offset of the first body line
	section   int // SEARCH: 0 search text, 1 after TO, 2 after REPLACE
}

// parseDocument parses a whole document; text is at most MaxInput bytes.
func (p *Parser) parseDocument(source, text string) *Document {
	d := &Document{Source: source}
	text = strings.TrimPrefix(text, "\uFEFF")
	// CRLF, LF and a lone CR each end a line. Normalising once keeps line
	// numbers and lets bodies be slices of text.
	if strings.IndexByte(text, '\r') >= 0 {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	if !utf8.ValidString(text) {
		d.Fatal = &Error{Source: source, Line: firstInvalidLine(text), Fatal: true,
			Msg: "invalid UTF-8: the document must be UTF-8 text; nothing in it was parsed"}
		return d
	}
	// Every block ends with a line starting "<---END": sizing Blocks from
	// their count saves re-copying a large slice while appending.
	d.Blocks = make([]Block, 0, strings.Count(text, "\n<---END"))
	fatal := func(line int, msg string) *Document {
		d.Fatal = &Error{Source: source, Line: line, Msg: msg, Fatal: true, Text: lineText(text, line)}
		return d
	}

	var (
		blk       *openBlock // the open block, nil when none
		cur       openBlock  // storage for blk, to save an allocation per block
		group     = 0        // number of TASKS groups opened so far
		inTasks   = false
		groupLine = 0 // line of the open TASKS marker
	)
	lineNo := 0
	for pos := 0; pos < len(text); {
		lineNo++
		line, next := text[pos:], len(text)
		if n := strings.IndexByte(line, '\n'); n >= 0 {
			line, next = line[:n], pos+n+1
		}
		linePos := pos
		pos = next

		if blk != nil {
			if !strings.HasPrefix(line, "<---") {
				continue // body line
			}
			c, name, attrText := classify(strings.TrimRight(line, " \t"))
			switch {
			case name == "END" && c == marker:
				// Blank ATTRTEXT (`<---END --->`) counts as none, as
				// for TO and REPLACE; `<---END K--->` allows any
				// whitespace around K, as `<---END TASKS--->` does.
				if at := strings.Trim(attrText, " \t"); at != "" && at != string(blk.kind) {
					return fatal(lineNo, fmt.Sprintf("malformed END marker: %s block (line %d) is closed by a line `<---END--->` or `<---END %s--->`", blk.kind, blk.line, blk.kind))
				}
				body := ""
				if linePos > blk.bodyStart {
					body = text[blk.bodyStart : linePos-1]
				}
				p.closeBlock(d, blk, body, groupOf(inTasks, group))
				blk = nil
			case name == "END" && c == contentAfter:
				return fatal(lineNo, fmt.Sprintf("malformed END marker: text follows `--->`; close the %s block (line %d) with a line `<---END--->` alone", blk.kind, blk.line))
			case blk.kind == KindSearch && c == marker && name == "TO" && blk.section == 0 && isBlank(attrText):
				blk.section = 1
			case blk.kind == KindSearch && c == marker && name == "REPLACE" && blk.section < 2 && isBlank(attrText):
				blk.section = 2
			}
			continue
		}

		// Top level or TASKS: everything but reserved lines is prose.
		if line == "" {
			continue
		}
		if line[0] != '<' {
			if len(d.Hints) < MaxHints {
				if why := looksLikeCommand(line); why != "" {
					d.Hints = append(d.Hints, &Error{Source: source, Line: lineNo, Msg: why, Text: cut(line)})
				}
			}
			continue
		}
		if strings.HasPrefix(line, "<<<<<<< RUN") || strings.HasPrefix(line, "<run") {
			d.Warnings = append(d.Warnings, &Error{Source: source, Line: lineNo, Text: cut(line),
				Msg: "this line is not a RUN block and is ignored: write `<---RUN--->`, the command, then `<---END--->`, each at column 1"})
			continue
		}
		c, name, attrText := classify(strings.TrimRight(line, " \t"))
		switch c {
		case notReserved:
			continue
		case contentAfter:
			return fatal(lineNo, fmt.Sprintf("content after marker: a `<---%s--->` marker must be alone on its line; put the text on the next line", name))
		case malformed:
			return fatal(lineNo, "malformed marker: a line starting with `<---` at column 1 must be a marker like `<---RUN--->` or `<---END--->`; indent it if it is prose")
		}
		switch name {
		case "RUN", "WRITE", "SEARCH":
			attrs, msg := parseAttrs(attrText)
			if msg != "" {
				return fatal(lineNo, msg)
			}
			cur = openBlock{kind: Kind(name), line: lineNo, marker: line, attrs: attrs, bodyStart: pos}
			blk = &cur
		case "TASKS":
			if inTasks {
				return fatal(lineNo, fmt.Sprintf("TASKS cannot be nested: close the group opened at line %d with `<---END TASKS--->` first", groupLine))
			}
			if _, msg := parseAttrs(attrText); msg != "" {
				return fatal(lineNo, msg)
			}
			group++
			inTasks, groupLine = true, lineNo
		case "END":
			if !inTasks {
				return fatal(lineNo, "END marker with no open block: remove it, or open a block first with `<---RUN--->`")
			}
			if at := strings.Trim(attrText, " \t"); at != "" && at != "TASKS" {
				return fatal(lineNo, fmt.Sprintf("malformed END marker: the TASKS group (line %d) is closed by `<---END--->` or `<---END TASKS--->`", groupLine))
			}
			inTasks = false
		case "TO", "REPLACE":
			return fatal(lineNo, name+" marker outside SEARCH block: it belongs between `<---SEARCH file=\"…\"--->` and `<---END--->`")
		default:
			return fatal(lineNo, fmt.Sprintf("unknown block type %q: the block types are RUN, WRITE, SEARCH and TASKS, in upper case", name))
		}
	}
	switch {
	case blk != nil:
		return fatal(blk.line, fmt.Sprintf("unterminated %s block: %s", blk.kind, adviceEnd))
	case inTasks:
		return fatal(groupLine, "unterminated TASKS group: close it with a line `<---END TASKS--->`")
	}
	return d
}

func groupOf(inTasks bool, group int) int {
	if inTasks {
		return group
	}
	return 0
}

// closeBlock appends the block that was just closed to d. RUN bodies are
// analysed; WRITE and SEARCH bodies are dropped.
func (p *Parser) closeBlock(d *Document, ob *openBlock, body string, group int) {
	b := Block{Kind: ob.kind, Line: ob.line, Group: group}
	if len(ob.attrs) > 0 {
		b.Attrs = make(map[string]string, len(ob.attrs))
		for _, a := range ob.attrs {
			b.Attrs[a.name] = a.value
		}
	}
	msg := ""
	switch ob.kind {
	case KindRun:
		b.Body = body
		b.Dir = b.Attrs["dir"]
		for _, a := range ob.attrs {
			if a.name != "dir" {
				msg = fmt.Sprintf("unknown attribute %q on RUN: the only RUN attribute is dir=\"…\"", a.name)
				break
			}
			if a.value == "" {
				msg = "empty dir attribute: leave dir out to run in the project root, or give a directory, dir=\"sub\""
				break
			}
		}
		if msg == "" {
			b.Argv, b.Denied, msg = p.analyzeRun(body)
		}
	case KindSearch:
		if ob.section != 2 {
			msg = "SEARCH block missing REPLACE section: add a line `<---REPLACE--->` before `<---END--->`"
		}
	}
	if msg != "" {
		b.Err = &Error{Source: d.Source, Line: ob.line, Msg: msg, Text: cut(ob.marker)}
		b.Argv, b.Denied = nil, nil
		d.Errors = append(d.Errors, b.Err)
	}
	d.Blocks = append(d.Blocks, b)
}

// firstInvalidLine returns the number of the first line of text that
// contains an invalid UTF-8 sequence. A line terminator is ASCII, so it is
// never part of a multi-byte sequence.
func firstInvalidLine(text string) int {
	n := 1
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 || !utf8.ValidString(text[:i]) {
			return n
		}
		text = text[i+1:]
		n++
	}
}

// shellFences are the info strings of Markdown fences that hold shell
// commands.
var shellFences = []string{"bash", "sh", "shell", "console", "zsh", "fish", "terminal", "shell-session", "shellsession"}

// looksLikeCommand says why a prose line looks like a command meant to
// run, or "" when it does not.
func looksLikeCommand(line string) string {
	switch c := line[0]; {
	case c == '`' || c == '~':
		info := strings.TrimLeft(line, string(c))
		if len(line)-len(info) < 3 {
			return ""
		}
		info, _, _ = strings.Cut(strings.TrimSpace(info), " ")
		for _, f := range shellFences {
			if strings.EqualFold(info, f) {
				return "a ```" + f + " fence: clada runs no fenced code, only RUN blocks"
			}
		}
	case c == 'R':
		if line == "RUN" || strings.HasPrefix(line, "RUN ") || strings.HasPrefix(line, "RUN:") || strings.HasPrefix(line, "RUN\t") {
			return "`RUN …` on one line is not a RUN block"
		}
	case c == '$':
		if len(line) > 2 && line[1] == ' ' && line[2] != ' ' {
			return "a `$ …` prompt line is not a RUN block"
		}
	case c == ' ' || c == '\t':
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "<---RUN") {
			return "an indented marker is prose: markers start at column 1"
		}
	}
	return ""
}

// cut returns line cut to 200 bytes at a rune boundary, or "" when it is
// not valid UTF-8.
func cut(line string) string {
	if !utf8.ValidString(line) {
		return ""
	}
	if len(line) <= 200 {
		return line
	}
	n := 200
	for n > 0 && !utf8.RuneStart(line[n]) {
		n--
	}
	return line[:n] + "…"
}

// lineText returns line n (from 1) of text, cut as [cut] does.
func lineText(text string, n int) string {
	for i := 1; i < n; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return ""
		}
		text = text[j+1:]
	}
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return cut(text)
}
