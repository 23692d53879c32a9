package claudecode_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Each test is one scripted conversation of the real Claude Code with
// clada's hook, installed by `clada hook install claude-code`. It
// asserts what ran (a file made, or not), what the model received (the
// fake API's log of tool results), and what the person saw (the
// stream-json output: the same tool results, and the permission
// denials Claude Code reports).

// run installs the hook from dir, runs claude with the session's script
// and checks that the person's stream shows what the model got.
func (s *session) run(t *testing.T, extra ...string) *transcript {
	t.Helper()
	tr := s.claude("do the scripted steps", extra...)
	shown := tr.toolResults()
	for _, r := range s.API.Results() {
		if got, ok := shown[r.ID]; !ok || got != r.Text {
			t.Errorf("the person's stream shows for %s:\n%q\nthe model got:\n%q", r.ID, got, r.Text)
		}
	}
	if len(s.API.Results()) != len(s.API.script) {
		t.Fatalf("the model got %d tool results for %d steps: %+v\nstream:\n%s", len(s.API.Results()), len(s.API.script), s.API.Results(), tr.Raw)
	}
	return tr
}

// denials are the tool_use ids Claude Code reports as not permitted.
func (tr *transcript) denials() []string {
	var ids []string
	for _, l := range tr.Lines {
		if l["type"] != "result" {
			continue
		}
		ds, _ := l["permission_denials"].([]any)
		for _, d := range ds {
			m, _ := d.(map[string]any)
			id, _ := m["tool_use_id"].(string)
			ids = append(ids, id)
		}
	}
	return ids
}

func wantIn(t *testing.T, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("%s lacks %q:\n%s", what, s, text)
		}
	}
}

func wantNotIn(t *testing.T, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if strings.Contains(text, s) {
			t.Errorf("%s holds %q:\n%s", what, s, text)
		}
	}
}

// scenario is one case of a shared conversation: its files, its steps
// (made once the session exists), and what to check of its own results
// (r(i) is the tool result of its step i, denied(i) whether Claude Code
// reports that call as not permitted). Cases with Claude Code's default
// settings share one run of claude, which costs seconds to start.
type scenario struct {
	name  string
	files map[string]string
	steps func(s *session) []step
	check func(t *testing.T, s *session, r func(int) toolResult, denied func(int) bool)
}

func steps(st ...step) func(*session) []step { return func(*session) []step { return st } }

// runScenarios plays the cases in one conversation, then checks each in
// a subtest.
func runScenarios(t *testing.T, cases ...scenario) {
	t.Helper()
	files := map[string]string{}
	for _, c := range cases {
		for name, content := range c.files {
			if _, dup := files[name]; dup {
				t.Fatalf("two cases make %s", name)
			}
			files[name] = content
		}
	}
	s := newSession(t, files)
	offsets := make([]int, len(cases))
	for i, c := range cases {
		offsets[i] = len(s.API.script)
		s.API.script = append(s.API.script, c.steps(s)...)
	}
	s.install(s.Root)
	tr := s.run(t)
	denials := tr.denials()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := func(j int) toolResult { return s.API.Result(offsets[i] + j) }
			denied := func(j int) bool { return slices.Contains(denials, toolID(offsets[i]+j)) }
			c.check(t, s, r, denied)
		})
	}
}

