package specs

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/rules"
)

func TestCheckMode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode     string
		wantRule rules.Rule // "" when allowed
		reason   string
	}{
		{"755", "", ""}, {"0644", "", ""}, {"00755", "", "leading zeros"}, {"1777", "", "sticky bit"},
		{"u+x", "", ""}, {"go-w", "", ""}, {"a=r", "", ""}, {"u=rwx,g=rx,o=", "", "an empty clause clears"},
		{"+t", "", ""}, {"u-s", "", "removing setuid is fine"}, {"a-rwxs", "", ""}, {"g=u", "", "copies rwx only"},
		{"-x", "", "chmod -x FILE: a mode"}, {"a+rX", "", ""},
		{"4755", rules.FlagValue, "setuid"}, {"2755", rules.FlagValue, "setgid"}, {"6755", rules.FlagValue, ""},
		{"04755", rules.FlagValue, ""}, {"u+s", rules.FlagValue, ""}, {"g+s", rules.FlagValue, ""}, {"+s", rules.FlagValue, ""},
		{"ug=rwxs", rules.FlagValue, ""}, {"u=rwx,g+s", rules.FlagValue, "in a later clause"}, {"a+4", rules.FlagValue, "digits in a symbolic clause"},
		{"u+x-w+s", rules.FlagValue, "after other ops"},
		{"99", rules.FlagValue, "not octal"}, {"17777", rules.FlagValue, "too large"}, {"bogus", rules.FlagValue, ""}, {"", rules.FlagValue, ""},
		{"u+q", rules.FlagValue, "unknown permission"}, {"x", rules.FlagValue, "no operator"},
	}
	for _, tt := range tests {
		err := checkMode("chmod", tt.mode)
		got := rules.Rule("")
		if err != nil {
			got = err.Rule
		}
		if got != tt.wantRule {
			t.Errorf("checkMode(%q) = %q (%v), want %q %s", tt.mode, got, err, tt.wantRule, tt.reason)
		}
	}
}

