package gateway

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/output"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/runner"
)

// fakeAsker answers from a list and records the questions.
type fakeAsker struct {
	answers []approve.Answer
	asked   []approve.Question
}

func (f *fakeAsker) Ask(_ context.Context, q approve.Question, _ time.Duration) (approve.Answer, approve.NoReason, error) {
	f.asked = append(f.asked, q)
	if len(f.answers) == 0 {
		return approve.No, approve.NoEOF, nil
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	if a == approve.No {
		return a, approve.NoAnswered, nil
	}
	return a, "", nil
}

func newTestGateway(t *testing.T, allowed ...string) (*Gateway, string) {
	t.Helper()
	root := t.TempDir()
	for _, a := range allowed {
		if _, err := approve.Add(root, approve.ListAllowed, a, ParsePattern); err != nil {
			t.Fatal(err)
		}
	}
	cmds, err := approve.LoadCommands(root, ParsePattern)
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Options{Root: root, Commands: cmds})
	if err != nil {
		t.Fatal(err)
	}
	return g, root
}

func plan(t *testing.T, g *Gateway, doc string) *Plan {
	t.Helper()
	d, err := parser.Blocks("reply.csl", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return g.Plan([]*parser.Document{d})
}

func statuses(p *Plan) []string {
	var s []string
	for _, r := range p.Results {
		s = append(s, string(r.Status))
	}
	return s
}

func TestExecuteTasksGroupStopsAtFirstFailure(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t, "false", "touch *")
	doc := "<---RUN--->\ntouch before\n<---END--->\n" +
		"<---TASKS--->\n" +
		"<---RUN--->\ntouch first\n<---END--->\n" +
		"<---RUN--->\nfalse\n<---END--->\n" +
		"<---RUN--->\ntouch third\n<---END--->\n" +
		"<---END TASKS--->\n" +
		"<---RUN--->\ntouch after\n<---END--->\n"
	p := plan(t, g, doc)
	var emitted []int
	g.Execute(context.Background(), p, ExecOptions{}, func(r *Result) { emitted = append(emitted, r.Index) })
	want := []string{"ran", "ran", "ran", "skipped", "ran"}
	if diff := cmp.Diff(want, statuses(p)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{0, 1, 2, 3, 4}, emitted); diff != "" {
		t.Errorf("emitted in order (-want +got):\n%s", diff)
	}
	for _, f := range []string{"before", "first", "after"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s was not created: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "third")); err == nil {
		t.Error("third ran after a failure in its TASKS group")
	}
	if !strings.Contains(p.Results[3].Skip, "block 3") {
		t.Errorf("skip reason %q does not name the failed block", p.Results[3].Skip)
	}
}

func TestExecuteStopOnError(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t, "false", "touch *")
	doc := "<---RUN--->\nfalse\n<---END--->\n<---RUN--->\ntouch after\n<---END--->\n"
	p := plan(t, g, doc)
	g.Execute(context.Background(), p, ExecOptions{StopOnError: true}, nil)
	if diff := cmp.Diff([]string{"ran", "skipped"}, statuses(p)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(root, "after")); err == nil {
		t.Error("a block ran after the first failure with StopOnError")
	}
	// Without it, standalone blocks are independent.
	p = plan(t, g, doc)
	g.Execute(context.Background(), p, ExecOptions{}, nil)
	if diff := cmp.Diff([]string{"ran", "ran"}, statuses(p)); diff != "" {
		t.Errorf("statuses without StopOnError (-want +got):\n%s", diff)
	}
}

func TestExecuteAsks(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t)
	// `true` has no spec: every block is asked.
	doc := strings.Repeat("<---RUN--->\ntrue\n<---END--->\n", 4) + "<---RUN--->\nfalse\n<---END--->\n"
	p := plan(t, g, doc)
	asker := &fakeAsker{answers: []approve.Answer{approve.Yes, approve.No, approve.Always}}
	var diag strings.Builder
	g.Execute(context.Background(), p, ExecOptions{Asker: asker, Diag: &diag}, nil)
	// After always, the identical fourth block is allowed by the new
	// pattern without a question; `false` is asked and gets end of input.
	if diff := cmp.Diff([]string{"ran", "not-approved", "ran", "ran", "not-approved"}, statuses(p)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if got := p.Results[1].NotApproved; got != string(approve.NoAnswered) {
		t.Errorf("no: NotApproved = %q", got)
	}
	if got := p.Results[3]; got.Rule != rules.AllowedPattern || got.ApprovedBy != string(rules.AllowedPattern) {
		t.Errorf("block after always: rule %q, approved by %q; want the allowed pattern", got.Rule, got.ApprovedBy)
	}
	if len(asker.asked) != 4 {
		t.Errorf("asked %d questions, want 4 (the block after always is not asked)", len(asker.asked))
	}
	if got := p.Results[4].NotApproved; got != string(approve.NoEOF) {
		t.Errorf("EOF: NotApproved = %q", got)
	}
	if p.Results[2].ApprovedBy != "always" || p.Results[2].Wrote == "" {
		t.Errorf("always: %+v", p.Results[2])
	}
	if !strings.Contains(diag.String(), p.Results[2].Wrote) {
		t.Errorf("always did not print the file it wrote: %q", diag.String())
	}
	if q := asker.asked[0]; q.Command != "true" || q.Why == "" {
		t.Errorf("question = %+v", q)
	}
	// The always answer is in commands.toml and allows the next run.
	cmds, err := approve.LoadCommands(root, ParsePattern)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cmds.MatchAllowed([]string{"true"}); !ok {
		t.Errorf("always did not add `true` to allowed: %+v", cmds.Allowed)
	}
}

