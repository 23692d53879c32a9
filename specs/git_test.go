package specs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
			wantEnv := append(gitrules.Env(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(root))
			if diff := cmp.Diff(wantEnv, got.Env); diff != "" {
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

// TestGitNeverReadsAboveRoot: with the project inside a larger repository,
// git run as clada runs it finds no repository, so nothing above the root
// (here a committed file "secret" next to the project) can be read.
func TestGitNeverReadsAboveRoot(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is required: ", err)
	}
	outer := t.TempDir()
	run := func(dir string, env []string, args ...string) (string, error) {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t",
			"GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	proj := filepath.Join(outer, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outer, "secret"), []byte("top secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "secret"}, {"commit", "-qm", "x"}} {
		if out, err := run(outer, nil, args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// Without the ceiling, git in proj reads the outer repository.
	if out, err := run(proj, nil, "show", "HEAD:secret"); err != nil || !strings.Contains(out, "top secret") {
		t.Fatalf("setup: git show from proj = %q, %v; want the outer secret", out, err)
	}
	root, err := filepath.EvalSymlinks(proj)
	if err != nil {
		t.Fatal(err)
	}
	ex, env := Command(git, []string{"git", "show", "HEAD:secret"}, root)
	out, err := run(proj, env, ex[1:]...)
	if err == nil || strings.Contains(out, "top secret") {
		t.Errorf("git run as clada runs it read above the root: %q, %v", out, err)
	}
}
