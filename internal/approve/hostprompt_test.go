package approve

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

var testHostQuestion = HostQuestion{Command: "npm install", Host: "evil.example:443", Pattern: "npm install"}

const testHostPrompt = "clada: `npm install` is running and wants to reach evil.example:443, which it was not granted. " +
	"Let it? [y]es (this run), [n]o, [a]lways (for `npm install`), ne[v]er (60s): "

// TestAskHost: the four answers, and p/prefix, which a host question
// does not offer, is no answer.
func TestAskHost(t *testing.T) {
	t.Parallel()
	const hint = "clada: please answer y (yes, this run), n (no), a (always) or v (never)\n"
	for _, tt := range []struct {
		in      string
		want    Answer
		why     NoReason
		wantOut string
	}{
		{"y\n", Yes, "", testHostPrompt},
		{"always\n", Always, "", testHostPrompt},
		{"n\n", No, NoAnswered, testHostPrompt},
		{"v\n", Never, NoAnswered, testHostPrompt},
		{"p\ny\n", Yes, "", testHostPrompt + hint + testHostPrompt},
		{"", No, NoEOF, testHostPrompt + "\nclada: end of input: not approved\n"},
	} {
		var out bytes.Buffer
		p := NewPrompter(strings.NewReader(tt.in), &out)
		got, why, err := p.AskHost(context.Background(), testHostQuestion, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want || why != tt.why {
			t.Errorf("AskHost(%q) = %v, %q; want %v, %q", tt.in, got, why, tt.want, tt.why)
		}
		if out.String() != tt.wantOut {
			t.Errorf("AskHost(%q) output:\n%q\nwant\n%q", tt.in, out.String(), tt.wantOut)
		}
	}
}

// TestAskHostShowsEscapes: a host name or command with control
// characters, an escape sequence or bidi controls cannot move the cursor,
// clear the line or reorder what the person reads: every such character
// is shown escaped.
func TestAskHostShowsEscapes(t *testing.T) {
	t.Parallel()
	q := HostQuestion{
		Command: "curl \x1b[2K\rclada: run `ls`",
		Host:    "a\x1b]0;x\x07.test\u202e:443",
		Pattern: "curl\r\n*",
	}
	var out bytes.Buffer
	p := NewPrompter(strings.NewReader("n\n"), &out)
	if _, _, err := p.AskHost(context.Background(), q, time.Minute); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, bad := range []string{"\x1b", "\r", "\x07", "\u202e", "\n*"} {
		if strings.Contains(got, bad) {
			t.Errorf("the question shows %q raw: %q", bad, got)
		}
	}
	for _, want := range []string{`\x1b[2K\x0dclada`, `a\x1b]0;x\x07.test\u202E:443`, `curl\x0d\x0a*`} {
		if !strings.Contains(got, want) {
			t.Errorf("the question lacks %q: %q", want, got)
		}
	}
}

// TestAskHostSerialised: questions asked from several goroutines at once
// (two hosts of one command) are shown one after the other, each whole,
// and each gets its own answer.
func TestAskHostSerialised(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	p := NewPrompter(strings.NewReader("y\nn\n"), &out)
	var wg sync.WaitGroup
	answers := make(chan Answer, 2)
	for _, h := range []string{"a.test:443", "b.test:443"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := testHostQuestion
			q.Host = h
			a, _, err := p.AskHost(context.Background(), q, time.Minute)
			if err != nil {
				t.Error(err)
			}
			answers <- a
		}()
	}
	wg.Wait()
	close(answers)
	var yes, no int
	for a := range answers {
		switch a {
		case Yes:
			yes++
		case No:
			no++
		}
	}
	if yes != 1 || no != 1 {
		t.Errorf("answers: %d yes, %d no; want one of each", yes, no)
	}
	got := out.String()
	if strings.Count(got, "wants to reach") != 2 || !strings.HasSuffix(got, "(60s): ") ||
		strings.Count(got, "(60s): clada: `npm install`") != 1 {
		t.Errorf("the two questions are not shown one after the other, whole:\n%q", got)
	}
}
