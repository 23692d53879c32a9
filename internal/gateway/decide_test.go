package gateway

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
)

// TestDecideOrder walks the decision order of docs/rules.md.
func TestDecideOrder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"sub", "bin"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "bin", "tool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "bin", "notexec"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	patterns := func(ps ...string) []approve.Pattern {
		var out []approve.Pattern
		for _, s := range ps {
			p, err := approve.ParsePattern(s, ParsePattern)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
		return out
	}
	cmds := &approve.Commands{
		Path:    filepath.Join(root, ".clada", "commands.toml"),
		Allowed: patterns("npm test", "make *", "ls -la", "cat secret.txt"),
		Blocked: patterns("ls -la", "git push *"),
	}
	tests := []struct {
		name      string
		cmd       string
		dir       string
		untrusted bool
		noHard    bool
		want      Decision
		wantRule  rules.Rule
		missing   bool // Verdict.Missing is set
		reason    string
	}{
		{name: "spec allows", cmd: "cat README.md", want: Allow, wantRule: "spec"},
		{name: "spec denies", cmd: "cat -z README.md", want: Deny, wantRule: "unknown-flag"},
		{name: "no spec asks", cmd: "true", want: Ask, wantRule: rules.NotInSpecs},
		{name: "allowed pattern", cmd: "npm test", want: Allow, wantRule: rules.AllowedPattern},
		{name: "allowed prefix pattern", cmd: "make build -j4", want: Allow, wantRule: rules.AllowedPattern},
		{name: "prefix pattern needs whole words", cmd: "makefoo", want: Ask, wantRule: rules.NotInSpecs, missing: true},
		{name: "blocked beats allowed", cmd: "ls -la", want: Deny, wantRule: rules.BlockedPattern,
			reason: "blocked patterns are step 1, allowed step 3"},
		{name: "blocked beats spec", cmd: "git push origin main", want: Deny, wantRule: rules.BlockedPattern},
		{name: "hard block", cmd: "sudo ls", want: Deny, wantRule: "hard-block"},
		{name: "hard block through wrapper", cmd: "env sudo ls", want: Deny, wantRule: "hard-block"},
		{name: "hard block dd", cmd: "dd if=a of=b", want: Deny, wantRule: "hard-block"},
		{name: "hard blocks switched off", cmd: "dd if=a of=b", noHard: true, want: Ask, wantRule: rules.NotInSpecs},
		{name: "wrapper of a spec'd command", cmd: "env ls", want: Allow, wantRule: "spec"},
		{name: "wrapper of an unknown command asks", cmd: "nice true", want: Ask, wantRule: rules.NotInSpecs},
		{name: "shell asks", cmd: "sh -c ls", want: Ask, wantRule: "wrapper"},
		{name: "dir inside", cmd: "ls", dir: "sub", want: Allow},
		{name: "dir outside", cmd: "ls", dir: "..", want: Deny, wantRule: "path-outside-root"},
		{name: "dir through symlink out", cmd: "ls", dir: "escape", want: Deny, wantRule: "path-outside-root"},
		{name: "dir missing", cmd: "ls", dir: "nope", want: Deny, wantRule: rules.DirNotFound},
		{name: "path-like program inside", cmd: "bin/tool", want: Ask, wantRule: rules.NotInSpecs},
		{name: "path-like program missing", cmd: "bin/nosuch", want: Ask, wantRule: rules.NotInSpecs, missing: true,
			reason: "whether a program exists is a fact, not a policy: an earlier block may create it"},
		{name: "path-like program is a directory", cmd: "./sub", want: Ask, wantRule: rules.NotInSpecs, missing: true},
		{name: "path-like program not executable", cmd: "./bin/notexec", want: Ask, wantRule: rules.NotInSpecs, missing: true},
		{name: "path-like program outside", cmd: "../tool", want: Deny, wantRule: "path-outside-root"},
		{name: "absolute program outside", cmd: "/no/such/ls", want: Deny, wantRule: "path-outside-root",
			reason: "a path outside the root that is no program file stays refused (TestDecideOutsideProgram: /usr/bin/ls is judged as ls)"},
		{name: "spec write outside", cmd: "touch /etc/passwd", want: Deny, wantRule: "path-outside-root"},
		{name: "spec read outside", cmd: "cat /etc/passwd", want: Ask, wantRule: rules.ReadOutside},
		{name: "untrusted spec allow asks", cmd: "cat README.md", untrusted: true, want: Ask, wantRule: rules.Untrusted},
		{name: "untrusted pattern allow asks", cmd: "npm test", untrusted: true, want: Ask, wantRule: rules.Untrusted},
		{name: "untrusted deny stays deny", cmd: "touch /etc/passwd", untrusted: true, want: Deny},
		{name: "unknown program", cmd: "no-such-program-xyz", want: Ask, wantRule: rules.NotInSpecs, missing: true,
			reason: "a dry run in CI decides as on a laptop; running it reports exit 127"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := New(Options{Root: root, Commands: cmds, Untrusted: tt.untrusted, NoHardBlocks: tt.noHard})
			if err != nil {
				t.Fatal(err)
			}
			argv, err := parser.Command(tt.cmd)
			if err != nil {
				t.Fatal(err)
			}
			v := g.Decide(argv, tt.dir)
			if v.Decision != tt.want || (tt.wantRule != "" && v.Rule != tt.wantRule) {
				t.Errorf("Decide(%q, %q) = %s (%s: %s), want %s (%s)", tt.cmd, tt.dir, v.Decision, v.Rule, v.Reason, tt.want, tt.wantRule)
			}
			if v.Decision != Allow && v.Advice == "" {
				t.Errorf("Decide(%q): %s without advice: %+v", tt.cmd, v.Decision, v)
			}
			if v.Decision == Ask && v.Why == "" {
				t.Errorf("Decide(%q): ask without a reason to show the person", tt.cmd)
			}
			if (v.Missing != "") != tt.missing {
				t.Errorf("Decide(%q): Missing = %q, want it set: %v", tt.cmd, v.Missing, tt.missing)
			}
			if v.Decision != Deny && !tt.missing && (len(v.Exec) == 0 || !filepath.IsAbs(v.Exec[0])) {
				t.Errorf("Decide(%q): exec %q is not an absolute program", tt.cmd, v.Exec)
			}
		})
	}
}