// TestAllowed: commands clada allows run through clada exec, and the
// model gets their output as they printed it.
func TestAllowed(t *testing.T) {
	t.Parallel()
	var big strings.Builder
	for i := 1; i <= 100_000; i++ {
		fmt.Fprintf(&big, "line %06d\n", i)
	}
	runScenarios(t,
		scenario{name: "read", files: map[string]string{"a.txt": "hello e2e\n"},
			steps: steps(bash("cat a.txt"), bash("ls nope")),
			check: func(t *testing.T, s *session, r func(int) toolResult, denied func(int) bool) {
				if got := r(0); got.Text != "hello e2e" || got.IsError || denied(0) {
					t.Errorf("cat a.txt: the model got %+v, want hello e2e", got)
				}
				// Programs are named as the model wrote them, not by
				// clada's path.
				wantIn(t, "ls nope", r(1).Text, "ls: cannot access 'nope'")
				wantNotIn(t, "ls nope", r(1).Text, "/usr/bin/ls", "/bin/ls")
			}},
		scenario{name: "quotes and unicode", files: nil,
			steps: steps(bash(`echo 'héllo "wörld" ✓' it's`), bash(`touch 'mäß ✓.txt'`), bash(`echo 'héllo "wörld" ✓'`)),
			check: func(t *testing.T, s *session, r func(int) toolResult, denied func(int) bool) {
				// An unclosed quote is refused by clada with its reason.
				wantIn(t, "unclosed quote", r(0).Text, "clada denied")
				if !s.exists("mäß ✓.txt") {
					t.Errorf("touch 'mäß ✓.txt' made no such file")
				}
				if got := r(2); got.Text != `héllo "wörld" ✓` {
					t.Errorf("echo: the model got %q", got.Text)
				}
			}},
		scenario{name: "composition", files: map[string]string{"c.txt": "one\ntwo\nthree\n", "sub/b.txt": "b\n"},
			steps: steps(bash("cat c.txt 2>&1 | tail -1"), bash("cd sub && ls"), bash("ls && touch made.txt")),
			check: func(t *testing.T, s *session, r func(int) toolResult, denied func(int) bool) {
				if got := r(0); got.Text != "three" {
					t.Errorf("pipe: the model got %q, want three", got.Text)
				}
				if got := r(1); got.Text != "b.txt" {
					t.Errorf("cd sub && ls: the model got %q, want b.txt", got.Text)
				}
				if !s.exists("made.txt") {
					t.Errorf("ls && touch made.txt made nothing")
				}
			}},
		scenario{name: "large output", files: map[string]string{"big.txt": big.String()},
			steps: steps(bash("cat big.txt"), bash("wc -l big.txt")),
			check: func(t *testing.T, s *session, r func(int) toolResult, denied func(int) bool) {
				wantIn(t, "cat big.txt", r(0).Text, "line 000001")
				if len(r(0).Text) > 200_000 {
					t.Errorf("the model got %d bytes of a 1.2 MB output; Claude Code should have cut it", len(r(0).Text))
				}
				wantIn(t, "wc -l", r(1).Text, "100000 big.txt")
			}},
	)
}

// TestRefused: what clada denies or asks does not run, and the model
// gets the rule, the word and what to do instead.
func TestRefused(t *testing.T) {
	t.Parallel()
	evil := `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"touch pwned.txt"}]}]}}`
	runScenarios(t,
		scenario{name: "a key outside",
			steps: func(s *session) []step {
				key := filepath.Join(s.Home, ".ssh", "id_ed25519")
				writeFile(t, key, "SECRET-KEY-E2E\n")
				return []step{bash("cat " + key), bash("tail -n 1 " + key + " | cat")}
			},
			check: func(t *testing.T, s *session, r func(int) toolResult, denied func(int) bool) {
				for i := range 2 {
					wantIn(t, "reading a key", r(i).Text, "clada denied", "credential store", "Do instead")
					wantNotIn(t, "reading a key", r(i).Text, "SECRET-KEY-E2E")
					if !denied(i) {
						t.Errorf("step %d is not among the permission denials", i)
					}
				}
			}},
		scenario{name: "rm -rf .git",
			steps: steps(bash("rm -rf .git"), bash("cd sub/.. && rm -rf .git")),
			check: func(t *testing.T, s *session, r func(int) toolResult, denied func(int) bool) {
				if !s.exists(".git/HEAD") {
					t.Fatalf(".git was removed")
				}
				wantIn(t, "rm -rf .git", r(0).Text, "clada denied", "protected-path", "`.git`", "Do instead")
				wantIn(t, "cd && rm -rf .git", r(1).Text, "clada denied")
				if !denied(0) || !denied(1) {
					t.Errorf("not both calls among the permission denials")
				}
			}},
		// A command may not write Claude Code's settings, where a hook or
		// a permission rule would run outside clada (a PreToolUse hook
		// runs unconfined, before clada's).
		scenario{name: "Claude Code's settings", files: map[string]string{"evil.json": evil, "sub/x.txt": "x\n"},
			steps: steps(bash("echo '"+evil+"' > .claude/settings.local.json"), bash("cp evil.json .claude/settings.local.json"),
				bash("mkdir sub/.claude"), bash("cd sub && mkdir .claude")),
			check: func(t *testing.T, s *session, r func(int) toolResult, denied func(int) bool) {
				for i := range 4 {
					wantIn(t, fmt.Sprintf("step %d", i), r(i).Text, "clada denied", ".claude")
				}
				if s.exists(".claude/settings.local.json") || s.exists("sub/.claude") || s.exists("pwned.txt") {
					t.Errorf("a command wrote Claude Code's settings")
				}
			}},
		// In claude -p nobody can approve; what the model gets says what
		// to do next, and nothing ran.
		scenario{name: "asked, headless", files: map[string]string{"build.sh": "#!/bin/sh\ntouch built.txt\n"},
			steps: func(s *session) []step {
				if err := os.Chmod(filepath.Join(s.Root, "build.sh"), 0o755); err != nil {
					t.Fatal(err)
				}
				return []step{bash("./build.sh")}
			},
			check: func(t *testing.T, s *session, r func(int) toolResult, denied func(int) bool) {
				if s.exists("built.txt") {
					t.Errorf("the asked command ran")
				}
				wantIn(t, "the asked command's result", r(0).Text, "clada asks", "not-in-specs", "do not retry it", "tell the person", "clada allow")
				if !denied(0) {
					t.Errorf("the asked call is not among the permission denials")
				}
			}},
	)
}

