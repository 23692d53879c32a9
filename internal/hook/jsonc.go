package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// This file reads and edits JSON with comments (JSONC), as the agents'
// settings files may hold: // and /* */ comments and trailing commas are
// accepted, and every edit changes only the bytes it must, so comments,
// key order and formatting elsewhere stay as they were.
//
// Why not github.com/tailscale/hujson (issue 30, part 9; tried and
// measured, see the commits that added and removed it): its editing
// (Value.Patch) glues an added entry to the line before until Value.Format
// rewrites the whole file, so the edits below would stay anyway; as the
// parser alone it needed as much code around it as the parser here (a
// byte order mark, bad UTF-8 in strings, a // comment ending the file, a
// nesting limit before it overflows the stack on deep input, and clada's
// error messages), took about 1.7 times the CPU and twice the memory per
// parse, and made clada 183 KB larger.

// kind is the type of a JSON value.
type kind int

const (
	kObject kind = iota
	kArray
	kString
	kNumber
	kLiteral // true, false, null
)

// node is one JSON value and where it is in the text.
type node struct {
	kind       kind
	start, end int // byte offsets of the value: end is just past it
	members    []member
	elems      []*node
	str        string // kString: the decoded string
}

type member struct {
	key        string
	start      int // offset of the key's opening quote
	val        *node
	commaAfter int // offset of the comma after the member, -1 when none
}

// get returns the value of the last member named key (the one a JSON
// parser keeps), nil when there is none or n is not an object.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kObject {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

// SyntaxError is a settings file that does not parse, with its position.
type SyntaxError struct {
	Line, Col int // 1-based
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

type jsoncParser struct {
	data []byte
	pos  int
}

// parseJSONC parses data, which must hold exactly one JSON value, with
// comments and trailing commas allowed. A UTF-8 byte order mark is
// skipped.
func parseJSONC(data []byte) (*node, error) {
	p := &jsoncParser{data: data}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		p.pos = 3
	}
	if !utf8.Valid(data) {
		for p.pos < len(data) {
			r, size := utf8.DecodeRune(data[p.pos:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			p.pos += size
		}
		return nil, p.errorf("the file is not UTF-8")
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos < len(p.data) {
		return nil, p.errorf("unexpected %q after the JSON value", p.data[p.pos])
	}
	return n, nil
}

func (p *jsoncParser) errorf(format string, a ...any) error {
	line, col := 1, 1
	for _, c := range p.data[:min(p.pos, len(p.data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, a...)}
}

// space skips blanks and comments.
func (p *jsoncParser) space() error {
	for p.pos < len(p.data) {
		switch c := p.data[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.data) && p.data[p.pos+1] == '/':
			for p.pos < len(p.data) && p.data[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.data) && p.data[p.pos+1] == '*':
			end := bytes.Index(p.data[p.pos+2:], []byte("*/"))
			if end < 0 {
				return p.errorf("unterminated /* comment")
			}
			p.pos += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

const maxDepth = 200

func (p *jsoncParser) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested more than %d deep", maxDepth)
	}
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of file")
	}
	start := p.pos
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &node{kind: kString, start: start, end: p.pos, str: s}, nil
	case c == '-' || ('0' <= c && c <= '9'):
		for p.pos < len(p.data) && strings.IndexByte("+-.eE0123456789", p.data[p.pos]) >= 0 {
			p.pos++
		}
		if !json.Valid(p.data[start:p.pos]) {
			p.pos = start
			return nil, p.errorf("invalid number")
		}
		return &node{kind: kNumber, start: start, end: p.pos}, nil
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.data[p.pos:], []byte(lit)) {
				p.pos += len(lit)
				return &node{kind: kLiteral, start: start, end: p.pos}, nil
			}
		}
		return nil, p.errorf("unexpected %q", c)
	}
}

// str reads a JSON string at p.pos.
func (p *jsoncParser) str() (string, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case '\\':
			p.pos += 2
		case '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.data[start:p.pos], &s); err != nil {
				p.pos = start
				return "", p.errorf("invalid string")
			}
			return s, nil
		case '\n':
			return "", p.errorf("newline in a string")
		default:
			p.pos++
		}
	}
	p.pos = start
	return "", p.errorf("unterminated string")
}

