package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/clada/clada/internal/gateway"
)

// progress shows clada run's progress to the person at a terminal: which
// block starts, its output as it comes (it is saved under .clada/out and
// reported as always), a line every stillEvery while it runs, and how it
// ended and after how long. It writes only to stderr, and only when
// stderr is a terminal and TERM is not dumb: nothing of it reaches a
// piped stdout, a piped stderr, or the report the model reads. Colour
// marks the decisions and outcomes, unless NO_COLOR is set.
//
// The command's output is shown with its control characters made
// visible (ESC as \x1b …), newlines and tabs kept: a command cannot move
// the cursor or rewrite lines on the person's terminal, say to fake a
// question clada asks.
type progress struct {
	w     io.Writer
	color bool
	total int

	mu      sync.Mutex
	block   int
	start   time.Time
	stop    chan struct{}
	midLine bool   // the last output did not end in a newline
	carry   []byte // the start of a UTF-8 character whose rest comes in the next write
	// While clada asks a question (hold), output is kept in held, at
	// most maxHeld bytes (the rest counted in heldDropped), and shown
	// when the question is answered.
	holding     int
	held        []byte
	heldDropped int64
}

// maxHeld bounds what progress keeps of a command's output while a
// question is open; all of it is saved under .clada/out all the same.
const maxHeld = 64 << 10

// stillEvery is how often progress says that a command still runs.
const stillEvery = 15 * time.Second

// newProgress returns the progress of a run of total blocks on stderr,
// or nil when stderr is no terminal or TERM is dumb.
func newProgress(stderr io.Writer, total int, getenv func(string) string) *progress {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) || getenv("TERM") == "dumb" {
		return nil
	}
	return &progress{w: stderr, color: getenv("NO_COLOR") == "", total: total}
}

func (p *progress) paint(code, s string) string {
	if !p.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p *progress) decision(d gateway.Decision) string {
	switch d {
	case gateway.Allow:
		return p.paint("32", string(d))
	case gateway.Ask:
		return p.paint("33", string(d))
	}
	return p.paint("31", string(d))
}

// started is gateway.ExecOptions.Started.
func (p *progress) started(r *gateway.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.block, p.start, p.midLine = r.Index+1, time.Now(), false
	fmt.Fprintf(p.w, "%s [%d/%d] %s %s\n", p.paint("1", "clada:"), r.Index+1, p.total, p.decision(r.Decision), liveText(oneLine(r.Command)))
	p.stop = make(chan struct{})
	go p.tick(p.stop, r.Index+1, p.start)
}

func (p *progress) tick(stop chan struct{}, block int, start time.Time) {
	t := time.NewTicker(stillEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			p.mu.Lock()
			if p.holding > 0 {
				p.mu.Unlock()
				continue
			}
			p.newline()
			fmt.Fprintf(p.w, "%s [%d/%d] still running after %s\n", p.paint("1", "clada:"), block, p.total, now.Sub(start).Round(time.Second))
			p.mu.Unlock()
		}
	}
}

// newline ends a line of output left open, so clada's lines start at
// column 1.
func (p *progress) newline() {
	if p.midLine {
		fmt.Fprintln(p.w)
		p.midLine = false
	}
}

// done is called with each finished block.
func (p *progress) done(r *gateway.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.Status != gateway.StatusRan || r.Index+1 != p.block {
		return
	}
	close(p.stop)
	if len(p.carry) > 0 { // the command ended inside a character
		_, _ = io.WriteString(p.w, liveText(string(p.carry)))
		p.carry = nil
	}
	p.newline()
	d := time.Since(p.start).Round(time.Millisecond)
	if d > time.Second {
		d = d.Round(100 * time.Millisecond)
	}
	outcome := p.paint("32", "ok")
	if !r.Run.OK() {
		outcome = p.paint("31", r.Run.Status.String())
		if r.Run.Status.String() == "exited" {
			outcome = p.paint("31", fmt.Sprintf("exit %d", r.Run.ExitCode))
		}
	}
	fmt.Fprintf(p.w, "%s [%d/%d] %s in %s\n", p.paint("1", "clada:"), r.Index+1, p.total, outcome, d)
}

// Write shows a command's output as it comes.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(b) == 0 {
		return 0, nil
	}
	if p.holding > 0 {
		n := min(len(b), maxHeld-len(p.held))
		p.held = append(p.held, b[:n]...)
		p.heldDropped += int64(len(b) - n)
		return len(b), nil
	}
	return len(b), p.show(b)
}

// hold stops showing the command's output, and the lines that say it
// still runs, until release is called: clada asks the person a question
// on the terminal meanwhile (a host the command wants to reach), and
// nothing the command prints may garble the question or follow it on
// its line. An open output line is ended first. What the command printed
// meanwhile is shown at release (at most 64 KiB of it; the rest is
// counted, and saved under .clada/out as always).
func (p *progress) hold() (release func()) {
	p.mu.Lock()
	p.holding++
	p.newline()
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.holding--; p.holding > 0 {
				return
			}
			held, dropped := p.held, p.heldDropped
			p.held, p.heldDropped = nil, 0
			_ = p.show(held)
			if dropped > 0 {
				p.newline()
				fmt.Fprintf(p.w, "%s [%d/%d] %d more bytes printed while clada asked are not shown here (they are saved under .clada/out)\n",
					p.paint("1", "clada:"), p.block, p.total, dropped)
			}
		})
	}
}

// show writes b, the command's output, as liveText; p.mu is held.
func (p *progress) show(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	text := append(p.carry, b...)
	p.carry = nil
	// A character cut between two writes waits for its rest (at most 3
	// bytes), instead of being shown as invalid bytes.
	if i := incompleteTail(text); i < len(text) {
		p.carry = append([]byte(nil), text[i:]...)
		text = text[:i]
	}
	_, err := io.WriteString(p.w, liveText(string(text)))
	p.midLine = len(text) > 0 && text[len(text)-1] != '\n' || len(p.carry) > 0
	return err
}

// incompleteTail is where a UTF-8 character that b ends in the middle of
// starts, or len(b) when b ends on a character boundary (or in bytes that
// are no UTF-8 at all, which liveText shows as such).
func incompleteTail(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// liveText makes control characters visible except newline and tab: a
// command's output cannot drive the terminal. Invalid UTF-8 is shown as
// \xNN, as is every C0 and C1 control, DEL, and the bidi and zero-width
// characters.
func liveText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, "\\x%02x", r)
		case r >= 0x200b && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0xfeff:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