// TestDecideGitExec checks that git runs hardened even when a pattern,
// not a spec, allows it, while argv stays what the model wrote.
func TestDecideGitExec(t *testing.T) {
	t.Parallel()
	g, _ := newTestGateway(t, "git commit *")
	for _, cmd := range []string{"git status", "git commit -m x"} {
		argv, err := parser.Command(cmd)
		if err != nil {
			t.Fatal(err)
		}
		v := g.Decide(argv, "")
		if v.Decision != Allow {
			t.Fatalf("Decide(%q) = %+v", cmd, v)
		}
		if !slices.Contains(v.Exec, "--no-pager") || !slices.Contains(v.Exec, "core.fsmonitor=false") {
			t.Errorf("Decide(%q).Exec = %q, want git hardening", cmd, v.Exec)
		}
		if !slices.Contains(v.Env, "GIT_TERMINAL_PROMPT=0") {
			t.Errorf("Decide(%q).Env = %q", cmd, v.Env)
		}
		if slices.Contains(argv, "--no-pager") {
			t.Error("hardening leaked into argv")
		}
	}
}

// TestDecideGitChdir: git -C DIR is decided as git in DIR (issue 27):
// allowed where DIR is a directory inside the project, each -C from the
// one before; refused outside, in .git or .clada, for a missing
// directory, and wherever the git rules refuse what follows.
func TestDecideGitChdir(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t)
	for _, d := range []string{"sub/deep", ".git", ".clada"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc", filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd, dir string // dir: the directory it runs in, relative to root
		want     Decision
		rule     rules.Rule
	}{
		{"git -C sub status", "sub", Allow, "spec"},
		{"git -C . log --oneline", ".", Allow, "spec"},
		{"git -C sub -C deep status", "sub/deep", Allow, "spec"},
		{"git --no-pager -C sub diff", "sub", Allow, "spec"},
		{"git -C sub/deep -C .. status", "sub", Allow, "spec"},
		{"git -C .. status", "", Deny, "path-outside-root"},
		{"git -C sub -C ../.. status", "", Deny, "path-outside-root"},
		{"git -C /etc status", "", Deny, "path-outside-root"},
		{"git -C escape status", "", Deny, "path-outside-root"},
		{"git -C .git status", "", Deny, "protected-path"},
		{"git -C .clada status", "", Deny, "protected-path"},
		{"git -C nosuch status", "", Deny, rules.DirNotFound},
		{"git -C sub -c core.pager=x log", "", Deny, "git-option"},
		{"git -C sub push", "", Ask, "git-subcommand"},
		{"git -C '' status", "", Deny, "git-option"},
	}
	for _, tt := range tests {
		argv, err := parser.Command(tt.cmd)
		if err != nil {
			t.Fatal(err)
		}
		v := g.Decide(argv, "")
		if v.Decision != tt.want || v.Rule != tt.rule {
			t.Errorf("Decide(%q) = %s (rule %s): %s; want %s (rule %s)", tt.cmd, v.Decision, v.Rule, v.Reason, tt.want, tt.rule)
			continue
		}
		if tt.dir != "" {
			if want := filepath.Join(root, tt.dir); v.Dir != want {
				t.Errorf("Decide(%q).Dir = %s, want %s", tt.cmd, v.Dir, want)
			}
			if slices.Contains(v.Exec, "-C") {
				t.Errorf("Decide(%q).Exec = %q still holds -C", tt.cmd, v.Exec)
			}
		}
	}
}