func TestUnbundle(t *testing.T) {
	t.Parallel()
	s, _ := Default()
	tar, err := s.spec("tar")
	if err != nil || tar == nil {
		t.Fatal(err)
	}
	tests := []struct {
		in, want string
	}{
		{"czf out.tgz a.txt", "-c -z -f out.tgz a.txt"},
		{"cfC a.tar dir x", "-c -f a.tar -C dir x"},
		{"tvf archive.tar", "-t -v -f archive.tar"},
		{"-czf out.tgz a", "-czf out.tgz a"},
		{"xf", "-x -f"},
		{"", ""},
	}
	for _, tt := range tests {
		got := strings.Join(tar.unbundle(strings.Fields(tt.in)), " ")
		if got != tt.want {
			t.Errorf("unbundle(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRemotePath(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{"host:file": true, "user@host:/x": true, "a.tar": false, "./a:b": false,
		"dir/a:b": false, ":x": false, "/abs/a:b": false, "c:": true} {
		if got := remotePath(p); got != want {
			t.Errorf("remotePath(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestRunnerSubcommands: a spec with subcommands covers only what it
// lists; the parent's flags are checked before the subcommand; Exec keeps
// the parent's words.
func TestRunnerSubcommands(t *testing.T) {
	t.Parallel()
	r, _ := newFixture(t)
	s, _ := Default()
	tests := []struct {
		in         string
		want       Outcome
		wantRule   rules.Rule
		wantArg    string
		exec       string // Exec without the program, when checked
		reasonFree bool   // the reason is not checked (documentation only)
	}{
		{in: "npm ls", want: Allow, wantRule: rules.Spec, exec: "ls"},
		{in: "npm --prefix dir ls --depth 0", want: Allow, wantRule: rules.Spec, exec: "--prefix dir ls --depth 0"},
		{in: "npm run", want: Allow, wantRule: rules.Spec},
		{in: "npm run test", want: Ask, wantRule: rules.SpecAsk},
		{in: "npm t", want: Ask, wantRule: rules.SpecAsk, exec: "t"},
		{in: "npm audit", want: Ask, wantRule: rules.SpecAsk, wantArg: "audit"},
		{in: "npm --registry=x ls", want: Ask, wantRule: rules.SpecAsk, wantArg: "--registry=x"},
		{in: "npm --prefix /tmp test", want: Deny, wantRule: rules.PathOutsideRoot},
		{in: "npm --registry=x test --script-shell /tmp/sh", want: Deny, wantRule: rules.UnknownFlag},
		{in: "npm --registry=x", want: Ask, wantRule: rules.SpecAsk, wantArg: "--registry=x"},
		{in: "npm -g ls", want: Allow, wantRule: rules.Spec},
		{in: "npm --userconfig x test", want: Deny, wantRule: rules.UnknownFlag},
		{in: "npm x --help", want: Allow, wantRule: rules.Spec},
		{in: "npm exec foo --help", want: Ask, wantRule: rules.SpecAsk, reasonFree: true},
		{in: "go mod init example.com/x", want: Allow, wantRule: rules.Spec},
		{in: "go mod tidy", want: Ask, wantRule: rules.SpecAsk},
		{in: "go mod edit -require=x@v1", want: Ask, wantRule: rules.SpecAsk, wantArg: "edit"},
		{in: "go test --exec=x", want: Deny, wantRule: rules.UnknownFlag, reasonFree: true},
		{in: "go test -race -count=1 -run=TestX ./...", want: Ask, wantRule: rules.SpecAsk, exec: "test -race -count=1 -run=TestX ./..."},
		{in: "go -C dir list", want: Allow, wantRule: rules.Spec},
		{in: "go env -json=true", want: Allow, wantRule: rules.Spec},
		{in: "go env -w=yes X=1", want: Deny, wantRule: rules.FlagValue},
		{in: "go env -w X=1", want: Ask, wantRule: rules.SpecAsk},
		{in: "cargo t -- --nocapture", want: Ask, wantRule: rules.SpecAsk},
		{in: "cargo +nightly build", want: Ask, wantRule: rules.SpecAsk, wantArg: "+nightly"},
		{in: "cargo build --config x=1", want: Deny, wantRule: rules.UnknownFlag},
		{in: "python3 -m pytest -x tests", want: Ask, wantRule: rules.SpecAsk},
		{in: "python3 -m pytest --rootdir=/tmp", want: Deny, wantRule: rules.PathOutsideRoot},
		{in: "python3 -m json.tool a.txt", want: Ask, wantRule: rules.SpecAsk},
		{in: "python3 --version", want: Allow, wantRule: rules.Spec},
		{in: "python3", want: Ask, wantRule: rules.SpecAsk},
		{in: "make -v", want: Allow, wantRule: rules.Spec},
		{in: "make -n build", want: Ask, wantRule: rules.SpecAsk},
		{in: "pytest --foo-plugin", want: Ask, wantRule: rules.SpecAsk, wantArg: "--foo-plugin"},
	}
	for _, tt := range tests {
		argv := strings.Fields(tt.in)
		v := s.Check(argv, r.Root(), r)
		if v.Outcome != tt.want || v.Rule != tt.wantRule || (tt.wantArg != "" && v.Arg != tt.wantArg) {
			t.Errorf("Check(%q) = %v %s `%s` (%s), want %v %s `%s`", tt.in, v.Outcome, v.Rule, v.Arg, v.Reason, tt.want, tt.wantRule, tt.wantArg)
			continue
		}
		if v.Outcome != Deny && v.Reason == "" {
			t.Errorf("Check(%q): no reason", tt.in)
		}
		if tt.exec != "" {
			if diff := cmp.Diff(strings.Fields(tt.exec), v.Exec[1:]); diff != "" {
				t.Errorf("Check(%q) Exec (-want +got):\n%s", tt.in, diff)
			}
		}
	}
}

// TestGuard: the guard is used only when the installed program accepts it
// and refuses what it forbids; otherwise the command is asked and runs
// without it. A program inside the project is never probed.
func TestGuard(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts as programs")
	}
	t.Parallel()
	r, _ := newFixture(t)
	root := r.Root()
	bin := t.TempDir()
	script := func(dir, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "sed"), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	set := func(dir string) *Set {
		s, _ := Default()
		s.path["sed"] = lookResult{path: filepath.Join(dir, "sed")}
		return s
	}
	argv := []string{"sed", "-n", "1p", "a.txt"}
	good := filepath.Join(bin, "good")
	mustMkdir(t, good)
	script(good, `case "$*" in "--sandbox -n w /dev/null") exit 1;; esac; exit 0`)
	v := set(good).Check(argv, root, r)
	if v.Outcome != Allow || !slices.Equal(v.Exec, []string{filepath.Join(good, "sed"), "--sandbox", "-n", "1p", "a.txt"}) {
		t.Errorf("sed with --sandbox: %v %v (%s)", v.Outcome, v.Exec, v.Reason)
	}
	ignores := filepath.Join(bin, "ignores")
	mustMkdir(t, ignores)
	script(ignores, "exit 0")
	missing := filepath.Join(bin, "missing")
	mustMkdir(t, missing)
	script(missing, "exit 1")
	inside := filepath.Join(root, "dir")
	script(inside, `case "$*" in "--sandbox -n w /dev/null") exit 1;; esac; exit 0`)
	for name, dir := range map[string]string{"ignores unknown options": ignores, "no --sandbox": missing, "inside the project": inside} {
		v := set(dir).Check(argv, root, r)
		if v.Outcome != Ask || v.Rule != rules.SpecAsk || !slices.Equal(v.Exec, []string{"sed", "-n", "1p", "a.txt"}) {
			t.Errorf("sed that %s: %v %s %v (%s), want ask without --sandbox", name, v.Outcome, v.Rule, v.Exec, v.Reason)
		}
	}
	// A denial stays a denial, guard or not.
	if v := set(missing).Check([]string{"sed", "-i", "s/a/b/", ".git/config"}, root, r); v.Outcome != Deny {
		t.Errorf("sed -i into .git = %v, want deny", v.Outcome)
	}
}

// TestScriptAsks: jq and awk scripts that read the environment or name
// other files are asked, inline or in a script file.
func TestScriptAsks(t *testing.T) {
	t.Parallel()
	r, _ := newFixture(t)
	root := r.Root()
	for name, body := range map[string]string{"env.jq": "{home: env.HOME}\n", "ok.jq": ".a | .environment\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := Default()
	tests := []struct {
		argv []string
		want Outcome
	}{
		{[]string{"jq", ".a", "a.txt"}, Allow},
		{[]string{"jq", ".env", "a.txt"}, Allow},
		{[]string{"jq", "-n", "env"}, Ask},
		{[]string{"jq", "-n", "$ENV.HOME"}, Ask},
		{[]string{"jq", "-f", "env.jq", "a.txt"}, Ask},
		{[]string{"jq", "-f", "ok.jq", "a.txt"}, Allow},
		{[]string{"jq", `import "x" as x; .`, "a.txt"}, Ask},
		{[]string{"gawk", "{ print ENVIRON[\"HOME\"] }", "a.txt"}, Ask},
		{[]string{"gawk", "-e", "BEGIN { ARGV[1] = \"/etc/passwd\"; ARGC = 2 }", "a.txt"}, Ask},
		// jq 1.6 reads "$ ENV" and "$#…\nENV" as $ENV.
		{[]string{"jq", "-n", "$ ENV.HOME"}, Ask},
		{[]string{"jq", "-n", "$#c\n ENV.HOME"}, Ask},
		{[]string{"jq", "-n", `"x" | modulemeta`}, Ask},
		// jq -f takes no value: the first operand is the script file.
		{[]string{"jq", "-rf", "env.jq", "a.txt"}, Ask},
		{[]string{"jq", "env.jq", "-f", "ok.jq"}, Ask},
		{[]string{"jq", "ok.jq", "-f", "env.jq"}, Allow},
		{[]string{"jq", "-fr", "ok.jq", "a.txt"}, Allow},
		// gawk's SYMTAB reaches ENVIRON and ARGV by name; "@ include"
		// is @include.
		{[]string{"gawk", `BEGIN { print SYMTAB["ENV" "IRON"]["HOME"] }`}, Ask},
		{[]string{"gawk", "@ include \"x\"\n{ print }", "a.txt"}, Ask},
		{[]string{"gawk", "{ print $1 }", "a.txt"}, Allow},
	}
	for _, tt := range tests {
		sp, _ := s.spec(tt.argv[0])
		v := sp.check(tt.argv, root, r)
		if v.Outcome != tt.want {
			t.Errorf("check(%q) = %v (%s), want %v", tt.argv, v.Outcome, v.Reason, tt.want)
		}
	}
}

// TestLessEnv: less runs in secure mode, without input preprocessors and
// without a history file (secure mode still writes ~/.lesshst on a
// terminal).
func TestLessEnv(t *testing.T) {
	t.Parallel()
	r, _ := newFixture(t)
	s, _ := Default()
	sp, _ := s.spec("less")
	v := sp.check([]string{"less", "a.txt"}, r.Root(), r)
	if v.Outcome != Allow {
		t.Fatalf("less a.txt = %v (%s), want allow", v.Outcome, v.Reason)
	}
	for _, want := range []string{"LESSSECURE=1", "LESSOPEN=", "LESSCLOSE=", "LESSHISTFILE=-"} {
		if !slices.Contains(v.Env, want) {
			t.Errorf("less runs with %q, want %s among them", v.Env, want)
		}
	}
}
