package gateway

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
)

// gitRepo makes root a git repository with the files of a small project:
// a.txt b.txt src/ committed, mod.txt committed and then changed,
// untracked.txt, an ignored build/, and mixed/ with a committed and an
// untracked file.
func gitRepo(t *testing.T, root string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed for this test: %v", err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+root,
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write(".gitignore", "build/\n")
	for _, f := range []string{"a.txt", "b.txt", "mod.txt", "src/x.go", "src/deep/y.go", "mixed/t.txt"} {
		write(f, "v1\n")
	}
	git("add", ".")
	git("commit", "-qm", "one")
	write("mod.txt", "v2\n")
	write("untracked.txt", "u\n")
	write("build/x.o", "o\n")
	write("mixed/new.txt", "u\n")
}

func TestDecideDestroys(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t, "rm *", "rm untracked.txt")
	gitRepo(t, root)
	tests := []struct {
		cmd      string
		want     Decision
		wantRule rules.Rule
		lost     []string
	}{
		{"rm a.txt", Allow, "spec", nil},
		{"rm -r src", Allow, "spec", nil},
		{"rm -rf src/deep a.txt", Allow, "spec", nil},
		{"rm nothere.txt", Allow, "spec", nil},
		{"rm mod.txt", Ask, rules.NotRestorable, []string{"mod.txt"}},
		{"rm -f mod.txt b.txt", Ask, rules.NotRestorable, []string{"mod.txt"}},
		{"rm untracked.txt", Allow, rules.AllowedPattern, nil}, // an exact pattern: the person saw it
		{"rm -v untracked.txt", Ask, rules.NotRestorable, []string{"untracked.txt"}},
		{"rm -rf build", Ask, rules.NotRestorable, []string{"build/"}},
		{"rm -r mixed", Ask, rules.NotRestorable, []string{"mixed/new.txt"}},
		{"rm -r .git", Deny, "protected-path", nil},
		{"mv b.txt a.txt", Allow, "spec", nil},
		{"mv b.txt mod.txt", Ask, rules.NotRestorable, []string{"mod.txt"}},
		{"mv untracked.txt new.txt", Allow, "spec", nil},
		{"mv a.txt src", Allow, "spec", nil},
		{"cp a.txt mod.txt", Ask, rules.NotRestorable, []string{"mod.txt"}},
		{"cp a.txt b.txt", Allow, "spec", nil},
		{"cp a.txt new.txt", Allow, "spec", nil},
		{"touch mod.txt untracked.txt", Allow, "spec", nil},
		{"nice rm mod.txt", Ask, rules.NotRestorable, []string{"mod.txt"}},
		{"timeout 5 rm -r src", Allow, "spec", nil},
	}
	for _, tt := range tests {
		argv, err := parser.Command(tt.cmd)
		if err != nil {
			t.Fatal(err)
		}
		v := g.Decide(argv, "")
		if v.Decision != tt.want || v.Rule != tt.wantRule || strings.Join(v.Lost, " ") != strings.Join(tt.lost, " ") {
			t.Errorf("Decide(%q) = %s (%s: %s) lost %q, want %s (%s) lost %q", tt.cmd, v.Decision, v.Rule, v.Reason, v.Lost, tt.want, tt.wantRule, tt.lost)
			continue
		}
		if v.Decision == Ask {
			for _, l := range tt.lost {
				if !strings.Contains(v.Why, l+" (") {
					t.Errorf("Decide(%q): the question %q does not name %s", tt.cmd, v.Why, l)
				}
			}
			if v.Advice == "" || v.Word == "" {
				t.Errorf("Decide(%q): ask without advice or word: %+v", tt.cmd, v)
			}
		}
	}
	// The prompt offers no prefix for such a command, and a prefix
	// pattern does not cover it (rm * above did not).
	argv := []string{"rm", "mod.txt"}
	if p := g.prefixFor(&Result{Argv: argv, Verdict: g.Decide(argv, "")}); p != "" {
		t.Errorf("prefix offered for rm mod.txt: %q", p)
	}
}

