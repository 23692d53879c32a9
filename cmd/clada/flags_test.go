package main

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{in: "5", want: 5 * time.Second},
		{in: "1", want: time.Second},
		{in: " 30 ", want: 30 * time.Second},
		{in: "86400", want: 24 * time.Hour},
		{in: "90s", want: 90 * time.Second},
		{in: "1h30m", want: 90 * time.Minute},
		{in: "0", wantErr: "out of range"},
		{in: "0s", wantErr: "out of range"},
		{in: "500ms", wantErr: "out of range"},
		{in: "86401", wantErr: "out of range"},
		{in: "25h", wantErr: "out of range"},
		{in: "-5", wantErr: "not a duration"},
		{in: "-5s", wantErr: "out of range"},
		{in: "5x", wantErr: "not a duration"},
		{in: "", wantErr: "not a duration"},
		{in: "1e3", wantErr: "not a duration"},
	}
	for _, tt := range tests {
		got, err := parseTimeout(tt.in)
		switch {
		case tt.wantErr == "" && (err != nil || got != tt.want):
			t.Errorf("parseTimeout(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("parseTimeout(%q) = %v, %v; want an error containing %q", tt.in, got, err, tt.wantErr)
		}
	}
}

func TestRunFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args       []string
		files      []string
		flag, file string
	}{
		{args: nil},
		{args: []string{"a.csl", "b.csl"}, files: []string{"a.csl", "b.csl"}},
		{args: []string{"a.csl", "--dry-run"}, flag: "--dry-run", file: "a.csl"},
		{args: []string{"a.csl", "b.csl", "-x"}, flag: "-x", file: "a.csl"},
		{args: []string{"-", "--format=json"}, flag: "--format=json", file: "-"},
		{args: []string{"a.csl", "-"}, files: []string{"a.csl", "-"}},
		{args: []string{"a.csl", "--", "--dry-run", "--"}, files: []string{"a.csl", "--dry-run", "--"}},
		{args: []string{"-x.csl", "b.csl"}, files: []string{"-x.csl", "b.csl"}},
	}
	for _, tt := range tests {
		files, flag, file := runFiles(tt.args)
		if !slices.Equal(files, tt.files) || flag != tt.flag || file != tt.file {
			t.Errorf("runFiles(%q) = %q, %q, %q; want %q, %q, %q", tt.args, files, flag, file, tt.files, tt.flag, tt.file)
		}
	}
}

// TestHelpExamples: every subcommand's help has examples, and they are
// examples of that subcommand, not of another one.
func TestHelpExamples(t *testing.T) {
	t.Parallel()
	app := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	call := regexp.MustCompile(`\bclada ([a-z-]+)`)
	for _, c := range app.Commands {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			if code := runInProcess([]string{"clada", c.Name, "--help"}, strings.NewReader(""), &out, &errOut); code != exitOK {
				t.Fatalf("clada %s --help exited %d: %s", c.Name, code, &errOut)
			}
			_, ex, ok := strings.Cut(out.String(), "Examples:\n")
			if !ok {
				t.Fatalf("clada %s --help has no examples:\n%s", c.Name, &out)
			}
			ex, _, _ = strings.Cut(ex, "\n\n")
			calls := call.FindAllStringSubmatch(ex, -1)
			if len(calls) == 0 {
				t.Fatalf("clada %s --help: no `clada %s` in the examples:\n%s", c.Name, c.Name, ex)
			}
			for _, m := range calls {
				if m[1] != c.Name {
					t.Errorf("clada %s --help shows an example of clada %s:\n%s", c.Name, m[1], ex)
				}
			}
		})
	}
}
