package specs

import (
	"path/filepath"
	"testing"

	"github.com/clada/clada/gitrules"
	"github.com/google/go-cmp/cmp"
)

func TestCheckGit(t *testing.T) {
	t.Parallel()
	s := testSet(t)
	r, _ := newFixture(t)
	root := r.Root()
	tests := []struct {
		in   string
		want Outcome
		rule Rule
	}{
		{"git status", Allow, RuleSpec},
		{"git log -n 5", Allow, RuleSpec},
		{"git diff --stat", Allow, RuleSpec},
		{"git log -- a.txt", Allow, RuleSpec},
		{"git log -- /etc/passwd", Deny, RulePathOutsideRoot},
		{"git log -- ../x", Deny, RulePathOutsideRoot},
		{"git push", Ask, Rule(gitrules.RuleGitSubcommand)},
		{"git -c core.pager=x log", Deny, Rule(gitrules.RuleGitOption)},
		{"git log --output=x", Deny, Rule(gitrules.RuleGitOption)},
		{"git branch -D x", Deny, Rule(gitrules.RuleGitOption)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			argv, _ := splitExample(tt.in)
			got := s.Check(argv, root, r)
			if got.Rule == RuleNotFound {
				t.Fatalf("git not installed: %s", got.Reason)
			}
			type result struct {
				Outcome Outcome
				Rule    Rule
			}
			if diff := cmp.Diff(result{tt.want, tt.rule}, result{got.Outcome, got.Rule}); diff != "" {
				t.Errorf("Check(%q) (-want +got):\n%s%s", tt.in, diff, got.Reason)
			}
			if got.Outcome != Allow {
				return
			}
			want := append([]string{got.Exec[0]}, gitrules.Harden(argv[1:])...)
			if diff := cmp.Diff(want, got.Exec); diff != "" || !filepath.IsAbs(got.Exec[0]) {
				t.Errorf("Exec (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(gitrules.Env(), got.Env); diff != "" {
				t.Errorf("Env (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckExec(t *testing.T) {
	t.Parallel()
	s := testSet(t)
	r, _ := newFixture(t)
	got := s.Check([]string{"rg", "-n", "foo"}, r.Root(), r)
	if diff := cmp.Diff([]string{"/usr/bin/rg", "--no-config", "-n", "foo"}, got.Exec); diff != "" {
		t.Errorf("rg Exec (-want +got):\n%s", diff)
	}
	s2 := testSet(t)
	s2.path["cat"] = lookResult{err: errNotFoundForTest}
	if v := s2.Check([]string{"cat", "a.txt"}, r.Root(), r); v.Outcome != Deny || v.Rule != RuleNotFound {
		t.Errorf("missing program: %v %s", v.Outcome, v.Rule)
	}
}

var errNotFoundForTest = &DeniedError{Reason: "not found"}
