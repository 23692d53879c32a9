package gateway

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
)

// TestDecideWrappers: a simple wrapper is judged by the command it runs,
// decided as if it stood alone, and by its own words.
func TestDecideWrappers(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"sub", ".git"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds := &approve.Commands{Path: filepath.Join(root, ".clada", "commands.toml")}
	for _, s := range []string{"true *"} {
		p, err := approve.ParsePattern(s, ParsePattern)
		if err != nil {
			t.Fatal(err)
		}
		cmds.Allowed = append(cmds.Allowed, p)
	}
	for _, s := range []string{"wc -l a.txt"} {
		p, err := approve.ParsePattern(s, ParsePattern)
		if err != nil {
			t.Fatal(err)
		}
		cmds.Blocked = append(cmds.Blocked, p)
	}
	tests := []struct {
		name     string
		cmd      string
		want     Decision
		wantRule rules.Rule
		wantWord string
	}{
		{name: "env with a spec'd command", cmd: "env ls -l", want: Allow, wantRule: "spec"},
		{name: "env -i", cmd: "env -i cat a.txt", want: Allow, wantRule: "spec"},
		{name: "env safe assignments", cmd: "env LANG=C LC_ALL=C TZ=UTC NO_COLOR=1 TERM=dumb ls", want: Allow},
		{name: "env -u", cmd: "env -u HOME -u PATH ls", want: Allow},
		{name: "env -C inside", cmd: "env -C sub ls", want: Allow},
		{name: "env -C outside", cmd: "env -C .. ls", want: Deny, wantRule: "path-outside-root", wantWord: ".."},
		{name: "env --chdir abbreviated outside", cmd: "env --ch=/ ls", want: Deny, wantRule: "path-outside-root", wantWord: "/"},
		{name: "env -C not a directory", cmd: "env -C a.txt ls", want: Deny, wantRule: rules.DirNotFound, wantWord: "a.txt"},
		{name: "env -C moves the paths", cmd: "env -C sub cat ../a.txt", want: Allow},
		{name: "env -C moves the paths out", cmd: "env -C sub touch ../../x", want: Deny, wantRule: "path-outside-root"},
		{name: "env -C moves a read out: asked", cmd: "env -C sub cat ../../x", want: Ask, wantRule: rules.ReadOutside},
		{name: "env PATH asks", cmd: "env PATH=/tmp ls", want: Ask, wantRule: "wrapper", wantWord: "PATH=/tmp"},
		{name: "env LD_PRELOAD asks", cmd: "env LD_PRELOAD=./x.so ls", want: Ask, wantRule: "wrapper", wantWord: "LD_PRELOAD=./x.so"},
		{name: "env GIT_DIR asks", cmd: "env GIT_DIR=/tmp/x git status", want: Ask, wantRule: "wrapper"},
		{name: "env NODE_OPTIONS asks", cmd: "env NODE_OPTIONS=--require=x ls", want: Ask, wantRule: "wrapper"},
		{name: "env PYTHONPATH asks", cmd: "env PYTHONPATH=. ls", want: Ask, wantRule: "wrapper"},
		{name: "env BASH_ENV asks", cmd: "env BASH_ENV=x ls", want: Ask, wantRule: "wrapper"},
		{name: "env PERL5OPT asks", cmd: "env PERL5OPT=-Mx ls", want: Ask, wantRule: "wrapper"},
		{name: "env unknown variable asks", cmd: "env FOO=1 ls", want: Ask, wantRule: "wrapper"},
		{name: "env asked variable, denied command", cmd: "env PATH=/tmp touch /etc/passwd", want: Deny, wantRule: "path-outside-root"},
		{name: "env alone asks", cmd: "env", want: Ask, wantRule: "wrapper"},
		{name: "env -S asks", cmd: "env -S 'ls -l'", want: Ask, wantRule: "wrapper", wantWord: "-S"},
		{name: "env --split-string asks", cmd: "env --split-string=ls", want: Ask, wantRule: "wrapper"},
		{name: "env unknown option asks", cmd: "env -P /tmp ls", want: Ask, wantRule: "wrapper", wantWord: "-P"},
		{name: "env --help", cmd: "env --help", want: Allow},
		{name: "env sudo", cmd: "env sudo ls", want: Deny, wantRule: "hard-block"},
		{name: "env --default-signal sudo", cmd: "env --default-signal sudo ls", want: Deny, wantRule: "hard-block"},
		{name: "env -C / rm -rf .", cmd: "env -C / rm -rf .", want: Deny, wantRule: "hard-block"},
		{name: "env of a denied command", cmd: "env touch /etc/passwd", want: Deny, wantRule: "path-outside-root", wantWord: "/etc/passwd"},
		{name: "env of a read outside", cmd: "env cat /etc/passwd", want: Ask, wantRule: rules.ReadOutside, wantWord: "/etc/passwd"},
		{name: "env of a write into .git", cmd: "env touch .git/x", want: Deny, wantRule: "protected-path"},
		{name: "env of an unknown command asks", cmd: "env -i ruby", want: Ask, wantRule: rules.NotInSpecs},
		{name: "env of a runner asks as the runner does", cmd: "env -i make", want: Ask, wantRule: "spec-ask"},
		{name: "env of a blocked command", cmd: "env wc -l a.txt", want: Deny, wantRule: rules.BlockedPattern},
		{name: "env of a pattern-allowed command", cmd: "env true x", want: Allow, wantRule: rules.AllowedPattern},
		{name: "env of a project program that cannot start", cmd: "env ./a.txt", want: Ask, wantRule: rules.NotInSpecs},
		{name: "nice", cmd: "nice -n 10 wc -l a.txt", want: Deny, wantRule: rules.BlockedPattern},
		{name: "nice -5", cmd: "nice -5 ls", want: Allow},
		{name: "nice alone", cmd: "nice", want: Allow},
		{name: "nice bad value", cmd: "nice -n x ls", want: Deny, wantRule: "flag-value", wantWord: "-n"},
		{name: "timeout", cmd: "timeout 5 cat a.txt", want: Allow},
		{name: "timeout -s -k", cmd: "timeout -s KILL --kill-after=2 1.5m ls", want: Allow},
		{name: "timeout bad duration", cmd: "timeout 5x ls", want: Deny, wantRule: "flag-value", wantWord: "5x"},
		{name: "timeout of a shell asks", cmd: "timeout 5 sh -c ls", want: Ask, wantRule: "wrapper"},
		{name: "timeout of sudo", cmd: "timeout 5 sudo ls", want: Deny, wantRule: "hard-block"},
		{name: "nested wrappers", cmd: "nice timeout 5 env LANG=C nohup stdbuf -oL ls", want: Allow},
		{name: "nested wrappers, asked variable inside", cmd: "nice env PATH=x ls", want: Ask, wantRule: "wrapper"},
		{name: "too deeply nested", cmd: "nice nice nice nice nice nice nice nice nice ls", want: Deny, wantRule: "wrapper"},
		{name: "nohup", cmd: "nohup ls", want: Allow},
		{name: "stdbuf", cmd: "stdbuf -o0 ls", want: Allow},
		{name: "stdbuf bad mode", cmd: "stdbuf -o /x ls", want: Deny, wantRule: "flag-value"},
		{name: "xargs stays ask", cmd: "xargs ls", want: Ask, wantRule: "wrapper"},
		{name: "xargs -a asks", cmd: "xargs -a a.txt ls", want: Ask, wantRule: "wrapper"},
	}
	timeCases := []struct {
		name     string
		cmd      string
		want     Decision
		wantRule rules.Rule
	}{
		{"time -o inside", "nice time -o t.txt ls", Allow, "spec"},
		{"time -o outside", "nice time -o /tmp/t.txt ls", Deny, "path-outside-root"},
		{"time --output abbreviated into .git", "nice time --out=.git/t ls", Deny, "protected-path"},
	}
	for _, tc := range timeCases {
		want, rule := tc.want, tc.wantRule
		tests = append(tests, struct {
			name     string
			cmd      string
			want     Decision
			wantRule rules.Rule
			wantWord string
		}{name: tc.name, cmd: tc.cmd, want: want, wantRule: rule})
	}
	g, err := New(Options{Root: root, Commands: cmds})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		argv, err := parser.Command(tt.cmd)
		if err != nil {
			t.Fatalf("%s: %v", tt.cmd, err)
		}
		v := g.Decide(argv, "")
		if v.Decision != tt.want || (tt.wantRule != "" && v.Rule != tt.wantRule) || (tt.wantWord != "" && v.Word != tt.wantWord) {
			t.Errorf("%s: Decide(%q) = %s (%s `%s`: %s), want %s (%s `%s`)", tt.name, tt.cmd, v.Decision, v.Rule, v.Word, v.Reason, tt.want, tt.wantRule, tt.wantWord)
			continue
		}
		if v.Decision != Allow && (v.Advice == "" || v.Reason == "") {
			t.Errorf("%s: %s without reason or advice: %+v", tt.name, v.Decision, v)
		}
		if v.Decision == Ask && v.Why == "" {
			t.Errorf("%s: ask without a reason to show the person", tt.name)
		}
		if v.Decision == Deny {
			continue
		}
		// What runs is the wrapper, then the wrapped program resolved.
		if len(v.Exec) < 1 || !filepath.IsAbs(v.Exec[0]) || filepath.Base(v.Exec[0]) != argv[0] {
			t.Errorf("%s: exec %q does not start with the resolved wrapper", tt.name, v.Exec)
		}
	}
}

