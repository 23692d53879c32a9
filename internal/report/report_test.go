package report

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clada/clada/internal/output"
	"github.com/clada/clada/internal/runner"
)

func TestVisible(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{name: "plain", in: "echo hi", want: "echo hi"},
		{name: "newline and tab kept", in: "a\n\tb", want: "a\n\tb"},
		{name: "escape sequence", in: "echo '\x1b[2J'", want: `echo '\x1b[2J'`},
		{name: "bell", in: "\a", want: `\a`},
		{name: "bidi override", in: "abc\u202edef", want: `abc\u202edef`},
		{name: "zero-width space", in: "a\u200bb", want: `a\u200bb`},
		{name: "C1 control", in: "a\u009bb", want: `a\u009bb`},
		{name: "ordinary unicode", in: "héllo 日本", want: "héllo 日本"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := visible(tt.in); got != tt.want {
				t.Errorf("visible(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// memStream is a Stream holding text, saved nowhere.
func memStream(name, text string) *output.Stream {
	s := output.NewStream(name, output.DefaultBudget.Bytes)
	s.Write([]byte(text))
	return s
}

func TestStreamEscapesOutput(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	r := New(&b, Text, Options{})
	s := memStream("stdout", "plain\n\x1b[2Jcleared\rover\tok\n")
	r.textStream(shown{name: "stdout", s: s, e: s.Excerpt(1000, 100)})
	want := "```stdout\nplain\n\\x1b[2Jcleared\\rover\tok\n```\n"
	if b.String() != want {
		t.Errorf("stream = %q, want %q", b.String(), want)
	}
}

func TestWriteVisibleMatchesVisible(t *testing.T) {
	t.Parallel()
	in := "a\x00b\x1b[2J\u202eé\r" + strings.Repeat("\x00", 40000) + "end"
	var b strings.Builder
	r := New(&b, Text, Options{})
	r.writeVisible([]byte(in))
	if got, want := b.String(), visible(in); got != want {
		t.Errorf("writeVisible differs from visible: %d vs %d bytes", len(got), len(want))
	}
}

func TestStreamEscapesInvalidUTF8(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	r := New(&b, Text, Options{})
	s := memStream("stdout", "A\x9b2JB x\xffy é\n")
	r.textStream(shown{name: "stdout", s: s, e: s.Excerpt(1000, 100)})
	want := "```stdout\nA\\x9b2JB x\\xffy é\n```\n"
	if b.String() != want {
		t.Errorf("stream = %q, want %q", b.String(), want)
	}
}

// TestStatusWords: who stopped a command and which cap killed it are
// named as the front end set them (clada mcp's kill tool, job_max_output).
func TestStatusWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		res    runner.Result
		cap    string
		want   []string
		absent string
	}{
		{name: "Ctrl-C", res: runner.Result{Status: runner.StatusCanceled, Err: context.Canceled},
			want: []string{"interrupted (Ctrl-C) after"}},
		{name: "a cause of its own", res: runner.Result{Status: runner.StatusCanceled, Err: errors.New("by the kill tool")},
			want: []string{"stopped (by the kill tool) after"}, absent: "Ctrl-C"},
		{name: "the run's cap", res: runner.Result{Status: runner.StatusTruncated, Truncated: true, MaxOutput: 1 << 20},
			want: []string{"more than 1 MiB (max_output)", "raise --max-output or max_output in .clada/config.toml"}},
		{name: "clada mcp's cap", res: runner.Result{Status: runner.StatusTruncated, Truncated: true, MaxOutput: 1 << 20}, cap: "job_max_output",
			want: []string{"more than 1 MiB (job_max_output)", "raise job_max_output in .clada/config.toml"}, absent: "--max-output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := ran("", "", 1024)
			*r.Run = tt.res
			var b strings.Builder
			New(&b, Text, Options{CapSetting: tt.cap}).Block(r)
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, b.String())
				}
			}
			if tt.absent != "" && strings.Contains(b.String(), tt.absent) {
				t.Errorf("report has %q:\n%s", tt.absent, b.String())
			}
		})
	}
}
