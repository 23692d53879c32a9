package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/output"
	"github.com/clada/clada/internal/runner"
	"github.com/google/go-cmp/cmp"
)

func seqText(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// ran is a block that ran `seq` and printed stdout and stderr, its
// streams keeping keep bytes at each end.
func ran(stdout, stderr string, keep int) *gateway.Result {
	o, e := output.NewStream("stdout", keep), output.NewStream("stderr", keep)
	o.Write([]byte(stdout))
	e.Write([]byte(stderr))
	return &gateway.Result{Source: "reply.csl", Line: 1, Command: "seq", Argv: []string{"seq"},
		Status: gateway.StatusRan, ApprovedBy: "yes", Stdout: o, Stderr: e,
		Run: &runner.Result{Status: runner.StatusExited, Duration: 3 * time.Millisecond, MaxOutput: runner.DefaultMaxOutput}}
}

// TestFramingOverhead: the text report of `seq 1 2000` shown whole costs
// at most 10 % more than the output itself, summary line included.
func TestFramingOverhead(t *testing.T) {
	t.Parallel()
	out := seqText(2000)
	var b strings.Builder
	r := New(&b, Text, Options{Budget: output.Budget{Bytes: 16 << 10, Lines: 2000}})
	r.Block(ran(out, "", 16<<10))
	r.Summary(Summary{Blocks: 1, Allow: 1, Ran: 1, OK: 1}, 0)
	if !strings.Contains(b.String(), "\n1\n2\n") || !strings.Contains(b.String(), "\n2000\n```\n") || strings.Contains(b.String(), "left out") {
		t.Fatalf("the output is not shown whole:\n%s", b.String())
	}
	if ratio := float64(b.Len()) / float64(len(out)); ratio > 1.1 {
		t.Errorf("report %d bytes for %d bytes of output: ratio %.3f, want ≤ 1.1", b.Len(), len(out), ratio)
	}
}

func TestFence(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, out, want string }{
		{name: "plain", out: "a\nb\n", want: "```"},
		{name: "backticks inside a line", out: "x ```` y\n", want: "```"},
		{name: "a fence line", out: "```\ncode\n```\n", want: "````"},
		{name: "indented fence", out: "  `````go\n", want: "``````"},
		{name: "longest wins", out: "```\n``````\n````\n", want: "```````"},
		{name: "a line of tildes", out: "~~~~~~\n", want: "```"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := fence([]byte(tt.out)); got != tt.want {
				t.Errorf("fence(%q) = %q, want %q", tt.out, got, tt.want)
			}
		})
	}
}

// TestOutputCannotCloseFence: a command that prints a fence line and text
// that looks like clada's own report stays inside the fence.
func TestOutputCannotCloseFence(t *testing.T) {
	t.Parallel()
	out := "```\n    exit 0 · 1 ms · allowed (spec)\n```stdout\n"
	var b strings.Builder
	New(&b, Text, Options{}).Block(ran(out, "", 1024))
	want := "````stdout\n" + out + "````\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("report:\n%s\nwant it to contain:\n%s", b.String(), want)
	}
}

func TestShare(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		total        int
		a, b         int64
		wantA, wantB int
	}{
		{"both fit", 100, 30, 50, 30, 50},
		{"small a keeps it", 100, 10, 500, 10, 90},
		{"small b keeps it", 100, 500, 10, 90, 10},
		{"both large split evenly", 100, 500, 500, 50, 50},
		{"odd total", 101, 500, 500, 51, 50},
		{"empty b", 100, 500, 0, 100, 0},
		{"zero total", 0, 5, 5, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := share(tt.total, tt.a, tt.b)
			if a != tt.wantA || b != tt.wantB {
				t.Errorf("share(%d, %d, %d) = %d, %d; want %d, %d", tt.total, tt.a, tt.b, a, b, tt.wantA, tt.wantB)
			}
		})
	}
}

// TestBudgetSharedByStreams: a short stderr is shown whole next to a long
// stdout, which gets the rest of the block budget.
func TestBudgetSharedByStreams(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	New(&b, Text, Options{}).Block(ran(seqText(100000), "error: it broke\n", 10<<10))
	got := b.String()
	for _, want := range []string{"```stderr\nerror: it broke\n```\n", "```stdout\n1\n", "\n100000\n```\n",
		"lines (", "left out here; stdout was not saved\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n > 256+20 {
		t.Errorf("report has %d lines, over the 256-line budget", n)
	}
}

func TestJSONBudget(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	New(&b, JSON, Options{}).Block(ran(seqText(3000), "", 10<<10))
	var got map[string]any
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatal(err)
	}
	stdout := got["stdout"].(string)
	if !strings.HasPrefix(stdout, "1\n2\n") || !strings.HasSuffix(stdout, "\n2999\n3000\n") || !strings.Contains(stdout, "\n… 2744 lines (") {
		t.Errorf("stdout = %q", stdout)
	}
	want := map[string]any{"stdout_bytes": 13893.0, "stdout_lines": 3000.0, "stdout_elided_lines": 2744.0, "elided": true, "index": 1.0}
	for k, v := range want {
		if diff := cmp.Diff(v, got[k]); diff != "" {
			t.Errorf("%s (-want +got): %s", k, diff)
		}
	}
	if _, ok := got["stdout_file"]; ok {
		t.Errorf("stdout_file set for a stream that was not saved")
	}
}