func (p *jsoncParser) object(depth int) (*node, error) {
	n := &node{kind: kObject, start: p.pos}
	p.pos++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of file in an object")
		}
		if p.data[p.pos] == '}' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		if len(n.members) > 0 && n.members[len(n.members)-1].commaAfter < 0 {
			return nil, p.errorf("expected , or } after an object member")
		}
		if p.data[p.pos] != '"' {
			return nil, p.errorf("expected a quoted key")
		}
		m := member{start: p.pos, commaAfter: -1}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		m.key = key
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf("expected : after the key %q", key)
		}
		p.pos++
		if err := p.space(); err != nil {
			return nil, err
		}
		if m.val, err = p.value(depth + 1); err != nil {
			return nil, err
		}
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			m.commaAfter = p.pos
			p.pos++
		}
		n.members = append(n.members, m)
	}
}

func (p *jsoncParser) array(depth int) (*node, error) {
	n := &node{kind: kArray, start: p.pos}
	p.pos++
	comma := true
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of file in an array")
		}
		if p.data[p.pos] == ']' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		if !comma {
			return nil, p.errorf("expected , or ] after an array element")
		}
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, e)
		if err := p.space(); err != nil {
			return nil, err
		}
		comma = p.pos < len(p.data) && p.data[p.pos] == ','
		if comma {
			p.pos++
		}
	}
}

// edit is one replacement of data[start:end] by text.
type edit struct {
	start, end int
	text       string
}

func (e edit) apply(data []byte) []byte {
	out := make([]byte, 0, len(data)-(e.end-e.start)+len(e.text))
	out = append(out, data[:e.start]...)
	out = append(out, e.text...)
	return append(out, data[e.end:]...)
}

// indentUnit guesses the file's indentation step from its first indented
// line, two spaces when there is none.
func indentUnit(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) > 0 && len(trimmed) < len(line) {
			return string(line[:len(line)-len(trimmed)])
		}
	}
	return "  "
}

