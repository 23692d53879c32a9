package approve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var testQuestion = Question{Command: "npm test", Dir: "sub/", Why: "not in clada's specs"}

const testPrompt = "clada: run `npm test` in sub/ (not in clada's specs)? [y]es, [n]o, [a]lways, ne[v]er (60s): "

func TestAsk(t *testing.T) {
	t.Parallel()
	const hint = "clada: please answer y (yes), n (no), a (always) or v (never)\n"
	tests := []struct {
		name       string
		in         string
		want       Answer
		wantReason NoReason
		wantOut    string
	}{
		{name: "y", in: "y\n", want: Yes, wantOut: testPrompt},
		{name: "yes upper", in: "YES\n", want: Yes, wantOut: testPrompt},
		{name: "n", in: "n\n", want: No, wantReason: NoAnswered, wantOut: testPrompt},
		{name: "no blanks", in: "  No \r\n", want: No, wantReason: NoAnswered, wantOut: testPrompt},
		{name: "a", in: "a\n", want: Always, wantOut: testPrompt},
		{name: "always mixed case", in: "Always\n", want: Always, wantOut: testPrompt},
		{name: "v", in: "v\n", want: Never, wantReason: NoAnswered, wantOut: testPrompt},
		{name: "never", in: "NEVER\n", want: Never, wantReason: NoAnswered, wantOut: testPrompt},
		{name: "retry after bad input", in: "maybe\n\nyes please\ny\n", want: Yes,
			wantOut: testPrompt + hint + testPrompt + hint + testPrompt + hint + testPrompt},
		{name: "eof", in: "", want: No, wantReason: NoEOF, wantOut: testPrompt + "\nclada: end of input: not approved\n"},
		{name: "partial line then eof", in: "y", want: No, wantReason: NoEOF, wantOut: testPrompt + "\nclada: end of input: not approved\n"},
		{name: "bad input then eof", in: "x\n", want: No, wantReason: NoEOF,
			wantOut: testPrompt + hint + testPrompt + "\nclada: end of input: not approved\n"},
		{name: "p is no answer without a prefix offered", in: "p\nprefix\nn\n", want: No, wantReason: NoAnswered,
			wantOut: testPrompt + hint + testPrompt + hint + testPrompt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			p := NewPrompter(strings.NewReader(tt.in), &out)
			got, why, err := p.Ask(context.Background(), testQuestion, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || why != tt.wantReason {
				t.Errorf("Ask(%q) = %v, %q; want %v, %q", tt.in, got, why, tt.want, tt.wantReason)
			}
			if out.String() != tt.wantOut {
				t.Errorf("output:\n%q\nwant\n%q", out.String(), tt.wantOut)
			}
		})
	}
}