// TestModelTimeout: the model's own Bash timeout replaces clada's: with
// timeout = "2s" in the project's config.toml, a command the model gave
// 20 s still finishes its 3 s.
func TestModelTimeout(t *testing.T) {
	t.Parallel()
	s := newSession(t, map[string]string{".clada/config.toml": "timeout = \"2s\"\n"},
		bash("sleep 3 && touch slept.txt", "timeout", 20000), bash("sleep 5 && touch late.txt", "timeout", 1000))
	s.clada(s.Root, "allow", "sleep *")
	s.install(s.Root)
	s.run(t)
	if !s.exists("slept.txt") {
		t.Errorf("clada cut short a command the model gave 20 s: %+v", s.API.Result(0))
	}
	if s.exists("late.txt") {
		t.Errorf("a command past the model's 1 s timeout went on")
	}
}

// TestSubdirectory: Claude Code started in a subdirectory reads that
// directory's settings, which `clada hook install` run there wrote; the
// root is still the repository's top.
func TestSubdirectory(t *testing.T) {
	t.Parallel()
	s := newSession(t, map[string]string{"a.txt": "top\n", "sub/b.txt": "b\n"}, bash("git rev-parse --show-toplevel"), bash("cat ../a.txt"), bash("rm -rf ../.git"))
	s.Dir = filepath.Join(s.Root, "sub")
	out := s.install(s.Dir)
	wantIn(t, "clada hook install in sub", out, filepath.Join("sub", ".claude", "settings.json"), "only in the directory it starts in")
	tr := s.run(t)
	if r := s.API.Result(0); r.Text != s.Root {
		t.Errorf("git rev-parse in sub: the model got %q, want %s", r.Text, s.Root)
	}
	if r := s.API.Result(1); r.Text != "top" {
		t.Errorf("cat ../a.txt: the model got %q", r.Text)
	}
	wantIn(t, "rm -rf ../.git", s.API.Result(2).Text, "clada denied")
	if !s.exists(".git/HEAD") || len(tr.denials()) != 1 {
		t.Errorf(".git removed, or denials %v", tr.denials())
	}
}

// TestPersonRules: the person's own Claude Code deny and ask rules keep
// their meaning under clada's rewrite.
func TestPersonRules(t *testing.T) {
	t.Parallel()
	s := newSession(t, map[string]string{"a.txt": "secret-ish\n"}, bash("cat a.txt"), bash("touch x.txt"), bash("wc -l a.txt"))
	writeJSON(t, filepath.Join(s.Root, ".claude", "settings.local.json"), map[string]any{"permissions": map[string]any{
		"deny": []string{"Bash(cat a.txt)"}, "ask": []string{"Bash(touch:*)"}}})
	s.install(s.Root)
	tr := s.run(t)
	r := s.API.Result(0)
	wantIn(t, "the denied cat", r.Text, "clada denied", "Bash(cat a.txt)", "settings.local.json", "Do instead")
	wantNotIn(t, "the denied cat", r.Text, "secret-ish")
	if s.exists("x.txt") {
		t.Errorf("touch ran despite the person's ask rule, with nobody to ask")
	}
	wantIn(t, "the asked touch", s.API.Result(1).Text, "Bash(touch:*)", "do not retry")
	wantIn(t, "wc", s.API.Result(2).Text, "1 a.txt")
	if d := tr.denials(); len(d) != 2 {
		t.Errorf("permission denials %v, want 2", d)
	}
}

// TestPlanMode: read-only commands clada allows run in plan mode (not
// rewritten to clada exec, which plan mode would not take for read-only);
// a write does not run.
func TestPlanMode(t *testing.T) {
	t.Parallel()
	s := newSession(t, map[string]string{"a.txt": "plan\n"}, bash("cat a.txt"), bash("git status --short"), bash("touch t.txt"), bash("rm -rf .git"))
	s.install(s.Root)
	s.run(t, "--permission-mode", "plan")
	if r := s.API.Result(0); r.Text != "plan" {
		t.Errorf("cat in plan mode: %q", r.Text)
	}
	if r := s.API.Result(1); r.IsError || strings.Contains(r.Text, "not run") {
		t.Errorf("git status in plan mode: %+v", r)
	}
	if s.exists("t.txt") || !s.exists(".git/HEAD") {
		t.Errorf("a write ran in plan mode")
	}
	wantIn(t, "rm -rf .git in plan mode", s.API.Result(3).Text, "clada denied")
}

