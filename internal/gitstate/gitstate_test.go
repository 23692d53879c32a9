package gitstate

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAndLost(t *testing.T) {
	t.Parallel()
	z := func(entries ...string) []byte { return []byte(strings.Join(entries, "\x00") + "\x00") }
	obj := "0123456789012345678901234567890123456789"
	ls := z(
		"H 100644 "+obj+" 0\ta.txt",
		"H 100644 "+obj+" 0\tmod.txt",
		"H 100644 "+obj+" 0\tstaged.txt",
		"H 100644 "+obj+" 0\tgone.txt",
		"H 100644 "+obj+" 0\tsrc/x.go",
		"H 100644 "+obj+" 0\tsrc/y.go",
		"H 100644 "+obj+" 0\tmixed/t.txt",
		"h 100644 "+obj+" 0\tassumed.txt",
		"S 100644 "+obj+" 0\tsparse/s.txt",
		"H 160000 "+obj+" 0\tvendor/sub",
		"M 100644 "+obj+" 1\tconflict.txt",
		"M 100644 "+obj+" 2\tconflict.txt",
		"H 100644 "+obj+" 0\twith space/and\ttab.txt",
	)
	status := z(
		"1 .M N... 100644 100644 100644 "+obj+" "+obj+" mod.txt",
		"1 M. N... 100644 100644 100644 "+obj+" "+obj+" staged.txt",
		"1 .D N... 100644 100644 000000 "+obj+" "+obj+" gone.txt",
		"u UU N... 100644 100644 100644 100644 "+obj+" "+obj+" "+obj+" conflict.txt",
		"2 R. N... 100644 100644 100644 "+obj+" "+obj+" R100 new.txt", "old.txt",
		"? untracked.txt",
		"? mixed/new/",
		"! build/",
		"! mixed/t.o",
	)
	s, err := parse(status, ls)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rel  string
		tree bool
		want []string
	}{
		{"a.txt", false, nil},
		{"./a.txt", false, nil},
		{"src/x.go", false, nil},
		{"src", true, nil},
		{"with space/and\ttab.txt", false, nil},
		{"mod.txt", false, []string{"mod.txt (modified)"}},
		{"staged.txt", false, []string{"staged.txt (staged, not committed)"}},
		{"new.txt", false, []string{"new.txt (staged, not committed)"}},
		{"untracked.txt", false, []string{"untracked.txt (untracked)"}},
		{"nothere.txt", false, []string{"nothere.txt (not tracked by git)"}},
		{"build", true, []string{"build/ (ignored)"}},
		{"build/deep/x.o", false, []string{"build/ (ignored)"}},
		{"build/deep", true, []string{"build/ (ignored)"}},
		{"mixed", true, []string{"mixed/new/ (untracked)", "mixed/t.o (ignored)"}},
		{"mixed/t.txt", false, nil},
		{"assumed.txt", false, []string{"assumed.txt (marked assume-unchanged)"}},
		{"sparse", true, []string{"sparse/s.txt (marked skip-worktree)"}},
		{"vendor", true, []string{"vendor/sub/ (a submodule)"}},
		{"vendor/sub", true, []string{"vendor/sub/ (a submodule)"}},
		{"vendor/sub/f", false, []string{"vendor/sub/ (a submodule)"}},
		{"conflict.txt", false, []string{"conflict.txt (in a merge conflict)"}},
		{".", true, []string{"assumed.txt (marked assume-unchanged)", "build/ (ignored)", "conflict.txt (in a merge conflict)",
			"mixed/new/ (untracked)", "mixed/t.o (ignored)", "mod.txt (modified)", "new.txt (staged, not committed)",
			"sparse/s.txt (marked skip-worktree)", "staged.txt (staged, not committed)", "untracked.txt (untracked)",
			"vendor/sub/ (a submodule)"}},
		{"gone.txt", false, nil}, // deleted from the work tree: nothing left to lose
	}
	for _, tt := range tests {
		var got []string
		for _, l := range s.Lost(tt.rel, tt.tree) {
			got = append(got, l.String())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Lost(%q, %v) (-want +got):\n%s", tt.rel, tt.tree, diff)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ status, ls string }{
		{"", "garbage\x00"},
		{"1 short\x00", ""},
		{"X what\x00", ""},
	} {
		if _, err := parse([]byte(tt.status), []byte(tt.ls)); err == nil {
			t.Errorf("parse(%q, %q) accepted it", tt.status, tt.ls)
		}
	}
}

