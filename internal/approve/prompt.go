package approve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Answer is what the person at the terminal decided.
type Answer int

// The answers. The zero Answer is No.
const (
	No     Answer = iota // do not run it
	Yes                  // run it once
	Always               // run it and add it to allowed
	Never                // do not run it and add it to blocked
	// AlwaysPrefix runs it and adds the question's Prefix pattern to
	// allowed; only an answer when the question offers one.
	AlwaysPrefix
)

func (a Answer) String() string {
	switch a {
	case Yes:
		return "yes"
	case Always:
		return "always"
	case Never:
		return "never"
	case AlwaysPrefix:
		return "prefix"
	default:
		return "no"
	}
}

// NoReason says why a command was not approved; "" when it was.
type NoReason string

// The reasons for not approving. They appear in reports, so they never
// change.
const (
	NoAnswered NoReason = "answered no"  // n/no or v/never
	NoTimeout  NoReason = "timed out"    // no answer within the approval timeout
	NoEOF      NoReason = "end of input" // Ctrl-D or the terminal's input ended
	NoTTY      NoReason = "no terminal"  // no controlling terminal, or it failed
	// NoInterrupted: the question was cancelled (Ctrl-C, SIGTERM, the
	// client went away) before an answer came.
	NoInterrupted NoReason = "interrupted"
)

// ErrNoTTY is returned by [OpenTTY] when there is no terminal to ask.
var ErrNoTTY = errors.New("no controlling terminal")

// ErrClosed is returned by [Prompter.Ask] after [Prompter.Close].
var ErrClosed = errors.New("approve: prompter closed")

// Question is what [Prompter.Ask] shows.
type Question struct {
	// Command is the command, each word already quoted by the caller, so
	// that what is approved is exactly what runs.
	Command string
	Dir     string // the block's directory as the model wrote it, "" for the root
	Why     string // why clada asks, e.g. "not in clada's specs"; "" for none
	// Prefix is the prefix pattern offered besides the exact command
	// ("go test *"), already quoted; "" offers none, and then p/prefix is
	// no answer.
	Prefix string
	// Sandbox says how the command will run, so the person knows what
	// they let through: "sandboxed, no network", "sandboxed, with
	// network" or "unconfined"; "" says nothing.
	Sandbox string
}

// Prompter asks questions on a terminal. One goroutine reads the terminal
// and at most one read is outstanding, so a line read after a question
// timed out is neither lost nor taken twice: it is dropped before the next
// question. A nil *Prompter answers every question No with [NoTTY].
type Prompter struct {
	out     io.Writer
	closers []io.Closer
	noTTY   bool

	mu      sync.Mutex // held by Ask for a whole question
	start   sync.Once
	in      io.Reader
	req     chan struct{}   // asks the reader for one line
	res     chan readResult // its answer; cap 1
	pending bool            // a line was requested and not received
	closed  bool
	clock   Clock // nil: the real clock
}

// Clock is where a [Prompter] reads the time of its approval timeout.
// The real clock is time.Now and time.NewTimer; tests of clada's binary
// give a faster one, so that waiting out the shortest allowed approval
// timeout (10 s) takes a fraction of a second while clada still shows and
// reports the configured time.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) *time.Timer
}

// SetClock makes p measure its approval timeout with c; nil is the real
// clock.
func (p *Prompter) SetClock(c Clock) {
	if p != nil {
		p.clock = c
	}
}

func (p *Prompter) now() time.Time {
	if p.clock == nil {
		return time.Now()
	}
	return p.clock.Now()
}

func (p *Prompter) newTimer(d time.Duration) *time.Timer {
	if p.clock == nil {
		return time.NewTimer(d)
	}
	return p.clock.NewTimer(d)
}

type readResult struct {
	line string
	err  error
}

// inputDiscarder is implemented by terminals that can drop type-ahead,
// so that a key pressed before the question was shown never answers it.
type inputDiscarder interface{ discardInput() error }

// NewPrompter returns a Prompter that reads answers from in and writes
// questions to out. in should be the terminal ([OpenTTY]), never stdin.
func NewPrompter(in io.Reader, out io.Writer) *Prompter {
	return &Prompter{in: in, out: out, req: make(chan struct{}, 1), res: make(chan readResult, 1)}
}

// Opener opens a terminal; [OpenTTY] is the real one.
type Opener func() (in io.ReadCloser, out io.WriteCloser, err error)

