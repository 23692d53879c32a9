package main

import (
	"strings"
	"testing"
	"time"

	"github.com/clada/clada/internal/decisionlog"
)

// TestLogLine: an entry's text line shows what happened, and a command
// holding terminal escapes or newlines cannot drive the terminal or forge
// a line of its own.
func TestLogLine(t *testing.T) {
	code, ms := 1, int64(12)
	for _, c := range []struct {
		e          decisionlog.Entry
		want, lack []string
	}{
		{decisionlog.Entry{Entry: "exec", Agent: "claude-code", Command: "go test ./...", Decision: "allow", Rule: "allowed-pattern",
			Status: "ran", ApprovedBy: "allowed-pattern", Pattern: "go test *", Scope: "project", Exit: &code, DurationMS: &ms},
			[]string{"exec/claude-code allow (allowed-pattern) go test ./... · ran: exit 1 · 12 ms · pattern `go test *` (project)"}, nil},
		{decisionlog.Entry{Entry: "run", Command: "rm x", Decision: "ask", Rule: "not-restorable", Status: "ran", ApprovedBy: "prefix", Exit: &code},
			[]string{"approved by the person (prefix)"}, nil},
		{decisionlog.Entry{Entry: "run", Command: "echo \x1b[2J\nclada: fake line", Decision: "deny", Rule: "control-character", Status: "denied"},
			[]string{`echo \u001b[2J …`}, []string{"\x1b", "\n", "fake line"}},
		{decisionlog.Entry{Entry: "check", Command: "ls", Dir: "sub", Decision: "allow", Rule: "spec", Status: "planned", ApprovedBy: "spec"},
			[]string{"check  allow (spec) ls [dir sub]"}, []string{" · "}},
	} {
		c.e.Time = time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
		got := logLine(c.e)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("logLine = %q, lacks %q", got, w)
			}
		}
		for _, w := range c.lack {
			if strings.Contains(got, w) {
				t.Errorf("logLine = %q, has %q", got, w)
			}
		}
	}
}

// TestParseSince: --since takes a duration back from now or a date.
func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.Local)
	for in, want := range map[string]time.Time{
		"24h":                  now.Add(-24 * time.Hour),
		"90":                   now.Add(-90 * time.Second),
		"2026-11-27":           time.Date(2026, 11, 27, 0, 0, 0, 0, time.Local),
		"2026-11-27T10:00:00Z": time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC),
	} {
		got, err := parseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"soon", "-5m", "2026-13-01"} {
		if _, err := parseSince(bad, now); err == nil {
			t.Errorf("parseSince(%q) accepted", bad)
		}
	}
}