func TestAskPrefix(t *testing.T) {
	t.Parallel()
	q := Question{Command: "go test ./...", Why: "runs project code", Prefix: "go test *"}
	const ask = "clada: run `go test ./...` (runs project code)? [y]es, [n]o, [a]lways, [p]refix `go test *`, ne[v]er (60s): "
	const hint = "clada: please answer y (yes), n (no), a (always), p (always `go test *`) or v (never)\n"
	for _, tt := range []struct {
		in, out string
		want    Answer
	}{
		{"p\n", ask, AlwaysPrefix},
		{"Prefix\n", ask, AlwaysPrefix},
		{"a\n", ask, Always},
		{"x\ny\n", ask + hint + ask, Yes},
	} {
		var out bytes.Buffer
		got, _, err := NewPrompter(strings.NewReader(tt.in), &out).Ask(context.Background(), q, 0)
		if err != nil || got != tt.want {
			t.Errorf("Ask(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if out.String() != tt.out {
			t.Errorf("Ask(%q) output:\n%q\nwant\n%q", tt.in, out.String(), tt.out)
		}
	}
}

func TestAskSeveralQuestions(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := NewPrompter(strings.NewReader("y\nhuh\nv\n"), &out)
	for i, want := range []Answer{Yes, Never, No} {
		got, _, err := p.Ask(context.Background(), Question{Command: "make"}, time.Minute)
		if err != nil || got != want {
			t.Errorf("question %d: %v, %v; want %v", i, got, err, want)
		}
	}
	if !strings.HasPrefix(out.String(), "clada: run `make`? [y]es, [n]o, [a]lways, ne[v]er (60s): ") {
		t.Errorf("prompt without dir and reason: %q", out.String())
	}
}

func TestAskTimeout(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe()
	defer w.Close()
	var out syncBuffer
	p := NewPrompter(r, &out)
	start := time.Now()
	got, why, err := p.Ask(context.Background(), testQuestion, 100*time.Millisecond)
	if err != nil || got != No || why != NoTimeout {
		t.Fatalf("Ask = %v, %q, %v; want no, timed out", got, why, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("timeout took %v", d)
	}
	if !strings.HasSuffix(out.String(), "\nclada: no answer within 0s: not approved\n") {
		t.Errorf("output %q", out.String())
	}

	// A late answer to the first question must not answer the second.
	if _, err := io.WriteString(w, "y\n"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(p.res) == 1 })
	go io.WriteString(w, "n\n")
	got, why, err = p.Ask(context.Background(), testQuestion, time.Minute)
	if err != nil || got != No || why != NoAnswered {
		t.Errorf("second Ask = %v, %q, %v; want the second line, no", got, why, err)
	}
}

// stepClock is a Clock on which each NewTimer fires at once and Now
// jumps by step at every call, so a question with a 30 s timeout and a
// bad answer shows the time left as it passes on that clock.
type stepClock struct {
	mu     sync.Mutex
	now    time.Time
	step   time.Duration
	timers []time.Duration // what NewTimer was asked for
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

func (c *stepClock) NewTimer(d time.Duration) *time.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timers = append(c.timers, d)
	return time.NewTimer(0)
}

// TestAskClock: the approval timeout is measured on the Prompter's clock,
// and what the person is shown is the time on that clock.
func TestAskClock(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe()
	defer w.Close()
	var out syncBuffer
	p := NewPrompter(r, &out)
	clock := &stepClock{step: 10 * time.Second}
	p.SetClock(clock)
	got, why, err := p.Ask(context.Background(), testQuestion, 30*time.Second)
	if err != nil || got != No || why != NoTimeout {
		t.Fatalf("Ask = %v, %q, %v; want no, timed out", got, why, err)
	}
	if want := []time.Duration{30 * time.Second}; !slices.Equal(clock.timers, want) {
		t.Errorf("the clock's timers = %v, want %v", clock.timers, want)
	}
	if !strings.Contains(out.String(), "(30s): ") || !strings.HasSuffix(out.String(), "\nclada: no answer within 30s: not approved\n") {
		t.Errorf("output %q: want the question with 30s and the timeout message with 30s", out.String())
	}
}

func TestAskTimeoutKeepsPendingRead(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe()
	defer w.Close()
	var out syncBuffer
	p := NewPrompter(r, &out)
	if got, why, _ := p.Ask(context.Background(), testQuestion, 50*time.Millisecond); got != No || why != NoTimeout {
		t.Fatalf("first Ask = %v, %q", got, why)
	}
	// The read started for the first question is still waiting; the
	// second question uses it rather than starting another one. The
	// answer is typed once the second question is shown: a line that
	// arrives before that is dropped as a late answer to the first.
	go func() {
		for strings.Count(out.String(), "[y]es") < 2 {
			time.Sleep(time.Millisecond)
		}
		io.WriteString(w, "a\n")
	}()
	got, why, err := p.Ask(context.Background(), testQuestion, time.Minute)
	if err != nil || got != Always || why != "" {
		t.Errorf("second Ask = %v, %q, %v; want always", got, why, err)
	}
}

func TestNoTerminal(t *testing.T) {
	t.Parallel()
	failing := func() (io.ReadCloser, io.WriteCloser, error) {
		return nil, nil, errors.Join(ErrNoTTY, errors.New("open /dev/tty: no such device or address"))
	}
	p, err := Open(failing)
	if err != nil {
		t.Fatal(err)
	}
	got, why, err := p.Ask(context.Background(), testQuestion, time.Minute)
	if err != nil || got != No || why != NoTTY {
		t.Errorf("Ask without terminal = %v, %q, %v; want no, no terminal", got, why, err)
	}
	if err := p.Say("wrote %s", "x"); err != nil {
		t.Error(err)
	}
	if err := p.Close(); err != nil {
		t.Error(err)
	}

	var nilPrompter *Prompter
	if got, why, err := nilPrompter.Ask(context.Background(), testQuestion, time.Minute); got != No || why != NoTTY || err != nil {
		t.Errorf("nil Prompter: %v, %q, %v", got, why, err)
	}

	other := errors.New("permission denied")
	if _, err := Open(func() (io.ReadCloser, io.WriteCloser, error) { return nil, nil, other }); !errors.Is(err, other) {
		t.Errorf("Open with another error = %v", err)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func TestOpenCloseSay(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe()
	var out syncBuffer
	p, err := Open(func() (io.ReadCloser, io.WriteCloser, error) { return r, nopCloser{&out}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Say("wrote %s", "/p/.clada/commands.toml\x1b[2J"); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "clada: wrote /p/.clada/commands.toml\\x1b[2J\n"; got != want {
		t.Errorf("Say wrote %q, want %q", got, want)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		got, why, err := p.Ask(context.Background(), testQuestion, time.Minute)
		if got != No || why != NoTTY || err == nil {
			t.Errorf("Ask interrupted by Close = %v, %q, %v; want no with an error", got, why, err)
		}
	}()
	waitFor(t, func() bool { return strings.Contains(out.String(), "[y]es") })
	if err := p.Close(); err != nil {
		t.Error(err)
	}
	<-done
	w.Close()
	if _, _, err := p.Ask(context.Background(), testQuestion, time.Minute); !errors.Is(err, ErrClosed) {
		t.Errorf("Ask after Close: %v, want ErrClosed", err)
	}
}

func TestPromptShowsEscapes(t *testing.T) {
	t.Parallel()
	q := Question{Command: "echo '\x1b[31mred'", Dir: "a\u202eb", Why: "x\u200by"}
	got := prompt(q, 10*time.Second)
	want := "clada: run `echo '\\x1b[31mred'` in a\\u202Eb (x\\u200By)? [y]es, [n]o, [a]lways, ne[v]er (10s): "
	if got != want {
		t.Errorf("prompt:\n%q\nwant\n%q", got, want)
	}
	if got := visible("grüße \t\xff"); got != `grüße \x09\uFFFD` {
		t.Errorf("visible = %q", got)
	}
}

// The person sees whether the command gets the network.
func TestPromptSaysSandbox(t *testing.T) {
	t.Parallel()
	for sb, want := range map[string]string{
		"sandboxed, no network":   "clada: run `npm install` (`npm` is not in clada's specs) [sandboxed, no network]? [y]es, [n]o, [a]lways, ne[v]er (10s): ",
		"sandboxed, with network": "clada: run `npm install` (`npm` is not in clada's specs) [sandboxed, with network]? [y]es, [n]o, [a]lways, ne[v]er (10s): ",
		"":                        "clada: run `npm install` (`npm` is not in clada's specs)? [y]es, [n]o, [a]lways, ne[v]er (10s): ",
	} {
		q := Question{Command: "npm install", Why: "`npm` is not in clada's specs", Sandbox: sb}
		if got := prompt(q, 10*time.Second); got != want {
			t.Errorf("prompt:\n%q\nwant\n%q", got, want)
		}
	}
}

func TestAnswerString(t *testing.T) {
	t.Parallel()
	for a, want := range map[Answer]string{No: "no", Yes: "yes", Always: "always", Never: "never", AlwaysPrefix: "prefix"} {
		if a.String() != want {
			t.Errorf("%d.String() = %q, want %q", a, a.String(), want)
		}
	}
}

// Cancelling the context ends an open question at once with No and
// NoInterrupted, and the answer typed afterwards goes to the next question.
func TestAskCancelled(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe()
	defer w.Close()
	var out syncBuffer
	p := NewPrompter(r, &out)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for !strings.Contains(out.String(), "[y]es") {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	got, why, err := p.Ask(ctx, testQuestion, time.Minute)
	if err != nil || got != No || why != NoInterrupted {
		t.Fatalf("Ask = %v, %q, %v; want no, interrupted", got, why, err)
	}
	if !strings.HasSuffix(out.String(), "\nclada: interrupted: not approved\n") {
		t.Errorf("output %q", out.String())
	}
	// An already cancelled context asks nothing.
	before := out.String()
	if got, why, _ := p.Ask(ctx, testQuestion, time.Minute); got != No || why != NoInterrupted || out.String() != before {
		t.Errorf("Ask on a cancelled context = %v, %q and wrote %q", got, why, strings.TrimPrefix(out.String(), before))
	}
	go func() {
		for strings.Count(out.String(), "[y]es") < 2 {
			time.Sleep(time.Millisecond)
		}
		io.WriteString(w, "y\n")
	}()
	if got, why, err := p.Ask(context.Background(), testQuestion, time.Minute); err != nil || got != Yes {
		t.Errorf("next Ask = %v, %q, %v; want yes", got, why, err)
	}
}