// TestMonitor: the Monitor tool's command goes through clada too.
func TestMonitor(t *testing.T) {
	t.Parallel()
	s := newSession(t, map[string]string{"a.txt": "m\n"},
		step{Tool: "Monitor", Input: map[string]any{"description": "e2e", "timeout_ms": 2000, "command": "rm -rf .git"}},
		step{Tool: "Monitor", Input: map[string]any{"description": "e2e", "timeout_ms": 2000, "command": "touch mon.txt"}},
		bash("sleep 2", "timeout", 5000))
	s.clada(s.Root, "allow", "sleep *")
	s.install(s.Root)
	s.run(t)
	wantIn(t, "Monitor rm -rf .git", s.API.Result(0).Text, "clada denied", "protected-path")
	if !s.exists(".git/HEAD") {
		t.Errorf(".git removed by a Monitor")
	}
	if !s.exists("mon.txt") {
		t.Errorf("the allowed Monitor command did not run through clada: %+v", s.API.Result(1))
	}
}

// BenchmarkHookLatency measures what clada's hook adds to a shell
// command as Claude Code sees it: the time from the model's tool_use to
// its tool_result in the stream (Claude Code's timestamps, ms), for
// `cat a.txt` run 12 times with the hook (decided, rewritten, run by
// clada exec in its sandbox) and 12 times without it (Claude Code's own
// check, its shell). Reported: the medians and the added median, with
// the quartiles in the log. docs/agents.md has the figures.
func BenchmarkHookLatency(b *testing.B) {
	const steps = 12
	var with, without []float64
	for range b.N {
		for _, hooked := range []bool{true, false} {
			script := make([]step, steps)
			for i := range script {
				script[i] = bash("cat a.txt")
			}
			s := newBenchSession(b, script)
			if hooked {
				s.install(s.Root)
			}
			tr := s.claude("latency")
			d := tr.toolDurations()
			for i, r := range s.API.Results() {
				if r.Text != "hello e2e" {
					b.Fatalf("step %d (hook %v): the model got %q", i, hooked, r.Text)
				}
			}
			if len(d) != steps {
				b.Fatalf("%d tool durations for %d steps", len(d), steps)
			}
			if hooked {
				with = append(with, d...)
			} else {
				without = append(without, d...)
			}
		}
	}
	mw, mo := quantile(with, 0.5), quantile(without, 0.5)
	b.ReportMetric(mw, "ms-with-hook")
	b.ReportMetric(mo, "ms-without")
	b.ReportMetric(mw-mo, "ms-added")
	b.Logf("with hook: median %.0f ms, quartiles %.0f–%.0f, min %.0f, max %.0f (n=%d)", mw, quantile(with, 0.25), quantile(with, 0.75), quantile(with, 0), quantile(with, 1), len(with))
	b.Logf("without:   median %.0f ms, quartiles %.0f–%.0f, min %.0f, max %.0f (n=%d)", mo, quantile(without, 0.25), quantile(without, 0.75), quantile(without, 0), quantile(without, 1), len(without))
}

// TestAskedApproved: the person is asked (the test answers Claude Code's
// permission prompt) and sees clada's reason; approved, the command runs
// as the model wrote it; declined, it does not.
func TestAskedApproved(t *testing.T) {
	t.Parallel()
	s := newSession(t, map[string]string{"build.sh": "#!/bin/sh\ntouch built.txt\necho built\n", "other.sh": "#!/bin/sh\ntouch other.txt\n"},
		bash("./build.sh"), bash("./other.sh"))
	for _, f := range []string{"build.sh", "other.sh"} {
		if err := os.Chmod(filepath.Join(s.Root, f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.install(s.Root)
	tr, prompts := s.claudeAsked("do the scripted steps", func(p prompt) bool { return p.Input["command"] == "./build.sh" })
	if len(prompts) != 2 {
		t.Fatalf("the person was asked %d times, want 2: %+v\n%s", len(prompts), prompts, tr.Raw)
	}
	for _, p := range prompts {
		wantIn(t, "the person's prompt", p.Reason, "clada asks", "not-in-specs")
		if p.Input["command"] != "./build.sh" && p.Input["command"] != "./other.sh" {
			t.Errorf("the person was asked about %q, not the model's command", p.Input["command"])
		}
	}
	if !s.exists("built.txt") {
		t.Errorf("the approved command did not run: %+v", s.API.Results())
	}
	if r := s.API.Result(0); r.Text != "built" {
		t.Errorf("approved ./build.sh: the model got %q", r.Text)
	}
	if s.exists("other.txt") {
		t.Errorf("the declined command ran")
	}
}
