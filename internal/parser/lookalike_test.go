package parser

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/rules"
)

func TestLookalikeAndBackslash(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		windows  bool
		want     []string
		wantRule rules.Rule
		wantWord string
		reason   string
	}{
		{name: "hyphen U+2010", in: "rm \u2010rf sub", wantRule: rules.Lookalike, wantWord: "\u2010rf", reason: "rm would take it as a file name"},
		{name: "non-breaking hyphen", in: "rm \u2011f x", wantRule: rules.Lookalike},
		{name: "en dash", in: "ls \u2013la", wantRule: rules.Lookalike},
		{name: "em dash", in: "ls \u2014la", wantRule: rules.Lookalike},
		{name: "horizontal bar", in: "ls \u2015a", wantRule: rules.Lookalike},
		{name: "minus sign", in: "head \u2212n 5 a.txt", wantRule: rules.Lookalike},
		{name: "small hyphen-minus", in: "ls \ufe63a", wantRule: rules.Lookalike},
		{name: "fullwidth hyphen-minus", in: "ls \uff0da", wantRule: rules.Lookalike},
		{name: "quoted lookalike", in: "rm '\u2010rf' sub", wantRule: rules.Lookalike, reason: "quoting does not change what the program sees"},
		{name: "fullwidth letter after dash", in: "rm -\uff52f sub", wantRule: rules.Lookalike},
		{name: "non-ASCII after double dash", in: "ls --\u0430ll", wantRule: rules.Lookalike, reason: "Cyrillic a"},
		{name: "dash lookalike inside an argument is text", in: "echo a\u2013b", want: []string{"echo", "a\u2013b"}},
		{name: "non-ASCII flag value", in: "grep -e\u00e9t\u00e9 a.txt", want: []string{"grep", "-e\u00e9t\u00e9", "a.txt"}, reason: "the flag letter is e"},
		{name: "non-ASCII operand", in: "cat h\u00e9llo.txt", want: []string{"cat", "h\u00e9llo.txt"}},
		{name: "ASCII flags", in: "ls -la --all -- -x", want: []string{"ls", "-la", "--all", "--", "-x"}},
		{name: "lone dash", in: "cat -", want: []string{"cat", "-"}},

		{name: "unix keeps backslash escapes", in: `cat calc\calc.go`, want: []string{"cat", "calccalc.go"}},
		{name: "windows refuses a consumed backslash", in: `cat calc\calc.go`, windows: true, wantRule: rules.Backslash, wantWord: `calc\calc.go`},
		{name: "windows refuses an escaped space", in: `cat a\ b`, windows: true, wantRule: rules.Backslash},
		{name: "windows refuses a doubled backslash in double quotes", in: `cat "a\\b"`, windows: true, wantRule: rules.Backslash},
		{name: "windows refuses an escaped quote", in: `echo "say \"hi\""`, windows: true, wantRule: rules.Backslash},
		{name: "windows keeps single-quoted backslashes", in: `cat 'calc\calc.go'`, windows: true, want: []string{"cat", `calc\calc.go`}},
		{name: "windows keeps a backslash before a plain letter in double quotes", in: `cat "calc\calc.go"`, windows: true, want: []string{"cat", `calc\calc.go`}, reason: "bash keeps it"},
		{name: "windows allows slashes", in: `cat calc/calc.go`, windows: true, want: []string{"cat", "calc/calc.go"}},
		{name: "windows allows a continuation between words", in: "ls \\\n  -la", windows: true, want: []string{"ls", "-la"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := New().ForWindows(tt.windows).Command(tt.in)
			if tt.wantRule == "" {
				if err != nil {
					t.Fatalf("Command(%q) = %v, want %q", tt.in, err, tt.want)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Command(%q) mismatch (-want +got):\n%s", tt.in, diff)
				}
				return
			}
			var d *rules.Denied
			if !errors.As(err, &d) {
				t.Fatalf("Command(%q) = %q, %v; want rule %s", tt.in, got, err, tt.wantRule)
			}
			if d.Rule != tt.wantRule || (tt.wantWord != "" && d.Word != tt.wantWord) {
				t.Errorf("Command(%q) = %s %q (%s), want %s %q", tt.in, d.Rule, d.Word, d.Reason, tt.wantRule, tt.wantWord)
			}
			if d.Reason == "" || d.Advice == "" || d.Col == 0 {
				t.Errorf("Command(%q) = %+v: a refusal needs a reason, advice and position", tt.in, d)
			}
		})
	}
}