// Open opens a terminal with open (OpenTTY when nil) and returns a
// Prompter on it, which [Prompter.Close] closes. When open fails with
// [ErrNoTTY] it returns a Prompter that answers every question No with
// [NoTTY], and a nil error; other errors are returned.
func Open(open Opener) (*Prompter, error) {
	if open == nil {
		open = OpenTTY
	}
	in, out, err := open()
	if errors.Is(err, ErrNoTTY) {
		return &Prompter{noTTY: true}, nil
	}
	if err != nil {
		return nil, err
	}
	p := NewPrompter(in, out)
	p.closers = []io.Closer{in, out}
	return p, nil
}

// Terminal reports whether p asks on a terminal: false for a nil
// Prompter and for the one [Open] returns when there is none.
func (p *Prompter) Terminal() bool { return p != nil && !p.noTTY }

// Close closes the terminal opened by [Open] and stops the reader. Ask
// returns [ErrClosed] afterwards.
func (p *Prompter) Close() error {
	if p == nil {
		return nil
	}
	var errs []error
	for _, c := range p.closers {
		errs = append(errs, c.Close())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed && p.req != nil {
		close(p.req)
	}
	p.closed = true
	return errors.Join(errs...)
}

// Say writes one line, prefixed "clada: ", to the terminal, e.g. the path
// of the file written after always or never. It does nothing without a
// terminal.
func (p *Prompter) Say(format string, args ...any) error {
	if p == nil || p.noTTY {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := fmt.Fprintf(p.out, "clada: %s\n", visible(fmt.Sprintf(format, args...)))
	return err
}

// Ask shows q and waits at most timeout (DefaultApprovalTimeout when zero
// or negative) for y/yes, n/no, a/always or v/never, and p/prefix when
// q offers a Prefix, in any case; other input asks again, within the same time limit. It returns the answer and,
// when it is No or Never, why. End of input, also after a partial line,
// is No with [NoEOF]; no answer in time is No with [NoTimeout]; no
// terminal is No with [NoTTY]. Cancelling ctx ends the question at once:
// No with [NoInterrupted]. A read or write error is No with NoTTY and
// the error: Ask never approves when it returns an error.
func (p *Prompter) Ask(ctx context.Context, q Question, timeout time.Duration) (Answer, NoReason, error) {
	return p.ask(ctx, func(left time.Duration) string { return prompt(q, left) }, retry(q),
		func(a Answer) bool { return a != AlwaysPrefix || q.Prefix != "" }, timeout)
}

// HostQuestion is what [Prompter.AskHost] shows: a command that is
// running wants to reach a host that its grants do not include, and
// clada's proxy holds the connection until the person answers.
type HostQuestion struct {
	// Command is the running command, each word already quoted.
	Command string
	// Host is the destination, "host:port" (an IPv6 literal in
	// brackets), as the proxy names it.
	Host string
	// Pattern is the pattern always and never remember the host for
	// (the command itself, or the allowed pattern that let it run),
	// already quoted.
	Pattern string
}

// AskHost asks q and waits as [Prompter.Ask] does, for y/yes (this run of
// the command), n/no, a/always or v/never; p/prefix is no answer here.
func (p *Prompter) AskHost(ctx context.Context, q HostQuestion, timeout time.Duration) (Answer, NoReason, error) {
	return p.ask(ctx, func(left time.Duration) string { return hostPrompt(q, left) },
		"clada: please answer y (yes, this run), n (no), a (always) or v (never)\n",
		func(a Answer) bool { return a != AlwaysPrefix }, timeout)
}

// ask shows the question text(left) and reads answers that accept takes
// until one comes, the time runs out or ctx ends; after other input it
// shows again, and the question again.
func (p *Prompter) ask(ctx context.Context, text func(left time.Duration) string, again string, accept func(Answer) bool, timeout time.Duration) (Answer, NoReason, error) {
	if p == nil || p.noTTY {
		return No, NoTTY, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return No, NoTTY, ErrClosed
	}
	if ctx.Err() != nil {
		return No, NoInterrupted, nil
	}
	if timeout <= 0 {
		timeout = DefaultApprovalTimeout
	}
	p.start.Do(func() { go p.read() })
	deadline := p.now().Add(timeout)
	timer := p.newTimer(timeout)
	defer timer.Stop()

	// Drop what was typed for an earlier question that timed out, and
	// type-ahead that the terminal still holds.
	if p.pending {
		select {
		case <-p.res:
			p.pending = false
		default:
		}
	}
	if d, ok := p.in.(inputDiscarder); ok && !p.pending {
		_ = d.discardInput() // best effort: not every terminal can
	}

	left := timeout
	for {
		if _, err := io.WriteString(p.out, text(left)); err != nil {
			return No, NoTTY, fmt.Errorf("writing the question: %w", err)
		}
		if !p.pending {
			p.req <- struct{}{}
			p.pending = true
		}
		select {
		case r := <-p.res:
			p.pending = false
			if r.err == io.EOF {
				_, _ = io.WriteString(p.out, "\nclada: end of input: not approved\n")
				return No, NoEOF, nil
			}
			if r.err != nil {
				return No, NoTTY, fmt.Errorf("reading the answer: %w", r.err)
			}
			if a, ok := parseAnswer(r.line); ok && accept(a) {
				if a == No || a == Never {
					return a, NoAnswered, nil
				}
				return a, "", nil
			}
			_, _ = io.WriteString(p.out, again)
			left = deadline.Sub(p.now())
		case <-timer.C:
			_, _ = fmt.Fprintf(p.out, "\nclada: no answer within %s: not approved\n", FormatDuration(timeout.Round(time.Second)))
			return No, NoTimeout, nil
		case <-ctx.Done():
			// The line being read, if one comes, is dropped before
			// the next question (pending stays set).
			_, _ = io.WriteString(p.out, "\nclada: interrupted: not approved\n")
			return No, NoInterrupted, nil
		}
	}
}

// read serves one line per request until Close.
func (p *Prompter) read() {
	br := bufio.NewReader(p.in)
	for range p.req {
		// A partial line ended by Ctrl-D comes with io.EOF and is
		// not an answer.
		line, err := br.ReadString('\n')
		p.res <- readResult{line, err}
	}
}

func parseAnswer(line string) (Answer, bool) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return Yes, true
	case "n", "no":
		return No, true
	case "a", "always":
		return Always, true
	case "v", "never":
		return Never, true
	case "p", "prefix":
		return AlwaysPrefix, true
	}
	return No, false
}