// lineIndent is the blanks at the start of the line that holds offset.
func lineIndent(data []byte, offset int) string {
	start := bytes.LastIndexByte(data[:offset], '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

// formatValue marshals v as JSON: on one line when compact, else
// indented by unit with every line after the first starting with indent.
func formatValue(v any, compact bool, indent, unit string) string {
	var out []byte
	var err error
	if compact {
		out, err = json.Marshal(v)
	} else {
		out, err = json.MarshalIndent(v, indent, unit)
	}
	if err != nil {
		panic(err) // only values this package builds are formatted
	}
	return string(out)
}

// memberText is `"key": value`, or value alone when key is "".
func memberText(key string, v any, compact bool, indent, unit string) string {
	text := formatValue(v, compact, indent, unit)
	if key == "" {
		return text
	}
	k, _ := json.Marshal(key)
	return string(k) + ": " + text
}

// insertLast returns the edit that adds v as the last element of the
// array c, or as the last member key of the object c: after the last
// one, on a line of its own with the same indentation (after a comment
// that ends the last one's line), or on the same line when the container
// is written on one line. When the last one has a trailing comma, so does
// the new one, so that [removeAt] restores the text exactly.
func insertLast(data []byte, c *node, key string, v any) edit {
	e := insertText(data, c, key, v)
	if bytes.Contains(data, []byte("\r\n")) {
		// The new lines end as the file's do. JSON text holds no raw
		// line ends, so every \n here is one this function wrote (or an
		// existing \r\n copied whole, which is restored below).
		e.text = strings.ReplaceAll(strings.ReplaceAll(e.text, "\r\n", "\n"), "\n", "\r\n")
	}
	return e
}

func insertText(data []byte, c *node, key string, v any) edit {
	closing := c.end - 1
	unit := indentUnit(data)
	var lastStart, lastEnd, count int
	trailingComma := false
	switch c.kind {
	case kArray:
		count = len(c.elems)
		if count > 0 {
			last := c.elems[count-1]
			lastStart, lastEnd = last.start, last.end
			if k := bytes.IndexByte(between(data, last.end, closing), ','); k >= 0 {
				trailingComma, lastEnd = true, last.end+k+1
			}
		}
	case kObject:
		count = len(c.members)
		if count > 0 {
			last := c.members[count-1]
			lastStart, lastEnd = last.start, last.val.end
			if last.commaAfter >= 0 {
				trailingComma, lastEnd = true, last.commaAfter+1
			}
		}
	}
	if count == 0 {
		outer := lineIndent(data, c.start)
		inner := outer + unit
		if !bytes.Contains(data[c.start:c.end], []byte("\n")) && lineHasMore(data, c.end) {
			return edit{c.start + 1, closing, memberText(key, v, true, "", "")}
		}
		return edit{c.start + 1, closing, "\n" + inner + memberText(key, v, false, inner, unit) + "\n" + outer}
	}
	if !bytes.Contains(between(data, c.start, lastStart), []byte("\n")) {
		text := memberText(key, v, true, "", "")
		if trailingComma {
			return edit{lastEnd, lastEnd, " " + text + ","}
		}
		return edit{lastEnd, lastEnd, ", " + text}
	}
	indent := lineIndent(data, lastStart)
	text := "\n" + indent + memberText(key, v, false, indent, unit)
	// After what ends the last one's line, when only blanks and comments do.
	eol := lastEnd
	if nl := bytes.IndexByte(data[lastEnd:closing], '\n'); nl >= 0 && len(bytes.TrimSpace(between(data, lastEnd, lastEnd+nl))) == 0 {
		eol = lastEnd + nl
		for eol > lastEnd && data[eol-1] == '\r' {
			eol--
		}
	}
	if trailingComma {
		return edit{eol, eol, text + ","}
	}
	return edit{lastEnd, eol, "," + string(data[lastEnd:eol]) + text}
}

// lineHasMore reports whether something other than blanks and a comma
// follows offset on its line: the container is one item of a line.
func lineHasMore(data []byte, offset int) bool {
	for i := offset; i < len(data) && data[i] != '\n'; i++ {
		if c := data[i]; c != ' ' && c != '\t' && c != ',' && c != '\r' {
			return true
		}
	}
	return false
}

// between is data[a:b] with comments blanked out, so that a search for
// a comma or a newline sees only JSON.
func between(data []byte, a, b int) []byte {
	out := bytes.Clone(data[a:b])
	p := &jsoncParser{data: out}
	for p.pos < len(out) {
		s := p.pos
		if out[p.pos] == '/' && p.pos+1 < len(out) && (out[p.pos+1] == '/' || out[p.pos+1] == '*') {
			_ = p.space()
			for i := s; i < p.pos; i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			continue
		}
		p.pos++
	}
	return out
}

// removeAt returns the edits that remove element or member i of c, with
// the comma that separated it and, when it had a line of its own, that
// line; comments on other lines are kept. Apply them in order: the later
// edit comes first.
func removeAt(data []byte, c *node, i int) []edit {
	start, end, count := span(c, i)
	closing := c.end - 1
	if count == 1 {
		return []edit{{c.start + 1, closing, ""}}
	}
	comma := -1 // the comma after it, if any
	limit := closing
	if i+1 < count {
		limit, _, _ = span(c, i+1)
	}
	if k := bytes.IndexByte(between(data, end, limit), ','); k >= 0 {
		comma = end + k
	}
	ownLine := lineStartIfBlank(data, start) != start || (start > 0 && data[start-1] == '\n')
	if i+1 < count {
		// Up to the next one: this one, its comma, and the rest of its
		// line when that is blank.
		end = comma + 1
		for end < limit && (data[end] == ' ' || data[end] == '\t' || data[end] == '\r') {
			end++
		}
		if end < limit && data[end] == '\n' && ownLine {
			end++
			start = lineStartIfBlank(data, start)
		}
		return []edit{{start, end, ""}}
	}
	// The last of several.
	if comma >= 0 {
		end = comma + 1 // its trailing comma; the previous one keeps its own
	}
	_, prevEnd, _ := span(c, i-1)
	prevComma := prevEnd + bytes.IndexByte(between(data, prevEnd, start), ',')
	if ownLine {
		start = lineStartIfBlank(data, start)
		if start > 0 && data[start-1] == '\n' {
			start--
			if start > 0 && data[start-1] == '\r' {
				start--
			}
		}
	} else {
		start = prevComma + 1
		if comma < 0 {
			start = prevEnd
		}
	}
	if comma < 0 && start > prevComma {
		// The previous one's comma separated this one: it goes too.
		return []edit{{start, end, ""}, {prevComma, prevComma + 1, ""}}
	}
	return []edit{{start, end, ""}}
}

// span is where element or member i of c starts and ends (a member from
// its key to the end of its value), and how many c has.
func span(c *node, i int) (start, end, count int) {
	if c.kind == kArray {
		return c.elems[i].start, c.elems[i].end, len(c.elems)
	}
	return c.members[i].start, c.members[i].val.end, len(c.members)
}

// applyAll applies edits in the order removeAt returns them.
func applyAll(data []byte, edits []edit) []byte {
	for _, e := range edits {
		data = e.apply(data)
	}
	return data
}

// lineStartIfBlank moves offset back to the start of its line when only
// blanks precede it there.
func lineStartIfBlank(data []byte, offset int) int {
	i := offset
	for i > 0 && (data[i-1] == ' ' || data[i-1] == '\t') {
		i--
	}
	if i == 0 || data[i-1] == '\n' {
		return i
	}
	return offset
}