func TestExecuteNoTerminalAndTrustAll(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t)
	doc := "<---RUN--->\ntouch asked\n<---END--->\n<---RUN--->\ntrue\n<---END--->\n<---RUN--->\nsudo true\n<---END--->\n"
	p := plan(t, g, doc)
	g.Execute(context.Background(), p, ExecOptions{}, nil)
	if diff := cmp.Diff([]string{"ran", "not-approved", "denied"}, statuses(p)); diff != "" {
		t.Errorf("no terminal (-want +got):\n%s", diff)
	}
	if got := p.Results[1].NotApproved; got != string(approve.NoTTY) {
		t.Errorf("NotApproved = %q, want %q", got, approve.NoTTY)
	}
	p = plan(t, g, doc)
	g.Execute(context.Background(), p, ExecOptions{TrustAll: true}, nil)
	if diff := cmp.Diff([]string{"ran", "ran", "denied"}, statuses(p)); diff != "" {
		t.Errorf("trust-all (-want +got):\n%s", diff)
	}
	if p.Results[1].ApprovedBy != "trust-all" {
		t.Errorf("ApprovedBy = %q", p.Results[1].ApprovedBy)
	}
	_ = root
}

func TestExecuteNothingWhenCSLError(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t, "touch *")
	doc := "<---RUN--->\ntouch made\n<---END--->\n<---RUN--->\nls; pwd\n<---END--->\n"
	p := plan(t, g, doc)
	if p.OK() {
		t.Fatal("plan with a block error is OK")
	}
	g.Execute(context.Background(), p, ExecOptions{TrustAll: true}, nil)
	if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
		t.Error("a command ran although the document has a CSL error")
	}
	if p.Results[1].Rule != rules.CSLSyntax {
		t.Errorf("rule = %q", p.Results[1].Rule)
	}
}

func TestExecuteInterrupted(t *testing.T) {
	t.Parallel()
	g, _ := newTestGateway(t, "sleep *")
	doc := "<---RUN--->\nsleep 30\n<---END--->\n<---RUN--->\nsleep 30\n<---END--->\n"
	p := plan(t, g, doc)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	g.Execute(ctx, p, ExecOptions{}, nil)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Execute took %s after the interrupt", d)
	}
	if diff := cmp.Diff([]string{"ran", "skipped"}, statuses(p)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if p.Results[0].Run.OK() {
		t.Error("the interrupted command reports success")
	}
}

