package report

import (
	"strings"
	"testing"
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

func TestStreamEscapesOutput(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	r := New(&b, Text, false)
	r.stream("stdout", []byte("plain\n\x1b[2Jcleared\rover\tok\n"))
	want := "    stdout:\n    | plain\n    | \\x1b[2Jcleared\\rover\tok\n"
	if b.String() != want {
		t.Errorf("stream = %q, want %q", b.String(), want)
	}
}

func TestWriteVisibleMatchesVisible(t *testing.T) {
	t.Parallel()
	in := "a\x00b\x1b[2J\u202eé\r" + strings.Repeat("\x00", 40000) + "end"
	var b strings.Builder
	r := New(&b, Text, false)
	r.writeVisible([]byte(in))
	if got, want := b.String(), visible(in); got != want {
		t.Errorf("writeVisible differs from visible: %d vs %d bytes", len(got), len(want))
	}
}

func TestStreamEscapesInvalidUTF8(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	r := New(&b, Text, false)
	r.stream("stdout", []byte("A\x9b2JB x\xffy é\n"))
	want := "    stdout:\n    | A\\x9b2JB x\\xffy é\n"
	if b.String() != want {
		t.Errorf("stream = %q, want %q", b.String(), want)
	}
}
