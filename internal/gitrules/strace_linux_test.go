package gitrules

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/clada/clada/internal/stracetest"
)

// TestTableUnderStrace is the differential test of the git table (issue 16
// §1, §2): for every subcommand of the table and every option that takes a
// value clada does not check as a path, git runs, hardened as clada runs
// it, with the value naming a file outside the project (--opt=OUTSIDE,
// --opt OUTSIDE); and every boolean option once (in the first subcommand
// that has it). The repository is booby
// trapped: a textconv driver, every hook and a pager all run trap.sh,
// which is outside the project. git may look at no file outside the
// project but system files and its own (stracetest.System, git's
// templates and libexec), write nothing outside the project or into
// .clada/, and exec only git itself. Command lines whose reported paths
// (Verdict.Paths, Writes) name the outside file are left out: the specs
// deny them (path-outside-root), as specs.checkGit does.
func TestTableUnderStrace(t *testing.T) {
	strace, skip := stracetest.Find(testing.Short(), t.Fatalf)
	if skip != "" {
		t.Skip(skip)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	outside := filepath.Join(base, "outside")
	trap := filepath.Join(base, "trap.sh")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trap, []byte("#!/bin/sh\ncat \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	setup := [][]string{
		{"init", "-q", "-b", "main", root},
		{"-C", root, "config", "user.name", "clada"},
		{"-C", root, "config", "user.email", "clada@example.com"},
	}
	files := map[string]string{"a.txt": "one\n", "b.txt": "two\n", ".gitattributes": "*.txt diff=trap\n"}
	for _, a := range setup {
		if out, err := exec.Command(git, a...).CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v: %s", a, err, out)
		}
	}
	for f, c := range files {
		if err := os.WriteFile(filepath.Join(root, f), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(base, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"post-index-change", "pre-commit", "post-checkout", "reference-transaction", "pre-auto-gc"} {
		if err := os.Symlink(trap, filepath.Join(base, "hooks", h)); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range [][]string{{"add", "."}, {"commit", "-q", "-m", "first"}, {"tag", "v1"},
		{"config", "diff.trap.textconv", trap}, {"config", "core.pager", trap},
		{"config", "core.hooksPath", filepath.Join(base, "hooks")}} {
		if out, err := exec.Command(git, append([]string{"-C", root}, a...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v: %s", a, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\nchanged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(Env(), "GIT_DIR="+filepath.Join(root, ".git"), "GIT_WORK_TREE="+root, "GIT_CEILING_DIRECTORIES="+base)
	gitExec := func(p string) bool {
		return p == git || p == "/usr/lib/git-core/git" || strings.HasSuffix(p, "/git-core/git")
	}
	sb := stracetest.Sandbox{Root: root, Base: base, Env: env, Exec: gitExec,
		System: []string{"/usr/share/git-core/", "/usr/lib/git-core/", "/usr/libexec/git-core/", "/etc/gitconfig", "/etc/gitattributes"}}

	// Every value option runs in every subcommand (git parses them
	// differently: rev-list takes --decorate-refs only attached, log
	// either way). A boolean runs in the first subcommand that has it:
	// the diff and revision booleans are the same code in log, show,
	// whatchanged …, and 1,200 runs would double the test's time.
	var lines [][]string
	boolSeen := map[string]bool{}
	onceBool := func(name, flag string) {
		if !boolSeen[flag] {
			boolSeen[flag] = true
			lines = append(lines, []string{name, flag})
		}
	}
	for _, name := range sortedTableNames() {
		tb := tables[name].get()
		for _, long := range sortedLong(tb) {
			o := tb.long[long]
			switch o.kind {
			case kBool:
				onceBool(name, "--"+long)
			case kValue, kOptional, kAttached:
				lines = append(lines, []string{name, "--" + long + "=" + outside + "/secret"})
				if o.kind == kValue {
					lines = append(lines, []string{name, "--" + long, outside + "/secret"})
				}
			}
		}
		for _, c := range sortedShort(tb) {
			o := tb.short[c]
			switch o.kind {
			case kBool:
				onceBool(name, "-"+string(c))
			case kValue, kOptional:
				lines = append(lines, []string{name, "-" + string(c) + outside + "/secret"})
			}
		}
		lines = append(lines, []string{name}, []string{name, "HEAD"}, []string{name, "--", "a.txt"})
	}

	ran, denied, failures := stracetest.RunAll(strace, lines, func(args []string) (stracetest.Line, bool) {
		v := Check(args)
		// Left out as the specs leave them out: a path outside the root
		// is denied, and a form that shows textconv output (status -v)
		// is asked when a driver is set, as in this repository.
		if v.Outcome != Allow || mentions(v.Paths, outside) || mentions(v.Writes, outside) || v.Textconv != "" {
			return stracetest.Line{}, false
		}
		return stracetest.Line{Show: "git " + strings.Join(args, " "), Argv: append([]string{git}, Harden(args)...), Sandbox: sb}, true
	})
	for _, f := range failures {
		t.Error(f)
	}
	t.Logf("%d git command lines: %d allowed and traced, %d denied or asked (not run)", len(lines), ran, denied)
	if ran < 200 {
		t.Errorf("only %d allowed git command lines ran; the generator no longer covers the table", ran)
	}
}

func mentions(words []string, dir string) bool {
	for _, w := range words {
		if strings.Contains(w, dir) {
			return true
		}
	}
	return false
}

// sortedTableNames lists the subcommands, the most used first (so that
// a boolean shared by several runs in log, show or diff), then the rest
// sorted.
func sortedTableNames() []string {
	first := []string{"log", "show", "diff", "status", "grep", "blame"}
	names := append([]string{}, first...)
	var rest []string
	for n := range tables {
		if !slices.Contains(first, n) {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}

func sortedLong(tb *table) []string {
	var names []string
	for n := range tb.long {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func sortedShort(tb *table) []byte {
	var cs []byte
	for c := range tb.short {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
	return cs
}
