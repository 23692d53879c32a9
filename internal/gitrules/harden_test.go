package gitrules

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"
)

func TestHarden(t *testing.T) {
	t.Parallel()
	ro := strings.Join(append(append([]string{}, hardenAll...), hardenReadOnly...), " ")
	all := strings.Join(hardenAll, " ")
	tests := []struct {
		name string
		in   []string
		want string // space-joined
	}{
		{"none", nil, all},
		{"status", []string{"status", "-s"}, ro + " status -s"},
		{"diff", []string{"diff", "--stat"}, ro + " diff --no-ext-diff --no-textconv --stat"},
		{"log after globals", []string{"--no-pager", "-P", "log", "-p"}, ro + " --no-pager -P log --no-ext-diff --no-textconv -p"},
		{"show", []string{"show", "HEAD"}, ro + " show --no-ext-diff --no-textconv HEAD"},
		{"blame", []string{"blame", "a.txt"}, ro + " blame --no-textconv a.txt"},
		{"stash show", []string{"stash", "show", "-p"}, ro + " stash show --no-ext-diff --no-textconv -p"},
		{"stash list", []string{"stash", "list"}, ro + " stash list --no-ext-diff --no-textconv"},
		{"approved commit keeps signing and hooks", []string{"commit", "-m", "x"}, all + " commit -m x"},
		{"approved stash push", []string{"stash"}, all + " stash"},
		{"denied global value skipped", []string{"-c", "a=b", "log"}, ro + " -c a=b log --no-ext-diff --no-textconv"},
		{"git-dir value skipped", []string{"--git-dir", "/x", "diff"}, ro + " --git-dir /x diff --no-ext-diff --no-textconv"},
		{"version", []string{"--version"}, all + " --version"},
		{"tag listing is read-only", []string{"tag", "-l"}, ro + " tag -l"},
		{"approved tag keeps signing", []string{"tag", "-s", "v1", "-m", "x"}, all + " tag -s v1 -m x"},
		{"approved branch deletion", []string{"branch", "-d", "x"}, all + " branch -d x"},
		{"approved stash pop", []string{"stash", "pop"}, all + " stash pop"},
		{"approved config write", []string{"config", "user.name", "x"}, all + " config user.name x"},
		{"reflog implicit show", []string{"reflog", "-p"}, ro + " reflog --no-ext-diff --no-textconv -p"},
		{"reflog show", []string{"reflog", "show", "HEAD"}, ro + " reflog show --no-ext-diff --no-textconv HEAD"},
		{"reflog exists gets nothing inserted", []string{"reflog", "exists", "HEAD"}, ro + " reflog exists HEAD"},
		{"format-patch", []string{"format-patch", "-1"}, ro + " format-patch --no-ext-diff --no-textconv -1"},
		{"grep", []string{"grep", "x"}, ro + " grep x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := slices.Clone(tt.in)
			got := strings.Join(Harden(in), " ")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Harden(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if diff := cmp.Diff(tt.in, in); diff != "" {
				t.Errorf("Harden modified its argument (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEnv(t *testing.T) {
	t.Parallel()
	env := Env()
	for _, want := range []string{"GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat"} {
		if !slices.Contains(env, want) {
			t.Errorf("Env() = %q, missing %q", env, want)
		}
	}
}

// trapRepo makes a repository whose configuration names a program for every
// hook a read-only git command might run. Each program appends its name to
// the returned marker file.
func trapRepo(t *testing.T) (dir, marker string, baseEnv []string, signed []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	dir = filepath.Join(root, "repo")
	bin := filepath.Join(root, "bin")
	marker = filepath.Join(root, "marker")
	for _, d := range []string{dir, bin} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Without an inherited GIT_* or PAGER, a private HOME and no system config.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "PAGER=") && !strings.HasPrefix(kv, "HOME=") {
			baseEnv = append(baseEnv, kv)
		}
	}
	baseEnv = append(baseEnv, "HOME="+root, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	script := func(name string) string {
		p := filepath.Join(bin, name)
		body := "#!/bin/sh\necho " + name + " >> '" + marker + "'\n" +
			"if [ $# -eq 1 ] && [ -f \"$1\" ]; then cat \"$1\"; elif [ $# -eq 0 ]; then cat; fi\nexit 0\n"
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	git := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, baseEnv
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %q: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("", "init", "-q", ".")
	git("", "config", "user.name", "clada")
	git("", "config", "user.email", "clada@example.com")
	write("a.txt", "one\n")
	write("b.txt", "one\n")
	write("c.txt", "unchanged\n")
	write(".gitattributes", "*.txt diff=evil\n")
	git("", "add", ".")
	git("", "commit", "-q", "-m", "first")
	// Commits with (fake) signatures of each kind: showing %G? verifies
	// them with the program git configures for that kind.
	raw := git("", "cat-file", "commit", "HEAD")
	for _, kind := range []string{"PGP SIGNATURE", "SIGNED MESSAGE", "SSH SIGNATURE"} {
		sig := "\ngpgsig -----BEGIN " + kind + "-----\n AAAA\n -----END " + kind + "-----\n\n"
		signed = append(signed, git(strings.Replace(raw, "\n\n", sig, 1)+"\n", "hash-object", "-t", "commit", "-w", "--stdin"))
	}
	// A stash entry, a staged change and an unstaged change.
	write("a.txt", "one\nstashed\n")
	git("", "stash", "push", "-q")
	write("b.txt", "one\nstaged\n")
	git("", "add", "b.txt")
	write("a.txt", "one\nchanged\n")

	git("", "config", "core.pager", script("pager"))
	git("", "config", "pager.log", script("pager-log"))
	git("", "config", "core.fsmonitor", script("fsmonitor"))
	git("", "config", "diff.external", script("ext-diff"))
	git("", "config", "diff.evil.textconv", script("textconv"))
	git("", "config", "gpg.program", script("gpg"))
	git("", "config", "gpg.x509.program", script("gpgsm"))
	git("", "config", "gpg.ssh.program", script("ssh-keygen"))
	write("allowed-signers", "")
	git("", "config", "gpg.ssh.allowedSignersFile", filepath.Join(dir, "allowed-signers"))
	git("", "config", "log.showSignature", "true")
	hooks := filepath.Join(dir, ".git", "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"post-index-change", "reference-transaction", "post-checkout", "pre-commit"} {
		if err := os.Symlink(script("hook-"+h), filepath.Join(hooks, h)); err != nil {
			t.Fatal(err)
		}
	}
	return dir, marker, baseEnv, signed
}

func readMarker(t *testing.T, marker string) []string {
	t.Helper()
	b, err := os.ReadFile(marker)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(marker)
	names := strings.Fields(string(b))
	sort.Strings(names)
	return slices.Compact(names)
}

// TestHardenRealGit runs git against a repository whose configuration starts
// programs, first as the model wrote the command (the programs must run, so
// that this test can fail) and then hardened (none may run).
func TestHardenRealGit(t *testing.T) {
	t.Parallel()
	dir, marker, baseEnv, signed := trapRepo(t)
	index := filepath.Join(dir, ".git", "index")
	stamp := time.Now()
	// statDirty gives c.txt new timestamps but the same content: git diff
	// then refreshes the index, which writes .git/index and runs the
	// post-index-change hook.
	statDirty := func() {
		stamp = stamp.Add(time.Minute)
		if err := os.Chtimes(filepath.Join(dir, "c.txt"), stamp, stamp); err != nil {
			t.Fatal(err)
		}
	}
	commands := [][]string{
		{"status"},
		{"diff"},
		{"diff", "--cached"},
		{"log", "-p"},
		{"show"},
		{"blame", "a.txt"},
		{"stash", "show", "-p"},
		{"stash", "list", "-p"},
		{"log", "-1", "--format=%H %G?", signed[0]},
		{"log", "-1", "--format=%H %G? %GG", signed[1]},
		{"log", "-1", "--format=%H %G? %GS", signed[2]},
		{"show", "-s", signed[0]},
		{"show", "-s", signed[1]},
		{"show", "-s", signed[2]},
	}
	fired := map[string]bool{}
	// Not parallel subtests: they share the marker file.
	for _, args := range commands {
		name := strings.Join(args, " ")
		if v := Check(args); v.Outcome != Allow {
			t.Fatalf("Check(%q) = %v, the test needs allowed commands", args, v)
		}
		run := func(args, env []string) (string, error) {
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.CombinedOutput()
			return string(out), err
		}
		statDirty()
		out, _ := run(args, baseEnv)
		plain := readMarker(t, marker)
		// git stash show runs neither textconv nor external diff by default
		// (it is checked hardened all the same).
		if len(plain) == 0 && name != "stash show -p" {
			t.Errorf("git %s without hardening ran no configured program; the trap is broken\n%s", name, out)
		}
		for _, n := range plain {
			fired[n] = true
		}
		statDirty()
		before, err := os.ReadFile(index)
		if err != nil {
			t.Fatal(err)
		}
		out, err = run(Harden(args), append(slices.Clone(baseEnv), Env()...))
		if err != nil && !strings.Contains(name, "%G") {
			t.Errorf("hardened git %s: %v\n%s", name, err, out)
		}
		if after, err := os.ReadFile(index); err != nil || !bytes.Equal(before, after) {
			t.Errorf("hardened git %q rewrote .git/index (err %v)", Harden(args), err)
		}
		if got := readMarker(t, marker); len(got) != 0 {
			t.Errorf("hardened git %q ran %q\n%s", Harden(args), got, out)
		}
	}
	for _, want := range []string{"ext-diff", "fsmonitor", "gpg", "gpgsm", "ssh-keygen", "textconv", "hook-post-index-change"} {
		if !fired[want] {
			t.Errorf("no unhardened command ran %s; the trap does not cover it", want)
		}
	}
}

// TestHardenPager shows that a pager named in the configuration runs when
// git writes to a terminal, and does not when hardened.
func TestHardenPager(t *testing.T) {
	t.Parallel()
	dir, marker, baseEnv, _ := trapRepo(t)
	git := func(args, env []string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, append(slices.Clone(env), "TERM=dumb")
		f, err := pty.Start(cmd)
		if err != nil {
			t.Skipf("no pty: %v", err)
		}
		var buf bytes.Buffer
		done := make(chan struct{})
		go func() { io.Copy(&buf, f); close(done) }()
		errc := make(chan error, 1)
		go func() { errc <- cmd.Wait() }()
		select {
		case <-errc:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("git %q hung:\n%s", args, buf.String())
		}
		f.Close()
		<-done
	}
	for _, args := range [][]string{{"log", "-1"}, {"diff"}} {
		git(args, baseEnv)
		if got := readMarker(t, marker); !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "pager") }) {
			t.Errorf("git %q on a terminal ran %q, want a pager; the trap is broken", args, got)
		}
		git(Harden(args), append(slices.Clone(baseEnv), Env()...))
		if got := readMarker(t, marker); len(got) != 0 {
			t.Errorf("hardened git %q on a terminal ran %q", Harden(args), got)
		}
	}
}

// TestHardenRealGitReads runs every other read-only subcommand, hardened,
// against the booby-trapped repository: none may start a configured
// program, and each must succeed. Those that would start one unhardened
// say so in wantPlain, so that the trap is known to reach them.
func TestHardenRealGitReads(t *testing.T) {
	t.Parallel()
	dir, marker, baseEnv, _ := trapRepo(t)
	commands := []struct {
		args      []string
		wantPlain bool // unhardened, a configured program runs
	}{
		{[]string{"shortlog", "-sne", "HEAD"}, false},
		{[]string{"for-each-ref", "--format=%(refname)"}, false},
		{[]string{"rev-list", "--count", "HEAD"}, false},
		{[]string{"describe", "--always"}, false},                         // --dirty, which ran a program here, is asked: it writes .git/index
		{[]string{"check-ignore", "-v", "--non-matching", "a.txt"}, true}, // exits 1: nothing is ignored
		{[]string{"diff-tree", "-r", "-p", "HEAD"}, false},
		{[]string{"diff-index", "-p", "HEAD"}, true},
		{[]string{"diff-files", "-p"}, true},
		{[]string{"grep", "-n", "one"}, true},
		{[]string{"grep", "--cached", "one"}, false},
		{[]string{"reflog", "-p", "-1"}, true},
		{[]string{"reflog", "show", "-p", "-1"}, true},
		{[]string{"show-ref", "--heads"}, false},
		{[]string{"merge-base", "HEAD", "HEAD"}, false},
		{[]string{"cat-file", "-p", "HEAD:a.txt"}, false},
		{[]string{"ls-tree", "-r", "HEAD"}, false},
		{[]string{"tag", "-l"}, false},
		{[]string{"name-rev", "HEAD"}, false},
		{[]string{"count-objects", "-v"}, false},
		{[]string{"worktree", "list"}, false},
		{[]string{"clean", "-n"}, true},
		{[]string{"remote", "-v"}, false},
		{[]string{"config", "--list"}, false},
		{[]string{"format-patch", "--stdout", "-1"}, false},
		{[]string{"whatchanged", "-p", "-1"}, true},
		{[]string{"show-branch"}, false},
		{[]string{"stash", "show", "-p"}, false},
	}
	for _, c := range commands {
		name := strings.Join(c.args, " ")
		if v := Check(c.args); v.Outcome != Allow {
			t.Fatalf("Check(%q) = %v, the test needs allowed commands: %s", c.args, v.Outcome, v.Reason)
		}
		run := func(args, env []string) (string, error) {
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.CombinedOutput()
			return string(out), err
		}
		if c.wantPlain {
			out, _ := run(c.args, baseEnv)
			if len(readMarker(t, marker)) == 0 {
				t.Errorf("git %s without hardening ran no configured program; the trap is broken\n%s", name, out)
			}
		}
		out, err := run(Harden(c.args), append(slices.Clone(baseEnv), Env()...))
		var ee *exec.ExitError
		if err != nil && !(c.args[0] == "check-ignore" && errors.As(err, &ee) && ee.ExitCode() == 1) {
			t.Errorf("hardened git %s: %v\n%s", name, err, out)
		}
		if got := readMarker(t, marker); len(got) != 0 {
			t.Errorf("hardened git %q ran %q\n%s", Harden(c.args), got, out)
		}
	}
}

// TestDiffTablesHardened guards new read-only subcommands: every table that
// can print a patch or a diffstat gets --no-ext-diff and --no-textconv
// right after the subcommand, so no textconv or external diff program runs.
func TestDiffTablesHardened(t *testing.T) {
	t.Parallel()
	names := []string{"stash list", "stash show"}
	for n := range tables {
		names = append(names, n)
	}
	sort.Strings(names)
	checked := 0
	for _, n := range names {
		var tb *table
		switch n {
		case "stash list":
			tb = stashListTable.get()
		case "stash show":
			tb = stashShowTable.get()
		default:
			tb = tables[n].get()
		}
		_, patch := tb.long["patch"]
		_, stat := tb.long["stat"]
		if !patch && !stat {
			continue
		}
		checked++
		got := afterSubcommand(n)
		for _, want := range []string{"--no-ext-diff", "--no-textconv"} {
			if !slices.Contains(got, want) {
				t.Errorf("git %s can show a diff, but Harden inserts %q, without %s", n, got, want)
			}
		}
	}
	if checked < 4 {
		t.Errorf("only %d tables show diffs; the test does not see the tables", checked)
	}
}
