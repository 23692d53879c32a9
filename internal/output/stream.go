package output

import (
	"bytes"
	"os"
	"unicode/utf8"
)

// Stream is the sink of one output stream of one command. Its Write never
// fails: an error saving to the file is kept (see [Stream.Err]), and the
// bytes are still counted and kept in memory. A Stream is written from one
// goroutine; read it once the writes are done.
type Stream struct {
	name  string
	store *Store // nil: nothing is saved
	block int
	path  string // relative to the root, slash-separated; "" until a file exists
	file  *os.File
	err   error // the first error creating or writing the file

	keep  int
	head  []byte // the first bytes, up to keep
	ring  []byte // the last bytes, up to keep; circular once full
	pos   int    // where the next byte goes in ring once it is full
	full  bool   // ring has wrapped
	total int64
	nl    int64 // newlines
	last  byte  // the last byte written
	saved int64 // bytes written to the file
}

// NewStream returns a Stream that keeps keep bytes at each end in memory
// and saves nothing: its Path is always "".
func NewStream(name string, keep int) *Stream {
	return &Stream{name: name, keep: max(keep, 0)}
}

// Name is "stdout" or "stderr", as given.
func (s *Stream) Name() string { return s.name }

// Path is the file the stream was saved to, relative to the project root
// with forward slashes (".clada/out/3/1.stdout"), or "" when nothing was
// saved: the stream was empty, there is no Store, or the file could not be
// created (see Err).
func (s *Stream) Path() string { return s.path }

// Err is the first error creating or writing the saved file: the file, if
// any, holds only the first [Stream.Saved] bytes. nil when all was saved
// (or there was nothing to save).
func (s *Stream) Err() error { return s.err }

// Saved counts the bytes written to the saved file.
func (s *Stream) Saved() int64 { return s.saved }

// Bytes counts every byte written to the stream.
func (s *Stream) Bytes() int64 { return s.total }

// Lines counts the lines written to the stream: its newlines, plus one
// for a last line without a newline.
func (s *Stream) Lines() int64 {
	if s.total > 0 && s.last != '\n' {
		return s.nl + 1
	}
	return s.nl
}

// Write counts p, keeps what falls in the head or the tail, and saves it
// to the stream's file. It always returns len(p), nil.
func (s *Stream) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	s.save(p)
	s.total += int64(len(p))
	s.nl += int64(bytes.Count(p, []byte{'\n'}))
	s.last = p[len(p)-1]
	if n := s.keep - len(s.head); n > 0 {
		if s.head == nil {
			s.head = make([]byte, 0, min(s.keep, max(len(p), 512)))
		}
		s.head = append(s.head, p[:min(n, len(p))]...)
	}
	s.keepTail(p)
	return len(p), nil
}

func (s *Stream) save(p []byte) {
	if s.store == nil || s.err != nil {
		return
	}
	if s.file == nil {
		s.path, s.file, s.err = s.store.create(s.block, s.name)
		if s.err != nil {
			return
		}
	}
	n, err := s.file.Write(p)
	s.saved += int64(n)
	if err != nil {
		s.err = err
	}
}

// keepTail puts the last keep bytes of the stream in the ring.
func (s *Stream) keepTail(p []byte) {
	if s.keep == 0 {
		return
	}
	if len(p) >= s.keep {
		if cap(s.ring) < s.keep {
			s.ring = make([]byte, s.keep)
		}
		s.ring = s.ring[:s.keep]
		copy(s.ring, p[len(p)-s.keep:])
		s.pos, s.full = 0, true
		return
	}
	if !s.full {
		if len(s.ring)+len(p) <= s.keep {
			if s.ring == nil {
				s.ring = make([]byte, 0, min(s.keep, max(len(p), 512)))
			}
			s.ring = append(s.ring, p...)
			return
		}
		// Fill up to keep, then wrap.
		n := s.keep - len(s.ring)
		if cap(s.ring) < s.keep {
			r := make([]byte, len(s.ring), s.keep)
			copy(r, s.ring)
			s.ring = r
		}
		s.ring = append(s.ring, p[:n]...)
		p = p[n:]
		s.pos, s.full = 0, true
	}
	for len(p) > 0 {
		n := copy(s.ring[s.pos:], p)
		p = p[n:]
		s.pos = (s.pos + n) % s.keep
	}
}

// tail returns the kept tail in order.
func (s *Stream) tail() []byte {
	if !s.full || s.pos == 0 {
		return s.ring
	}
	t := make([]byte, 0, len(s.ring))
	t = append(t, s.ring[s.pos:]...)
	return append(t, s.ring[:s.pos]...)
}

// Close closes the saved file, if any. It returns the first error of the
// stream's saving, the same as Err.
func (s *Stream) Close() error {
	if s.file != nil {
		if err := s.file.Close(); err != nil && s.err == nil {
			s.err = err
		}
		s.file = nil
	}
	return s.err
}

