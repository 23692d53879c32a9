package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// This file reads and edits JSON with comments (JSONC), as the agents'
// settings files may hold: // and /* */ comments and trailing commas are
// accepted, and every edit changes only the bytes it must, so comments,
// key order and formatting elsewhere stay as they were.
//
// github.com/tailscale/hujson parses; clada keeps the edits. hujson's own
// editing (Value.Patch) leaves an inserted entry glued to the previous
// line ("},{...}") until Value.Format is called, and Format rewrites the
// whole file (tabs, aligned values, a trailing comma after every last
// member), so the person's formatting would be lost and uninstall could
// not give the file back byte for byte. Around hujson.Parse, parseJSONC
// adds what clada's settings files need and hujson does not do: a UTF-8
// byte order mark is skipped, a file that is not UTF-8 is refused (hujson
// accepts bad UTF-8 inside strings), a // comment may end the file without
// a newline, nesting is limited before parsing (hujson recurses once per
// level without a limit: 4 MiB of "[" overflowed the stack, a fatal
// error), and a syntax error is reported in clada's words at hujson's
// line and column.

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

// syntaxError is a SyntaxError at byte offset pos of data, the column
// counted in bytes.
func syntaxError(data []byte, pos int, format string, a ...any) error {
	pos = min(pos, len(data))
	line := 1 + bytes.Count(data[:pos], []byte("\n"))
	col := 1 + pos - (bytes.LastIndexByte(data[:pos], '\n') + 1)
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, a...)}
}

const maxDepth = 200

// bom is the UTF-8 byte order mark an editor may start the file with.
var bom = []byte("\xef\xbb\xbf")