// exitError is what a Runner returns for a git that exited non-zero.
type exitError int

func (e exitError) Error() string { return "exit" }
func (e exitError) ExitCode() int { return int(e) }

func TestReadFailures(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want string
	}{
		{exitError(128), "not a git repository"},
		{errors.New("exec: \"git\": executable file not found in $PATH"), "not found"},
	} {
		s := Read(func(...string) ([]byte, error) { return nil, tt.err })
		if s.Failed() == nil || !strings.Contains(s.Failed().Error(), tt.want) {
			t.Errorf("Read with %v: Failed() = %v, want it to say %q", tt.err, s.Failed(), tt.want)
		}
		l := s.Lost("a.txt", false)
		if len(l) != 1 || l[0].Path != "a.txt" {
			t.Errorf("Lost after a failed read = %v, want a.txt lost", l)
		}
		if l := s.Lost("build", true); len(l) != 1 || l[0].Path != "build/" {
			t.Errorf("Lost(build tree) after a failed read = %v", l)
		}
	}
	s := Read(func(args ...string) ([]byte, error) {
		if args[0] == "status" {
			return []byte("? x\x00"), nil
		}
		return []byte("nonsense\x00"), nil
	})
	if s.Failed() == nil {
		t.Error("unreadable ls-files output was taken as a state")
	}
}

// TestReadRealRepository runs the real git on a repository with every
// kind of file.
func TestReadRealRepository(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed for this test: %v", err)
	}
	root := t.TempDir()
	run := func(args ...string) ([]byte, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+root,
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		return cmd.Output()
	}
	must := func(args ...string) {
		t.Helper()
		if out, err := run(args...); err != nil {
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
	must("init", "-q")
	write(".gitignore", "*.o\nout/\n")
	for _, f := range []string{"a.txt", "mod.txt", "staged.txt", "assumed.txt", "src/x.go", "src/y.go", "mixed/t.txt"} {
		write(f, "v1\n")
	}
	must("add", ".")
	must("commit", "-qm", "one")
	write("mod.txt", "v2\n")
	write("staged.txt", "v2\n")
	must("add", "staged.txt")
	write("assumed.txt", "v2\n")
	must("update-index", "--assume-unchanged", "assumed.txt")
	write("untracked.txt", "u\n")
	write("mixed/new.txt", "u\n")
	write("mixed/t.o", "o\n")
	write("out/deep/x", "o\n")
	must("config", "status.showUntrackedFiles", "no") // clada asks for untracked files whatever the config says
	s := Read(run)
	if s.Failed() != nil {
		t.Fatal(s.Failed())
	}
	for _, tt := range []struct {
		rel  string
		tree bool
		want []string
	}{
		{"a.txt", false, nil},
		{"src", true, nil},
		{"mod.txt", false, []string{"mod.txt (modified)"}},
		{"staged.txt", false, []string{"staged.txt (staged, not committed)"}},
		{"assumed.txt", false, []string{"assumed.txt (marked assume-unchanged)"}},
		{"untracked.txt", false, []string{"untracked.txt (untracked)"}},
		{"mixed", true, []string{"mixed/new.txt (untracked)", "mixed/t.o (ignored)"}},
		{"out", true, []string{"out/ (ignored)"}},
	} {
		var got []string
		for _, l := range s.Lost(tt.rel, tt.tree) {
			got = append(got, l.String())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Lost(%q, %v) (-want +got):\n%s", tt.rel, tt.tree, diff)
		}
	}
	// Not a repository.
	other := t.TempDir()
	s = Read(func(args ...string) ([]byte, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = other
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CEILING_DIRECTORIES="+filepath.Dir(other))
		out, err := cmd.Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out, exitError(ee.ExitCode())
		}
		return out, err
	})
	if s.Failed() == nil || !strings.Contains(s.Failed().Error(), "not a git repository") {
		t.Errorf("outside a repository: Failed() = %v", s.Failed())
	}
}