// TestExecuteDecidesAgainAfterACommandRan: a path that was inside the
// root when the plan was made, and that an earlier command turned into a
// symlink out of the root, is denied when its block's turn comes.
func TestExecuteDecidesAgainAfterACommandRan(t *testing.T) {
	t.Parallel()
	// ln's spec denies a link out of the root; perl, approved, makes one.
	g, _ := newTestGateway(t, `perl -e 'symlink "/etc", "link"'`)
	doc := "<---RUN--->\nperl -e 'symlink \"/etc\", \"link\"'\n<---END--->\n<---RUN--->\ntouch link/hostname\n<---END--->\n"
	p := plan(t, g, doc)
	if p.Results[1].Decision != Allow {
		t.Fatalf("before ln ran, touch link/hostname = %+v, want allow", p.Results[1].Verdict)
	}
	g.Execute(context.Background(), p, ExecOptions{}, nil)
	if diff := cmp.Diff([]string{"ran", "denied"}, statuses(p)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if p.Results[1].Rule != "path-outside-root" {
		t.Errorf("rule = %q, want path-outside-root", p.Results[1].Rule)
	}
}

func TestCommandEnv(t *testing.T) {
	t.Parallel()
	got := commandEnv([]string{"PATH=/bin", "POSIXLY_CORRECT=1", "HOME=/h"}, []string{"GIT_PAGER=cat"})
	if diff := cmp.Diff([]string{"PATH=/bin", "HOME=/h", "GIT_PAGER=cat"}, got); diff != "" {
		t.Errorf("commandEnv (-want +got):\n%s", diff)
	}
}

// TestExecuteWithoutPosixlyCorrect runs a real command with
// POSIXLY_CORRECT set in clada's environment: the command never sees it.
func TestExecuteWithoutPosixlyCorrect(t *testing.T) {
	t.Setenv("POSIXLY_CORRECT", "1")
	g, _ := newTestGateway(t, "printenv POSIXLY_CORRECT", "printenv PATH")
	p := plan(t, g, "<---RUN--->\nprintenv POSIXLY_CORRECT\n<---END--->\n<---RUN--->\nprintenv PATH\n<---END--->\n")
	var out []string
	g.Execute(context.Background(), p, ExecOptions{}, func(r *Result) { out = append(out, shownText(r.Stdout)) })
	if p.Results[0].Run.ExitCode != 1 || out[0] != "" {
		t.Errorf("printenv POSIXLY_CORRECT: exit %d, output %q; want it unset", p.Results[0].Run.ExitCode, out[0])
	}
	if p.Results[1].Run.ExitCode != 0 || out[1] == "" {
		t.Errorf("printenv PATH: exit %d, output %q; the rest of the environment must pass", p.Results[1].Run.ExitCode, out[1])
	}
}

// shownText is what the default report budget shows of s, whole.
func shownText(s *output.Stream) string {
	e := s.Excerpt(output.DefaultBudget.Bytes, output.DefaultBudget.Lines)
	if !e.Whole {
		return "(not whole)"
	}
	return string(e.Head)
}

// TestExecuteSavesOutput: with a Store, each block's output is saved under
// .clada/out/RUN/N.stdout, N being the block's number in the report (its
// Index plus one); the kept ends are released once the block is reported.
func TestExecuteSavesOutput(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t, "printf *")
	p := plan(t, g, "<---RUN--->\nprintf ''\n<---END--->\n<---RUN--->\nprintf 'one\\ntwo\\n'\n<---END--->\n")
	var shown []string
	g.Execute(context.Background(), p, ExecOptions{Output: output.NewStore(root, 1024)}, func(r *Result) {
		shown = append(shown, shownText(r.Stdout))
	})
	if diff := cmp.Diff([]string{"", "one\ntwo\n"}, shown); diff != "" {
		t.Errorf("shown (-want +got):\n%s", diff)
	}
	r := p.Results[1]
	if r.Stdout.Path() != ".clada/out/1/2.stdout" || r.Stdout.Bytes() != 8 || r.Stdout.Lines() != 2 {
		t.Errorf("stdout saved in %q, %d bytes, %d lines; want .clada/out/1/2.stdout, 8, 2", r.Stdout.Path(), r.Stdout.Bytes(), r.Stdout.Lines())
	}
	if data, err := os.ReadFile(filepath.Join(root, ".clada/out/1/2.stdout")); err != nil || string(data) != "one\ntwo\n" {
		t.Errorf("saved file: %q, %v", data, err)
	}
	if p.Results[0].Stdout.Path() != "" {
		t.Errorf("an empty stdout was saved to %s", p.Results[0].Stdout.Path())
	}
	if e := r.Stdout.Excerpt(100, 10); len(e.Head)+len(e.Tail) != 0 {
		t.Errorf("the kept ends were not released after the report: %q %q", e.Head, e.Tail)
	}
}

// TestSearchWithoutReplaceRunsNothing: a block error on a SEARCH block
// (no REPLACE section) stops the run like one on a RUN block.
func TestSearchWithoutReplaceRunsNothing(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t, "touch *")
	p := plan(t, g, "<---SEARCH file=\"a\"--->\nx\n<---END--->\n<---RUN--->\ntouch made\n<---END--->\n")
	if p.OK() || len(p.Errors) != 1 {
		t.Fatalf("plan OK = %v with errors %v; want one block error", p.OK(), p.Errors)
	}
	if !strings.Contains(p.Errors[0].Msg, "missing REPLACE") {
		t.Errorf("error = %q", p.Errors[0].Msg)
	}
	g.Execute(context.Background(), p, ExecOptions{}, nil)
	if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
		t.Error("a command ran although a SEARCH block has a CSL error")
	}
}

// A never answer blocks the identical blocks after it in the same run,
// before anything ran: they are denied by the new pattern, not asked.
func TestExecuteNeverBlocksTheRest(t *testing.T) {
	t.Parallel()
	g, _ := newTestGateway(t)
	p := plan(t, g, strings.Repeat("<---RUN--->\ntrue\n<---END--->\n", 2))
	asker := &fakeAsker{answers: []approve.Answer{approve.Never, approve.Yes}}
	g.Execute(context.Background(), p, ExecOptions{Asker: asker}, nil)
	if diff := cmp.Diff([]string{"not-approved", "denied"}, statuses(p)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if got := p.Results[1].Rule; got != rules.BlockedPattern {
		t.Errorf("rule of the second block = %q, want %q", got, rules.BlockedPattern)
	}
	if len(asker.asked) != 1 {
		t.Errorf("asked %d questions, want 1", len(asker.asked))
	}
}

// TestCommandDefaultsInStep: the defaults an untrusted config.toml may only
// lower (approve) are the runner's.
func TestCommandDefaultsInStep(t *testing.T) {
	if approve.DefaultCommandTimeout != runner.DefaultTimeout || approve.DefaultCommandMaxOutput != runner.DefaultMaxOutput {
		t.Errorf("approve's command defaults %v, %d differ from the runner's %v, %d",
			approve.DefaultCommandTimeout, approve.DefaultCommandMaxOutput, runner.DefaultTimeout, runner.DefaultMaxOutput)
	}
}
