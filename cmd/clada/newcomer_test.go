//go:build linux

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestNewcomer follows the README as a newcomer does (issue 30): on a
// clean clone, the README's first command; then the five-minute start line
// by line, as the README writes it: `go install ./cmd/clada`, a clada run
// whose question the person answers as the README says, on a terminal,
// then `clada log` and `clada why` on that run, whose output must name the
// decision and its rule. The README's second command, `go test ./...`, is
// this test's own suite: .ci/run runs it, and running it here would recurse.
//
// The clone is the repository's files as `git clone` would have them:
// the files git tracks (a new file counts once it is added), as the work
// tree has them, committed into a fresh repository. Untracked files are
// left out, as a clone lacks them: a stray .env of the developer's is
// never copied. It is made at a path that is the same on every run of
// this checkout and removed afterwards: go's build cache keys a package's
// compilation by its directory, so a new directory each time would
// compile every package of clada again (~10 s of CPU) on every run.
//
// Linux only: the terminal is a pty, as in the other terminal tests.
func TestNewcomer(t *testing.T) {
	if testing.Short() {
		// It tests no race: it builds clada and runs it as a newcomer
		// would (~10 s), and the plain go test ./... runs it.
		t.Skip("-short: the newcomer test runs in the plain go test ./...")
	}
	t.Parallel()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the README's commands need go on PATH: %v", err)
	}
	first := codeBlocks(t, "README.md", "")
	if len(first) == 0 || len(first[0]) != 2 {
		t.Fatalf("README.md does not start with two commands: %q", first)
	}
	start := newcomerLines(t)

	clone := cloneRepo(t)
	bin := t.TempDir() // GOBIN: where `go install` puts clada
	goEnv := append(os.Environ(), "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	goEnv = append(goEnv, "CI=") // a newcomer's terminal, not CI
	goCmd := func(args ...string) *exec.Cmd {
		cmd := exec.Command(gobin, args...)
		cmd.Dir, cmd.Env = clone, goEnv
		return cmd
	}

	// The README's first command: a dry run of the example reply, which
	// exits 1 on purpose (two blocks are refused) and says so per block.
	args := strings.Fields(first[0][0])
	if args[0] != "go" {
		t.Fatalf("the README's first command %q does not start with go", first[0][0])
	}
	var stdout, stderr bytes.Buffer
	cmd := goCmd(args[1:]...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCodeOf(t, cmd.Run()); code != 1 {
		t.Fatalf("%s exited %d in a clean clone, want 1 (the README says it exits 1 on purpose)\nstdout:\n%s\nstderr:\n%s", first[0][0], code, &stdout, &stderr)
	}
	for _, want := range []string{"deny (rule shell-syntax) `&&`", "deny (rule expansion) `$HOME/.ssh/id_rsa`", "ask (rule spec-ask)", "summary: dry run, 6 RUN blocks"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("%s: the report lacks %q:\n%s", first[0][0], want, &stdout)
		}
	}

	// The five-minute start.
	clada := filepath.Join(bin, "clada")
	var asked, asksCmd string
	for _, l := range start {
		switch l.args[0] {
		case "go":
			out, err := goCmd(l.args[1:]...).CombinedOutput()
			if code := exitCodeOf(t, err); code != 0 {
				t.Fatalf("%s exited %d:\n%s", l.line, code, out)
			}
		case "clada":
			cmd := exec.Command(clada, l.args[1:]...)
			cmd.Dir = clone
			cmd.Env = append(os.Environ(), "HOME=/no-home", "CI=", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			if l.question == "" {
				out, err := cmd.Output()
				code := exitCodeOf(t, err)
				l.check(t, code, string(out), asked)
				continue
			}
			// A question: the person answers it on the terminal, as
			// the README tells them to.
			r := startTTYCmd(t, cmd, "")
			r.expect("clada: run `" + l.question + "`")
			r.expect(": ")
			r.answer(l.answer + "\n")
			code, term := r.wait(60 * time.Second)
			if !strings.Contains(term, "? [y]es, [n]o") {
				t.Errorf("%s: the terminal did not show the question:\n%s", l.line, term)
			}
			asked, asksCmd = l.question, l.line
			l.check(t, code, r.stdout.String(), asked)
		default:
			t.Fatalf("the five-minute start has a line %q that is neither go nor clada", l.line)
		}
	}
	if asked == "" {
		t.Fatal("the five-minute start has no clada run with a question answered")
	}
	t.Logf("%s: asked about %s", asksCmd, asked)

	// What the README says comes of answering always instead: the
	// pattern is written to the clone's .clada/commands.toml, which is
	// not trusted, so it applies only after clada trust.
	cladaIn := func(args ...string) *exec.Cmd {
		cmd := exec.Command(clada, args...)
		cmd.Dir = clone
		cmd.Env = append(os.Environ(), "HOME=/no-home", "CI=")
		return cmd
	}
	r := startTTYCmd(t, cladaIn(strings.Fields(asksCmd)[1:]...), "")
	r.expect("clada: run `" + asked + "`")
	r.expect(": ")
	r.answer("a\n")
	if code, term := r.wait(60 * time.Second); code != 0 {
		t.Fatalf("answering always: exit %d\n%s", code, term)
	}
	why := func() string {
		out, err := cladaIn("why", asked).Output()
		exitCodeOf(t, err)
		return string(out)
	}
	if out := why(); !strings.Contains(out, "decision: ask (rule not-in-specs)") {
		t.Errorf("after always, before clada trust: clada why %s does not stay ask:\n%s", asked, out)
	}
	if out, err := cladaIn("trust").CombinedOutput(); exitCodeOf(t, err) != 0 {
		t.Fatalf("clada trust:\n%s", out)
	}
	if out := why(); !strings.Contains(out, "decision: allow (rule allowed-pattern)") {
		t.Errorf("after always and clada trust: clada why %s is not allowed by the pattern:\n%s", asked, out)
	}
}

// newcomerLine is one line of the README's five-minute start.
type newcomerLine struct {
	line     string
	args     []string
	question string // the command clada asks about, when the line's comment says so
	answer   string // what the README says to answer
}

// newcomerLines reads the five-minute start of the README: one code
// block of commands, each with a comment; a run that asks says so in its
// comment, "asks you about `COMMAND`: answer y".
func newcomerLines(t *testing.T) []newcomerLine {
	t.Helper()
	data, err := os.ReadFile(repoFile("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []newcomerLine
	in := false
	asks := regexp.MustCompile("asks you about `([^`]+)`: answer ([a-z]+)")
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "## ") {
			in = strings.HasPrefix(line, "## A five-minute start")
			continue
		}
		code, ok := strings.CutPrefix(line, "    ")
		if !in || !ok {
			if len(lines) > 0 && line != "" {
				break // the first code block only
			}
			continue
		}
		cmdText, comment, _ := strings.Cut(code, " # ")
		l := newcomerLine{line: strings.TrimSpace(cmdText), args: strings.Fields(cmdText)}
		if m := asks.FindStringSubmatch(comment); m != nil {
			l.question, l.answer = m[1], m[2]
		}
		lines = append(lines, l)
	}
	if len(lines) < 4 {
		t.Fatalf("README.md's five-minute start has %d command lines, want go install, clada run, clada log and clada why: %q", len(lines), lines)
	}
	return lines
}

// check checks what a clada line of the five-minute start printed: the run
// ran what was asked, with the person's approval; the log and why name
// the command that was asked about, its decision and its rule.
func (l newcomerLine) check(t *testing.T, code int, out, asked string) {
	t.Helper()
	var want []string
	switch l.args[1] {
	case "run":
		if code != 0 {
			t.Errorf("%s exited %d, want 0 (every block ran):\n%s", l.line, code, out)
		}
		want = []string{"$ " + l.question, "approved by the person (yes)", "summary: 2 ran: 2 ok"}
	case "log":
		want = []string{"run    ask (not-in-specs) " + asked + " · ran: exit 0", "approved by the person (yes)", "allow (spec) ls"}
	case "why":
		want = []string{"decision: ask (rule not-in-specs)", "`" + asked + "` is not in clada's specs"}
	default:
		t.Fatalf("the test knows no check for %q", l.line)
	}
	if l.args[1] != "run" && code != 0 {
		t.Errorf("%s exited %d:\n%s", l.line, code, out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s: the output lacks %q:\n%s", l.line, w, out)
		}
	}
}

// cloneRepo copies the repository's tracked files as a clone has them into a
// fresh git repository with one commit, at a path that depends only on the
// checkout, and removes it when the test ends.
func cloneRepo(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs(repoFile("."))
	if err != nil {
		t.Fatal(err)
	}
	list := exec.Command("git", "ls-files", "-z", "--cached")
	list.Dir = repo
	out, err := list.Output()
	if err != nil {
		t.Fatalf("listing the repository's files with git (a clone's files): %v", err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = t.TempDir() // no stable place: the copy compiles anew
	}
	sum := sha256.Sum256([]byte(repo))
	parent := filepath.Join(cache, "clada-newcomer")
	dir := filepath.Join(parent, hex.EncodeToString(sum[:6]))
	claimDir(t, dir)
	t.Cleanup(func() {
		os.RemoveAll(dir)
		os.Remove(parent) // when no other checkout's copy is there
	})
	n := 0
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		src := filepath.Join(repo, name)
		info, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree: a clone after the commit has no such file
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			if err == nil {
				err = os.Symlink(target, dst)
			}
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d files copied from %s", n, repo)
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=newcomer", "-c", "user.email=newcomer@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", "clone"},
	} {
		git := exec.Command("git", args...)
		git.Dir = dir
		git.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git %s in the clone: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return dir
}

// claimDir makes dir for this test alone: a copy left by a run that was
// killed is removed; one that another run is using (made in the last ten
// minutes) is waited for.
func claimDir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return
		}
		if !errors.Is(err, fs.ErrExist) {
			t.Fatal(err)
		}
		if info, err := os.Stat(dir); err == nil && time.Since(info.ModTime()) > 10*time.Minute {
			os.RemoveAll(dir) // left behind by a run that did not end
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is in use by another run of this test for more than 3 minutes", dir)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
