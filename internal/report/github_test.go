package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clada/clada/internal/gateway"
)

func TestGitHubPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, workdir, repo, source, want string
	}{
		{name: "relative, workdir is the repo", workdir: "/w/repo", repo: "/w/repo", source: "replies/a.csl", want: "replies/a.csl"},
		{name: "relative from a subdirectory", workdir: "/w/repo/sub", repo: "/w/repo", source: "../replies/a.csl", want: "replies/a.csl"},
		{name: "absolute inside", workdir: "/elsewhere", repo: "/w/repo", source: "/w/repo/x/a.csl", want: "x/a.csl"},
		{name: "outside the repo keeps its path", workdir: "/w/repo", repo: "/w/repo", source: "/tmp/a.csl", want: "/tmp/a.csl"},
		{name: "sibling with a common prefix", workdir: "/w", repo: "/w/repo", source: "repo2/a.csl", want: "repo2/a.csl"},
		{name: "stdin", workdir: "/w/repo", repo: "/w/repo", source: "<stdin>", want: "<stdin>"},
		{name: "no repo", workdir: "/w/repo", source: "a.csl", want: "a.csl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := New(nil, GitHub, Options{GitHub: GitHubOptions{Workdir: tt.workdir, Repo: tt.repo}})
			if got := r.githubPath(tt.source); got != tt.want {
				t.Errorf("githubPath(%q) = %q, want %q", tt.source, got, tt.want)
			}
		})
	}
}

// TestGitHubWarningLimit: past 10 warnings the 10th says how many more,
// and the step summary lists all of them with table cells escaped.
func TestGitHubWarningLimit(t *testing.T) {
	t.Parallel()
	var out, sum strings.Builder
	r := New(&out, GitHub, Options{DryRun: true, GitHub: GitHubOptions{StepSummary: &sum}})
	for i := range 12 {
		r.Block(&gateway.Result{Source: "a.csl", Index: i, Line: 3*i + 1, Argv: []string{"make", fmt.Sprintf("t|%d", i)},
			Status: gateway.StatusPlanned, Verdict: gateway.Verdict{Decision: gateway.Ask, Rule: "not-in-specs", Reason: "<b>asked</b>\nnow"}})
	}
	r.Summary(Summary{Blocks: 12, Ask: 12}, 3)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 11 {
		t.Fatalf("%d lines, want 10 warnings and a notice:\n%s", len(lines), out.String())
	}
	if !strings.HasSuffix(lines[9], "(and 2 more warnings not shown as annotations: GitHub shows 10 per step; every finding is in the job summary)") {
		t.Errorf("10th warning = %q", lines[9])
	}
	if !strings.Contains(lines[10], "2 warnings not shown as annotations") {
		t.Errorf("notice = %q", lines[10])
	}
	if got := strings.Count(sum.String(), "\n| warning | a.csl:"); got != 12 {
		t.Errorf("step summary has %d rows, want 12:\n%s", got, sum.String())
	}
	if want := "| warning | a.csl:34 | [12] | not-in-specs | <code>make 't&#124;11'</code> | &lt;b&gt;asked&lt;/b&gt;<br>now |"; !strings.Contains(sum.String(), want) {
		t.Errorf("step summary lacks %q:\n%s", want, sum.String())
	}
}

// TestMDText: the step summary's table cells escape HTML and pipes, and
// code spans show commands as written (no &amp;&amp; for &&).
func TestMDText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"use `a && b` instead", "use `a && b` instead"},
		{"a & b <x>", "a &amp; b &lt;x&gt;"},
		{"`a | b` or c|d", "`a \\| b` or c\\|d"},
		{"`x <y>` then <z>", "`x <y>` then &lt;z&gt;"},
		{"one ` tick & more", "one ` tick &amp; more"},
		{"`a` & `b && c` & `d", "`a` &amp; `b && c` &amp; `d"},
		{"`line1\nline2`\nnext", "`line1⏎line2`<br>next"},
	} {
		if got := mdText(c.in); got != c.want {
			t.Errorf("mdText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
