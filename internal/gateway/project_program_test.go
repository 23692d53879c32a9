//go:build unix

package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/internal/rules"
)

// TestProjectProgram checks which programs are project code and what the
// verdict becomes, for bare names and path-like programs.
func TestProjectProgram(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	root := filepath.Join(tmp, "proj")
	outside := filepath.Join(tmp, "bin")
	for _, d := range []string{filepath.Join(root, ".venv", "bin"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	inProject := filepath.Join(root, ".venv", "bin", "ls")
	if err := os.WriteFile(inProject, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A link in the project to a system program, and a link outside the
	// project to a program in it.
	if err := os.Symlink("/bin/sh", filepath.Join(root, ".venv", "bin", "python")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(inProject, filepath.Join(outside, "ls")); err != nil {
		t.Fatal(err)
	}
	g, err := New(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	realRoot := g.Root()
	tests := []struct {
		name     string
		argv     string
		exec     string
		in       Verdict
		want     Decision
		wantRule rules.Rule
		wantFile string // in Why; "" when Why must not change
	}{
		{name: "spec allow of a system program stays", argv: "ls", exec: "/bin/ls", in: Verdict{Decision: Allow, Rule: "spec"}, want: Allow, wantRule: "spec"},
		{name: "spec allow of a project program asks", argv: "ls", exec: filepath.Join(realRoot, ".venv", "bin", "ls"), in: Verdict{Decision: Allow, Rule: "spec"}, want: Ask, wantRule: rules.ProjectProgram, wantFile: ".venv/bin/ls"},
		{name: "link in the project to a system program", argv: "python", exec: filepath.Join(realRoot, ".venv", "bin", "python"), in: Verdict{Decision: Ask, Rule: rules.NotInSpecs, Why: "x"}, want: Ask, wantRule: rules.ProjectProgram, wantFile: ".venv/bin/python"},
		{name: "link outside to a project program", argv: "ls", exec: filepath.Join(outside, "ls"), in: Verdict{Decision: Allow, Rule: "spec"}, want: Ask, wantRule: rules.ProjectProgram, wantFile: ".venv/bin/ls"},
		{name: "wrapper keeps its rule", argv: "env", exec: filepath.Join(realRoot, ".venv", "bin", "ls"), in: Verdict{Decision: Ask, Rule: "wrapper", Why: "env runs other programs"}, want: Ask, wantRule: "wrapper", wantFile: ".venv/bin/ls"},
		{name: "path-like keeps not-in-specs", argv: "./.venv/bin/ls", exec: filepath.Join(realRoot, ".venv", "bin", "ls"), in: Verdict{Decision: Ask, Rule: rules.NotInSpecs, Why: "not in specs"}, want: Ask, wantRule: rules.NotInSpecs, wantFile: ".venv/bin/ls"},
		{name: "allowed pattern is consent", argv: "ls", exec: filepath.Join(realRoot, ".venv", "bin", "ls"), in: Verdict{Decision: Allow, Rule: rules.AllowedPattern}, want: Allow, wantRule: rules.AllowedPattern},
		{name: "deny stays deny", argv: "ls", exec: filepath.Join(realRoot, ".venv", "bin", "ls"), in: Verdict{Decision: Deny, Rule: "unknown-flag"}, want: Deny, wantRule: "unknown-flag"},
		{name: "untrusted becomes project-program", argv: "ls", exec: filepath.Join(realRoot, ".venv", "bin", "ls"), in: Verdict{Decision: Ask, Rule: rules.Untrusted}, want: Ask, wantRule: rules.ProjectProgram, wantFile: ".venv/bin/ls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.Exec = []string{tt.exec}
			got := g.projectProgram(strings.Fields(tt.argv), in)
			if got.Decision != tt.want || got.Rule != tt.wantRule {
				t.Errorf("projectProgram = %s (%s), want %s (%s); why %q", got.Decision, got.Rule, tt.want, tt.wantRule, got.Why)
			}
			if tt.wantFile == "" {
				if got.Why != tt.in.Why {
					t.Errorf("Why = %q, want it unchanged (%q)", got.Why, tt.in.Why)
				}
				return
			}
			if !strings.Contains(got.Why, tt.wantFile) {
				t.Errorf("Why = %q, want it to name %s", got.Why, tt.wantFile)
			}
		})
	}
}

// TestDecideOnlyPath: an allowed command decided for running carries the
// PATH without the project's directories; one decided only to be reported
// (clada check, run --dry-run, clada hook) leaves PATH alone, and its
// decision is the same.
func TestDecideOnlyPath(t *testing.T) {
	root := t.TempDir()
	venv := filepath.Join(root, ".venv", "bin")
	if err := os.MkdirAll(venv, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", venv+string(filepath.ListSeparator)+os.Getenv("PATH"))
	pathOf := func(v Verdict) (string, bool) {
		for _, e := range v.Env {
			if p, ok := strings.CutPrefix(e, "PATH="); ok {
				return p, true
			}
		}
		return "", false
	}
	run, err := New(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	v := run.Decide([]string{"ls"}, "")
	p, ok := pathOf(v)
	if v.Decision != Allow || !ok || strings.Contains(p, venv) {
		t.Errorf("for running: %s, PATH %q (set %v), want allow with PATH without %s", v.Decision, p, ok, venv)
	}
	only, err := New(Options{Root: root, DecideOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	w := only.Decide([]string{"ls"}, "")
	if _, ok := pathOf(w); w.Decision != Allow || w.Rule != v.Rule || ok {
		t.Errorf("decide only: %s (%s), PATH set %v; want %s (%s) and no PATH", w.Decision, w.Rule, ok, v.Decision, v.Rule)
	}
}