// retry is the line shown after input that is no answer.
func retry(q Question) string {
	if q.Prefix != "" {
		return "clada: please answer y (yes), n (no), a (always), p (always `" + visible(q.Prefix) + "`) or v (never)\n"
	}
	return "clada: please answer y (yes), n (no), a (always) or v (never)\n"
}

// prompt is the question line, e.g.
//
//	clada: run `npm test` in sub/ (not in clada's specs) [sandboxed, no network]? [y]es, [n]o, [a]lways, ne[v]er (60s):
//
// or, offering a prefix pattern,
//
//	clada: run `go test ./...` (…)? [y]es, [n]o, [a]lways, [p]refix `go test *`, ne[v]er (60s):
func prompt(q Question, left time.Duration) string {
	var b strings.Builder
	b.WriteString("clada: run `")
	b.WriteString(visible(q.Command))
	b.WriteString("`")
	if q.Dir != "" {
		b.WriteString(" in ")
		b.WriteString(visible(q.Dir))
	}
	if q.Why != "" {
		b.WriteString(" (")
		b.WriteString(visible(q.Why))
		b.WriteString(")")
	}
	if q.Sandbox != "" {
		b.WriteString(" [")
		b.WriteString(visible(q.Sandbox))
		b.WriteString("]")
	}
	secs := max(int((left+time.Second/2)/time.Second), 1)
	b.WriteString("? [y]es, [n]o, [a]lways, ")
	if q.Prefix != "" {
		b.WriteString("[p]refix `")
		b.WriteString(visible(q.Prefix))
		b.WriteString("`, ")
	}
	fmt.Fprintf(&b, "ne[v]er (%ds): ", secs)
	return b.String()
}

// hostPrompt is the question about a host, e.g.
//
//	clada: `npm install` is running and wants to reach evil.example:443, which it was not granted. Let it? [y]es (this run), [n]o, [a]lways (for `npm install`), ne[v]er (60s):
func hostPrompt(q HostQuestion, left time.Duration) string {
	var b strings.Builder
	b.WriteString("clada: `")
	b.WriteString(visible(q.Command))
	b.WriteString("` is running and wants to reach ")
	b.WriteString(visible(q.Host))
	b.WriteString(", which it was not granted. Let it? [y]es (this run), [n]o, [a]lways (for `")
	b.WriteString(visible(q.Pattern))
	secs := max(int((left+time.Second/2)/time.Second), 1)
	fmt.Fprintf(&b, "`), ne[v]er (%ds): ", secs)
	return b.String()
}

// visible escapes characters that would change how the terminal shows
// the text (control characters, escape sequences, bidi controls,
// zero-width characters), so the person sees every character that runs.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == unicode.ReplacementChar:
			b.WriteString(`\uFFFD`)
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.Is(unicode.Bidi_Control, r), unicode.Is(unicode.Cf, r), r == 0x2028, r == 0x2029:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