// Release drops the kept head and tail; counts, Path and Err stay. After
// it, Excerpt shows nothing.
func (s *Stream) Release() {
	s.head, s.ring, s.pos, s.full, s.keep = nil, nil, 0, false, 0
}

// Excerpt is what a report shows of a stream.
type Excerpt struct {
	// Head is the start of the stream; the whole stream when Whole.
	Head []byte
	// Tail is the end of the stream; nil when Whole.
	Tail []byte
	// Whole reports that Head is everything the stream got.
	Whole bool
	// OmittedBytes and OmittedLines count what is in neither Head nor
	// Tail. A line shown in part (see Cut) is not counted as omitted.
	OmittedBytes, OmittedLines int64
	// Cut reports that a line longer than the budget is shown in part,
	// at the end of Head or the start of Tail.
	Cut bool
}

// Excerpt returns the stream whole when it has at most maxBytes bytes and
// maxLines lines, else its first and last lines within those budgets:
// about a third for the head and two thirds for the tail, where a failing
// command prints its verdict. Only whole lines are taken, unless a single
// line is larger than its share; then that line is cut at a UTF-8
// boundary. maxBytes is capped at the keep size.
func (s *Stream) Excerpt(maxBytes, maxLines int) Excerpt {
	maxBytes = max(min(maxBytes, s.keep), 0)
	maxLines = max(maxLines, 0)
	lines := s.Lines()
	if s.total <= int64(maxBytes) && lines <= int64(maxLines) && s.total <= int64(len(s.head)) {
		return Excerpt{Head: s.head, Whole: true}
	}
	hb, hl := maxBytes/3, maxLines/3
	head, headCut := firstLines(s.head, hb, hl)
	tail, tailCut := lastLines(s.tail(), s.total > int64(len(s.ring)), maxBytes-hb, maxLines-hl)
	e := Excerpt{Head: head, Tail: tail, Cut: headCut || tailCut}
	e.OmittedBytes = s.total - int64(len(head)) - int64(len(tail))
	shown := int64(bytes.Count(head, []byte{'\n'}) + bytes.Count(tail, []byte{'\n'}))
	if headCut {
		shown++ // the cut line has no newline in head
	}
	if len(tail) > 0 && tail[len(tail)-1] != '\n' {
		shown++ // the last line, without a newline
	}
	if headCut && tailCut && lines == 1 {
		shown = 1 // one line, shown in part at both ends
	}
	e.OmittedLines = max(lines-shown, 0)
	if e.Tail == nil {
		e.Tail = []byte{}
	}
	return e
}

// firstLines returns the longest run of whole lines at the start of b
// within maxBytes and maxLines; when not even the first line fits, the
// first maxBytes bytes of it, cut at a rune boundary, and true.
func firstLines(b []byte, maxBytes, maxLines int) ([]byte, bool) {
	end, n := 0, 0
	for n < maxLines {
		i := bytes.IndexByte(b[end:], '\n')
		if i < 0 || end+i+1 > maxBytes {
			break
		}
		end += i + 1
		n++
	}
	if n > 0 || maxLines == 0 || maxBytes == 0 || len(b) == 0 {
		return b[:end], false
	}
	cut := min(maxBytes, len(b))
	for cut > 0 && cut < len(b) && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return b[:cut], true
}

// lastLines returns the longest run of whole lines at the end of b within
// maxBytes and maxLines (a last line without a newline counts as one). When
// partial, b does not start at the start of the stream, so its first line
// may be incomplete and is never taken whole. When not even the last line
// fits, the last maxBytes bytes of it, cut at a rune boundary, and true.
func lastLines(b []byte, partial bool, maxBytes, maxLines int) ([]byte, bool) {
	start, n := len(b), 0
	if start > 0 && b[start-1] == '\n' {
		// The final newline belongs to the last line.
		start--
	}
	for n < maxLines && start > 0 {
		i := bytes.LastIndexByte(b[:start], '\n')
		if i < 0 && partial {
			break // the first fragment of a partial tail
		}
		if len(b)-(i+1) > maxBytes {
			break
		}
		start = i // the newline before the line, or -1
		n++
	}
	if n > 0 {
		return b[start+1:], false
	}
	if maxLines == 0 || maxBytes == 0 || len(b) == 0 {
		return nil, false
	}
	cut := max(len(b)-maxBytes, 0)
	for cut < len(b) && !utf8.RuneStart(b[cut]) {
		cut++
	}
	return b[cut:], true
}

// Budget is how much of one command's output a report shows: Bytes and
// Lines of stdout and stderr together.
type Budget struct {
	Bytes, Lines int
}

// DefaultBudget is the report budget of a RUN block when none is set:
// 10 KiB and 256 lines.
var DefaultBudget = Budget{Bytes: 10 << 10, Lines: 256}