// TestWrapperExecKeepsGitHardening: env -i and env -u would drop git's
// hardening environment, so env passes it on as assignments.
func TestWrapperExecKeepsGitHardening(t *testing.T) {
	t.Parallel()
	g, _ := newTestGateway(t)
	for _, cmd := range []string{"env -i git status", "env -u GIT_CONFIG_NOSYSTEM git log", "nice git status"} {
		argv, _ := parser.Command(cmd)
		v := g.Decide(argv, "")
		if v.Decision != Allow {
			t.Fatalf("Decide(%q) = %+v", cmd, v)
		}
		if !slices.Contains(v.Exec, "--no-pager") {
			t.Errorf("Decide(%q).Exec = %q: git not hardened", cmd, v.Exec)
		}
		i := slices.Index(v.Exec, "GIT_CONFIG_NOSYSTEM=1")
		if argv[0] == "env" && (i < 0 || i > slices.IndexFunc(v.Exec, func(s string) bool { return filepath.Base(s) == "git" })) {
			t.Errorf("Decide(%q).Exec = %q: hardening not passed through env", cmd, v.Exec)
		}
		if !slices.Contains(v.Env, "GIT_CONFIG_NOSYSTEM=1") {
			t.Errorf("Decide(%q).Env = %q", cmd, v.Env)
		}
	}
}
