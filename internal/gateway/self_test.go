package gateway

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
)

func TestParseExec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		want    ExecArgs
		wantErr bool
		reason  string
	}{
		{name: "dashes", args: []string{"--", "git", "status"}, want: ExecArgs{Argv: []string{"git", "status"}}},
		{name: "no dashes", args: []string{"git", "status", "--short"}, want: ExecArgs{Argv: []string{"git", "status", "--short"}}},
		{name: "root and dir", args: []string{"--root", "/r", "--dir=sub", "--", "ls", "-la"},
			want: ExecArgs{Root: "/r", Dir: "sub", Argv: []string{"ls", "-la"}}},
		{name: "single dash options", args: []string{"-root=/r", "-dir", "d", "ls"},
			want: ExecArgs{Root: "/r", Dir: "d", Argv: []string{"ls"}}, reason: "urfave/cli accepts -name for --name"},
		{name: "options after the command are the command's", args: []string{"ls", "--root", "/"},
			want: ExecArgs{Argv: []string{"ls", "--root", "/"}}},
		{name: "second dashes belong to the command", args: []string{"--", "grep", "--", "-x"},
			want: ExecArgs{Argv: []string{"grep", "--", "-x"}}},
		{name: "help", args: []string{"--help"}, want: ExecArgs{Help: true}},
		{name: "unknown option", args: []string{"--frobnicate", "5", "ls"}, wantErr: true},
		{name: "timeout", args: []string{"--timeout", "120s", "--", "ls"}, want: ExecArgs{Timeout: 120 * time.Second, Argv: []string{"ls"}},
			reason: "the agent's own limit for its tool call (clada hook passes it)"},
		{name: "timeout in milliseconds", args: []string{"--timeout=1500ms", "ls"}, want: ExecArgs{Timeout: 1500 * time.Millisecond, Argv: []string{"ls"}}},
		{name: "timeout in whole seconds", args: []string{"--timeout", "5", "ls"}, want: ExecArgs{Timeout: 5 * time.Second, Argv: []string{"ls"}},
			reason: "as clada run's --timeout"},
		{name: "timeout not a duration", args: []string{"--timeout", "soon", "ls"}, wantErr: true},
		{name: "timeout under a second", args: []string{"--timeout", "10ms", "ls"}, wantErr: true},
		{name: "timeout over a day", args: []string{"--timeout", "25h", "ls"}, wantErr: true},
		{name: "three dashes", args: []string{"---root", "/", "ls"}, wantErr: true},
		{name: "missing value", args: []string{"--dir"}, wantErr: true},
		{name: "no command", args: []string{"--root", "/r"}, wantErr: true},
		{name: "no command after dashes", args: []string{"--"}, wantErr: true},
		{name: "nothing", args: nil, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseExec(tt.args)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseExec(%q) error = %v, want error %v", tt.args, err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseExec(%q) (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

// selfLink makes a link named clada, outside root, to the running test
// binary: for the gateway it is the clada that is running.
func selfLink(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "clada")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// A command that runs clada itself: permission changes are always denied,
// through wrappers and shell scripts too and with hard blocks off, and
// clada exec -- X is judged as X, in the directory exec gives it.
func TestDecideSelf(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "sub", "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A project script named clada is not the running clada.
	if err := os.WriteFile(filepath.Join(root, "clada"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	self := selfLink(t)
	other := t.TempDir()
	q := parser.QuoteWord
	cmds := &approve.Commands{Path: filepath.Join(root, ".clada", "commands.toml")}
	p, err := approve.ParsePattern("git push *", ParsePattern)
	if err != nil {
		t.Fatal(err)
	}
	cmds.Blocked = append(cmds.Blocked, p)
	tests := []struct {
		name     string
		cmd      string
		dir      string
		noHard   bool
		want     Decision
		wantRule rules.Rule
		wantDir  string // for allow: relative to the root
		reason   string
	}{
		{name: "allow", cmd: "clada allow 'rm *'", want: Deny, wantRule: "self-permission"},
		{name: "block", cmd: "clada block ls", want: Deny, wantRule: "self-permission"},
		{name: "forget", cmd: "clada forget 'rm *'", want: Deny, wantRule: "self-permission"},
		{name: "with options", cmd: "clada allow --root . 'rm *'", want: Deny, wantRule: "self-permission"},
		{name: "after dashes", cmd: "clada -- allow x", want: Deny, wantRule: "self-permission",
			reason: "urfave/cli runs the command named after --"},
		{name: "any path", cmd: "/opt/x/bin/clada allow x", want: Deny, wantRule: "self-permission"},
		{name: "hook install", cmd: "clada hook install claude-code", want: Deny, wantRule: "self-permission"},
		{name: "hook uninstall", cmd: "clada hook uninstall gemini --user", want: Deny, wantRule: "self-permission"},
		{name: "through env", cmd: "env X=1 clada allow x", want: Deny, wantRule: "self-permission"},
		{name: "through sh -c", cmd: "sh -c 'true; clada forget x'", want: Deny, wantRule: "self-permission"},
		{name: "hard blocks off", cmd: "clada allow x", noHard: true, want: Deny, wantRule: "self-permission",
			reason: "hard_blocks = false does not let a model change its permissions"},
		{name: "inside clada exec", cmd: q(self) + " exec -- clada allow x", want: Deny, wantRule: "self-permission"},
		{name: "hook answers are not permissions", cmd: q(self) + " hook claude-code", want: Ask, wantRule: rules.ProgramOutside,
			reason: "judged like any program: this one lies outside the root, where PATH does not find it, in a directory the tests can write"},

		{name: "exec judged as its command", cmd: q(self) + " exec -- cat sub/a.txt", want: Allow, wantRule: "spec"},
		{name: "exec without dashes", cmd: q(self) + " exec cat sub/a.txt", want: Allow, wantRule: "spec"},
		{name: "exec of a denied command", cmd: q(self) + " exec -- touch /etc/passwd", want: Deny, wantRule: "path-outside-root"},
		{name: "exec of an asked command", cmd: q(self) + " exec -- git commit -m x", want: Ask, wantRule: "git-subcommand"},
		{name: "exec of a blocked command", cmd: q(self) + " exec -- git push origin", want: Deny, wantRule: rules.BlockedPattern},
		{name: "exec of exec", cmd: q(self) + " exec -- " + q(self) + " exec -- ls", want: Allow},
		{name: "exec --dir", cmd: q(self) + " exec --dir sub -- cat a.txt", want: Allow, wantDir: "sub"},
		{name: "exec --dir from a block dir", cmd: q(self) + " exec --dir deeper -- ls", dir: "sub", want: Allow, wantDir: "sub/deeper"},
		{name: "exec --dir absolute", cmd: q(self) + " exec --dir " + q(filepath.Join(root, "sub")) + " -- ls", want: Allow, wantDir: "sub"},
		{name: "exec --dir outside", cmd: q(self) + " exec --dir .. -- ls", want: Deny, wantRule: "path-outside-root"},
		{name: "exec --root this root", cmd: q(self) + " exec --root " + q(root) + " -- ls", want: Allow},
		{name: "exec --root another root", cmd: q(self) + " exec --root " + q(other) + " -- ls", want: Deny, wantRule: rules.SelfExec},
		{name: "exec bad option", cmd: q(self) + " exec --trust-all -- ls", want: Deny, wantRule: rules.SelfExec},
		{name: "project script named clada", cmd: "./clada exec -- ls", want: Ask, wantRule: rules.NotInSpecs,
			reason: "only the clada that is running is judged by what it runs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := New(Options{Root: root, Commands: cmds, NoHardBlocks: tt.noHard})
			if err != nil {
				t.Fatal(err)
			}
			argv, err := parser.Command(tt.cmd)
			if err != nil {
				t.Fatal(err)
			}
			v := g.Decide(argv, tt.dir)
			if v.Decision != tt.want || (tt.wantRule != "" && v.Rule != tt.wantRule) {
				t.Fatalf("Decide(%q, %q) = %s (%s: %s), want %s (%s)", tt.cmd, tt.dir, v.Decision, v.Rule, v.Reason, tt.want, tt.wantRule)
			}
			if v.Decision != Allow && v.Advice == "" {
				t.Errorf("Decide(%q): %s without advice", tt.cmd, v.Decision)
			}
			if v.Decision == Allow {
				if slices.Contains(v.Exec, "exec") || filepath.Base(v.Exec[0]) == "clada" {
					t.Errorf("Decide(%q).Exec = %q: runs clada, want the command clada exec runs", tt.cmd, v.Exec)
				}
				if want := filepath.Join(g.Root(), tt.wantDir); v.Dir != want {
					t.Errorf("Decide(%q).Dir = %s, want %s", tt.cmd, v.Dir, want)
				}
			}
		})
	}
}