// TestDecideOutsideProgram: a program named by a path outside the project
// (issue 27) is judged as the program PATH finds when it is that file, runs
// from the path given, and keeps the hard blocks and path checks; a copy
// in a directory the person can write is asked; a path that is no
// program stays refused.
func TestDecideOutsideProgram(t *testing.T) {
	t.Parallel()
	lsPath, err := exec.LookPath("ls")
	if err != nil {
		t.Skip("no ls on PATH")
	}
	g, _ := newTestGateway(t)
	copyDir := t.TempDir() // writable by this process, outside the root
	data, err := os.ReadFile(lsPath)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(copyDir, "ls")
	if err := os.WriteFile(copied, data, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		argv []string
		want Decision
		rule rules.Rule
		word string
	}{
		{[]string{lsPath, "-la"}, Allow, "spec", ""},
		{[]string{lsPath, "/etc"}, Ask, rules.ReadOutside, "/etc"},
		{[]string{lsPath, "-d", "/root/.ssh"}, Deny, "path-outside-root", "/root/.ssh"},
		{[]string{copied, "-la"}, Ask, rules.ProgramOutside, copied},
		{[]string{"/etc/passwd"}, Deny, "path-outside-root", "/etc/passwd"},
		{[]string{filepath.Join(filepath.Dir(lsPath), "sudo"), "ls"}, Deny, "hard-block", ""},
	}
	for _, tt := range tests {
		v := g.Decide(tt.argv, "")
		if v.Decision != tt.want || v.Rule != tt.rule || (tt.word != "" && v.Word != tt.word) {
			t.Errorf("Decide(%q) = %s (rule %s, word %q): %s; want %s (rule %s, word %q)", tt.argv, v.Decision, v.Rule, v.Word, v.Reason, tt.want, tt.rule, tt.word)
		}
		if tt.want == Allow && (len(v.Exec) == 0 || v.Exec[0] != tt.argv[0]) {
			t.Errorf("Decide(%q).Exec = %q, want it to run %s", tt.argv, v.Exec, tt.argv[0])
		}
	}
}

// TestDirNotFoundAdvice: the advice says what dir= is relative to as the
// gateway reads it: the directory clada runs in (Base), not always the
// root.
func TestDirNotFoundAdvice(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub", "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		base, dir string
		decision  Decision
		advice    string
	}{
		{"", "nope", Deny, "relative to the project root"},
		{"sub", "nope", Deny, "relative to sub/, the directory clada runs in"},
		{"sub", "in", Allow, ""},                         // sub/in: relative to the base
		{"", "in", Deny, "relative to the project root"}, // no in/ at the root
	} {
		g, err := New(Options{Root: root, Base: c.base})
		if err != nil {
			t.Fatal(err)
		}
		v := g.Decide([]string{"ls"}, c.dir)
		if v.Decision != c.decision || (c.decision == Deny && (v.Rule != rules.DirNotFound || !strings.Contains(v.Advice, c.advice))) {
			t.Errorf("base %q dir %q: %s %s %q, want %s with advice containing %q", c.base, c.dir, v.Decision, v.Rule, v.Advice, c.decision, c.advice)
		}
	}
}
