package gitrules

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPatchNamesMatch(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		reroll bool
		want   bool
	}{
		{"0001-fix.patch", false, true},
		{"0000-cover-letter.patch", false, true},
		{"12345-x.patch", false, true},
		{"1", false, true},
		{"-005-x.patch", false, true},
		{"0001.patch", false, true},
		{"v2-0001-fix.patch", false, false},
		{"v2-0001-fix.patch", true, true},
		{"v123.patch", true, true},
		{"notes.txt", true, false},
		{"-x", false, false},
		{"-", false, false},
		{"", true, false},
		{"README.md", false, false},
	} {
		if got := (PatchNames{Reroll: tt.reroll}).Match(tt.name); got != tt.want {
			t.Errorf("PatchNames{Reroll: %v}.Match(%q) = %v, want %v", tt.reroll, tt.name, got, tt.want)
		}
	}
}

// TestPatchNamesOfCheck: format-patch reports the names it writes, with
// -v or --reroll-count making "v" names possible; other commands none.
func TestPatchNamesOfCheck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in     string
		reroll bool
	}{
		{"format-patch -1", false},
		{"format-patch -o out -1", false},
		{"format-patch --numbered-files -1", false},
		{"format-patch -v2 -1", true},
		{"format-patch -1 -v 3", true},
		{"format-patch --reroll-count=2 -1", true},
		{"format-patch --rerol=2 -1", true},
		{"format-patch -kv2 -1", true},
	} {
		v := Check(strings.Fields(tt.in))
		if v.Outcome != Allow || v.Patches == nil || v.Patches.Reroll != tt.reroll {
			t.Errorf("Check(%q) = %v, Patches %+v, want allow with Reroll %v", tt.in, v.Outcome, v.Patches, tt.reroll)
		}
	}
	if v := Check([]string{"log", "-1"}); v.Patches != nil {
		t.Errorf("git log -1 reports patch names: %+v", v.Patches)
	}
}

// TestPatchNamesOfGit runs git format-patch with the options that shape
// its file names and checks that every file it writes matches: the
// prediction is what the gateway's restore check relies on.
func TestPatchNamesOfGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed for this test: %v", err)
	}
	dir := t.TempDir()
	env := append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	for i, subject := range []string{"first: a / b", "second"} {
		if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(strings.Repeat("x\n", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "a.txt")
		git("commit", "-qm", subject)
	}
	for i, opts := range []string{
		"-2", "-2 --cover-letter", "-2 --numbered-files", "-2 --numbered-files --cover-letter",
		"-2 --suffix=", "-2 --suffix=.txt", "-2 --filename-max-length=1", "-1 --start-number=12345",
		"-1 --start-number=-5", "-2 -v 3", "-2 -v 7 --filename-max-length=1", "-2 -v 123456 --filename-max-length=1",
		"-2 -v a-b --cover-letter", "-2 -v 2 --numbered-files",
	} {
		args := strings.Fields(opts)
		v := Check(append([]string{"format-patch"}, args...))
		if v.Outcome != Allow || v.Patches == nil {
			t.Fatalf("Check(format-patch %s) = %v %s, Patches %v", opts, v.Outcome, v.Reason, v.Patches)
		}
		out := filepath.Join("out", string(rune('a'+i)))
		git(append([]string{"format-patch", "-q", "-o", out}, args...)...)
		ents, err := os.ReadDir(filepath.Join(dir, out))
		if err != nil || len(ents) == 0 {
			t.Fatalf("git format-patch %s wrote nothing: %v", opts, err)
		}
		for _, e := range ents {
			if !v.Patches.Match(e.Name()) {
				t.Errorf("git format-patch %s wrote %s, which PatchNames%+v does not match", opts, e.Name(), *v.Patches)
			}
		}
	}
}