func TestDestroyOutsideARepository(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t)
	if err := os.WriteFile(filepath.Join(root, "a.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	v := g.Decide([]string{"rm", "a.txt"}, "")
	if v.Decision != Ask || v.Rule != rules.NotRestorable || !strings.Contains(v.Why, "git cannot restore") {
		t.Errorf("rm a.txt outside a repository = %+v", v)
	}
}

// TestGitStateIsLazy: deciding commands that destroy nothing existing
// never runs git.
func TestGitStateIsLazy(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t)
	gitRepo(t, root)
	for _, cmd := range [][]string{{"ls"}, {"touch", "a.txt"}, {"rm", "nothere"}, {"cp", "a.txt", "new"}, {"mkdir", "-p", "src"}, {"git", "status"}} {
		g.Decide(cmd, "")
	}
	if g.git != nil {
		t.Error("git status ran although no command destroys anything")
	}
	g.Decide([]string{"rm", "a.txt"}, "")
	if g.git == nil {
		t.Fatal("rm a.txt was decided without git's state")
	}
	first := g.git
	g.Decide([]string{"rm", "b.txt"}, "")
	if g.git != first {
		t.Error("git's state was read twice in one run without a command running")
	}
}

// TestExecuteRechecksDestroys: a file that did not exist when the plan was
// made, and that an earlier command created, is not deleted silently.
func TestExecuteRechecksDestroys(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t, "cp *")
	gitRepo(t, root)
	doc := "<---RUN--->\ncp a.txt fresh.txt\n<---END--->\n<---RUN--->\nrm fresh.txt\n<---END--->\n<---RUN--->\nrm b.txt\n<---END--->\n"
	p := plan(t, g, doc)
	if p.Results[1].Decision != Allow {
		t.Fatalf("before cp ran, rm fresh.txt = %+v, want allow (nothing to delete)", p.Results[1].Verdict)
	}
	g.Execute(context.Background(), p, ExecOptions{}, nil)
	if got := statuses(p); strings.Join(got, " ") != "ran not-approved ran" {
		t.Errorf("statuses = %v, want ran not-approved ran", got)
	}
	if p.Results[1].Rule != rules.NotRestorable {
		t.Errorf("rm fresh.txt after cp: rule %q, want %s", p.Results[1].Rule, rules.NotRestorable)
	}
	if _, err := os.Stat(filepath.Join(root, "fresh.txt")); err != nil {
		t.Errorf("fresh.txt was deleted: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); err == nil {
		t.Error("rm b.txt (tracked, unmodified) did not run")
	}
}

// TestTimeOutputDestroys: time -o FILE replaces FILE (unless -a appends),
// so it is allowed only when git can restore it.
func TestTimeOutputDestroys(t *testing.T) {
	t.Parallel()
	_, noTime := exec.LookPath("time")
	g, root := newTestGateway(t)
	gitRepo(t, root)
	for _, tt := range []struct {
		cmd  string
		want Decision
	}{
		{"nice time -o a.txt ls", Allow},            // tracked, unmodified
		{"nice time -o new.txt ls", Allow},          // created
		{"nice time -o untracked.txt ls", Ask},      // replaced, and git has no copy
		{"nice time -a -o untracked.txt ls", Allow}, // appended to: nothing lost
	} {
		argv, _ := parser.Command(tt.cmd)
		v := g.Decide(argv, "")
		if noTime != nil {
			// Without GNU time the wrapper cannot run at all.
			if v.Decision != Deny || v.Rule != rules.NotFound {
				t.Errorf("Decide(%q) without time installed = %s (%s), want deny (%s)", tt.cmd, v.Decision, v.Rule, rules.NotFound)
			}
			continue
		}
		if v.Decision != tt.want || (tt.want == Ask && v.Rule != rules.NotRestorable) {
			t.Errorf("Decide(%q) = %s (%s: %s), want %s", tt.cmd, v.Decision, v.Rule, v.Reason, tt.want)
		}
	}
}