// parseJSONC parses data, which must hold exactly one JSON value, with
// comments and trailing commas allowed. A UTF-8 byte order mark is
// skipped.
func parseJSONC(data []byte) (*node, error) {
	off := 0
	if bytes.HasPrefix(data, bom) {
		off = len(bom)
	}
	if !utf8.Valid(data) {
		pos := off
		for pos < len(data) {
			r, size := utf8.DecodeRune(data[pos:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			pos += size
		}
		return nil, syntaxError(data, pos, "the file is not UTF-8")
	}
	open, deep, str := nesting(data[off:])
	if deep >= 0 {
		return nil, syntaxError(data, off+deep, "nested more than %d deep", maxDepth)
	}
	// hujson ends a // comment only at a newline: one more lets the
	// file's last line be a comment. Offsets before it are the file's.
	text := make([]byte, 0, len(data)-off+1)
	text = append(append(text, data[off:]...), '\n')
	v, err := hujson.Parse(text)
	if err != nil {
		return nil, parseError(data, off, err, open, str)
	}
	return fromHuJSON(&v, off), nil
}

// nesting returns the brackets still open at the end of text, innermost
// last, the offset of the first that opens a level deeper than maxDepth
// (the root is level 0; -1 when none does), and the offset of a string
// the text ends in (-1 when none). Strings and comments are skipped.
func nesting(text []byte) (open []byte, deep, str int) {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '"':
			start := i
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
			if i >= len(text) {
				return open, -1, start
			}
		case '/':
			end := -1
			switch {
			case bytes.HasPrefix(text[i:], []byte("//")):
				end = bytes.IndexByte(text[i:], '\n')
			case bytes.HasPrefix(text[i:], []byte("/*")):
				if end = bytes.Index(text[i+2:], []byte("*/")); end >= 0 {
					end += 3
				}
			default:
				continue
			}
			if end < 0 {
				return open, -1, -1
			}
			i += end
		case '[', '{':
			if len(open) > maxDepth {
				return open, i, -1
			}
			open = append(open, c)
		case ']', '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	return open, -1, -1
}

// parseError is hujson's error err about data (its text from off on) in
// clada's words, as a *SyntaxError; open are the brackets still open at
// the end of the file, which say what the file ends inside, and str the
// offset in text of a string it ends in (-1 when none).
func parseError(data []byte, off int, err error, open []byte, str int) error {
	// hujson says "hujson: line L, column C: MSG".
	where, msg, ok := strings.Cut(err.Error(), ": ")
	if ok {
		where, msg, ok = strings.Cut(msg, ": ")
	}
	l, c, _ := strings.Cut(strings.TrimPrefix(where, "line "), ", column ")
	line, lerr := strconv.Atoi(l)
	col, cerr := strconv.Atoi(c)
	if !ok || lerr != nil || cerr != nil {
		return syntaxError(data, len(data), "%v", err)
	}
	pos := off
	for ; line > 1; line-- {
		pos += bytes.IndexByte(data[pos:], '\n') + 1
	}
	pos = min(pos+col-1, len(data))
	if strings.HasSuffix(msg, io.ErrUnexpectedEOF.Error()) && !strings.HasPrefix(msg, "parsing comment:") {
		if str >= 0 {
			return syntaxError(data, off+str, "unterminated string")
		}
		msg = "unexpected end of file"
		if len(open) > 0 {
			msg += map[byte]string{'{': " in an object", '[': " in an array"}[open[len(open)-1]]
		}
		return syntaxError(data, len(data), "%s", msg)
	}
	switch {
	case pos >= len(data):
		// Only the newline parseJSONC added is there: hujson's words.
	case (strings.HasSuffix(msg, "at start of value") || strings.HasPrefix(msg, "invalid literal: ")) && keyExpected(data[off:pos]):
		msg = "expected a quoted key"
	case strings.HasPrefix(msg, "parsing comment:"):
		msg = "unterminated /* comment"
	case strings.HasSuffix(msg, "after object value (expecting ',' or '}')"):
		msg = "expected , or } after an object member"
	case strings.HasSuffix(msg, "after array value (expecting ',' or ']')"):
		msg = "expected , or ] after an array element"
	case strings.HasSuffix(msg, "at start of object name"):
		msg = "expected a quoted key"
	case strings.HasSuffix(msg, "after object name"):
		msg = "expected : after the key"
	case strings.HasSuffix(msg, "after top-level value"):
		msg = fmt.Sprintf("unexpected %q after the JSON value", data[pos])
	case strings.HasPrefix(msg, "invalid literal: \"") && strings.Contains(msg, "\n"):
		pos += strings.IndexByte(msg, '\n') - len("invalid literal: ")
		msg = "newline in a string"
	case strings.HasPrefix(msg, "invalid literal: \""):
		msg = "invalid string"
	case strings.HasPrefix(msg, "invalid literal: -"), strings.HasPrefix(msg, "invalid literal: ") && '0' <= data[pos] && data[pos] <= '9':
		msg = "invalid number"
	case strings.HasPrefix(msg, "invalid literal: "), strings.HasSuffix(msg, "at start of value"):
		msg = fmt.Sprintf("unexpected %q", data[pos])
	}
	return syntaxError(data, pos, "%s", msg)
}

// keyExpected reports whether an object's key comes at the end of text:
// an object is the innermost open bracket, and its { or a comma is the
// last thing before, blanks aside.
func keyExpected(text []byte) bool {
	open, _, _ := nesting(text)
	text = bytes.TrimRight(text, " \t\r\n")
	return len(open) > 0 && open[len(open)-1] == '{' && len(text) > 0 && (text[len(text)-1] == '{' || text[len(text)-1] == ',')
}

// fromHuJSON is the node of v, a value hujson parsed from the file's text
// after off bytes.
func fromHuJSON(v *hujson.Value, off int) *node {
	n := &node{start: off + v.StartOffset, end: off + v.EndOffset}
	switch x := v.Value.(type) {
	case *hujson.Object:
		n.kind = kObject
		for i := range x.Members {
			m := &x.Members[i]
			comma := -1
			// A comma follows every member but the last, and the last
			// when hujson keeps its AfterExtra (a trailing comma).
			if i < len(x.Members)-1 || m.Value.AfterExtra != nil {
				comma = off + m.Value.EndOffset + len(m.Value.AfterExtra)
			}
			key, _ := m.Name.Value.(hujson.Literal)
			n.members = append(n.members, member{key: key.String(), start: off + m.Name.StartOffset, val: fromHuJSON(&m.Value, off), commaAfter: comma})
		}
	case *hujson.Array:
		n.kind = kArray
		for i := range x.Elements {
			n.elems = append(n.elems, fromHuJSON(&x.Elements[i], off))
		}
	case hujson.Literal:
		switch x.Kind() {
		case '"':
			n.kind, n.str = kString, x.String()
		case '0':
			n.kind = kNumber
		default:
			n.kind = kLiteral
		}
	}
	return n
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

// between is data[a:b] with comments blanked out (their line ends
// kept), so that a search for a comma or a newline sees only JSON. Edits
// call it only on what lies between two values: blanks, comments and a
// comma.
func between(data []byte, a, b int) []byte {
	out := bytes.Clone(data[a:b])
	for i := 0; i < len(out); i++ {
		end := -1
		switch {
		case bytes.HasPrefix(out[i:], []byte("//")):
			if end = bytes.IndexByte(out[i:], '\n'); end < 0 {
				end = len(out) - i
			}
		case bytes.HasPrefix(out[i:], []byte("/*")):
			if end = bytes.Index(out[i+2:], []byte("*/")); end < 0 {
				end = len(out) - i
			} else {
				end += 4
			}
		default:
			continue
		}
		for k := i; k < i+end; k++ {
			if out[k] != '\n' {
				out[k] = ' '
			}
		}
		i += end - 1
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
