package gateway

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
)

// TestConsent: an allowed pattern turns an ask into allow, never a deny;
// the words a prefix pattern's * stands for are screened, exact patterns
// are taken as the person saw them.
func TestConsent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"sub", ".git", ".clada"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	cmds := &approve.Commands{Path: filepath.Join(root, ".clada", "commands.toml")}
	for _, s := range []string{"true *", "false run *", "false /etc/passwd", "cat *", "cat /etc/hostname", "head -x a.txt", "timeout 5 *", "find *", "find . -exec ruby x.rb \\;"} {
		p, err := approve.ParsePattern(s, ParsePattern)
		if err != nil {
			t.Fatal(err)
		}
		cmds.Allowed = append(cmds.Allowed, p)
	}
	tests := []struct {
		name     string
		cmd      string
		want     Decision
		wantRule rules.Rule
		wantWord string
	}{
		{name: "prefix allows plain words", cmd: "true build -j4 sub/x", want: Allow, wantRule: rules.AllowedPattern},
		{name: "prefix allows no further word", cmd: "true", want: Allow, wantRule: rules.AllowedPattern},
		{name: "prefix allows a path inside", cmd: "true -C sub", want: Allow, wantRule: rules.AllowedPattern},
		{name: "prefix allows an absolute path inside", cmd: "true " + root + "/sub", want: Allow, wantRule: rules.AllowedPattern},
		{name: "prefix allows words that only look like URLs", cmd: "true https://example.com/x HEAD~1 @{u}", want: Allow, wantRule: rules.AllowedPattern},
		{name: "parent directory", cmd: "true -C ../..", want: Ask, wantRule: rules.PatternWord, wantWord: "../.."},
		{name: "absolute path outside", cmd: "true -f /tmp/Makefile", want: Ask, wantRule: rules.PatternWord, wantWord: "/tmp/Makefile"},
		{name: "long option value", cmd: "true --file=/tmp/x", want: Ask, wantRule: rules.PatternWord, wantWord: "--file=/tmp/x"},
		{name: "attached short option value", cmd: "true -o/tmp/t", want: Ask, wantRule: rules.PatternWord, wantWord: "-o/tmp/t"},
		{name: "attached relative value", cmd: "true -I../inc", want: Ask, wantRule: rules.PatternWord, wantWord: "-I../inc"},
		{name: "assignment value", cmd: "true DESTDIR=/usr", want: Ask, wantRule: rules.PatternWord, wantWord: "DESTDIR=/usr"},
		{name: "assignment of an option value", cmd: "true CFLAGS=-I/usr/include", want: Ask, wantRule: rules.PatternWord},
		{name: "comma list", cmd: "true --mount=type=bind,source=/,target=/x", want: Ask, wantRule: rules.PatternWord},
		{name: "comma list relative", cmd: "true --exclude=x.o,../y", want: Ask, wantRule: rules.PatternWord},
		{name: "at-file", cmd: "true -d @/etc/passwd", want: Ask, wantRule: rules.PatternWord, wantWord: "@/etc/passwd"},
		{name: "at-file in a value", cmd: "true --data=@../x", want: Ask, wantRule: rules.PatternWord},
		{name: "file URL", cmd: "true file:///etc/passwd", want: Ask, wantRule: rules.PatternWord},
		{name: "too many separators to check", cmd: "true " + strings.Repeat("a,", 40) + "x", want: Ask, wantRule: rules.PatternWord},
		{name: "at-file inside", cmd: "true -d @a.txt key=value a,b", want: Allow, wantRule: rules.AllowedPattern},
		{name: "tilde", cmd: "true '~/x'", want: Ask, wantRule: rules.PatternWord, wantWord: "~/x"},
		{name: "symlink out", cmd: "true escape/passwd", want: Ask, wantRule: rules.PatternWord, wantWord: "escape/passwd"},
		{name: "into .git", cmd: "true -C .git", want: Ask, wantRule: rules.PatternWord, wantWord: ".git"},
		{name: "into .clada", cmd: "true --out=.clada/commands.toml", want: Ask, wantRule: rules.PatternWord},
		{name: "words before the star are not screened", cmd: "false run x", want: Allow, wantRule: rules.AllowedPattern},
		{name: "after the prefix only", cmd: "false run /etc", want: Ask, wantRule: rules.PatternWord, wantWord: "/etc"},
		{name: "exact pattern as the person saw it", cmd: "false /etc/passwd", want: Allow, wantRule: rules.AllowedPattern},
		{name: "exact pattern does not cover more", cmd: "false /etc/passwd x", want: Ask, wantRule: rules.NotInSpecs},
		{name: "prefix never turns a spec deny into allow", cmd: "cat -n /etc/passwd -x", want: Deny, wantRule: "unknown-flag"},
		{name: "prefix never covers a read outside", cmd: "cat /etc/passwd", want: Ask, wantRule: rules.ReadOutside, wantWord: "/etc/passwd"},
		{name: "exact pattern covers a read outside", cmd: "cat /etc/hostname", want: Allow, wantRule: rules.AllowedPattern},
		{name: "prefix never turns a protected write into allow", cmd: "cat -x .git/config", want: Deny, wantRule: "unknown-flag"},
		{name: "exact never turns a spec deny into allow", cmd: "head -x a.txt", want: Deny, wantRule: "unknown-flag"},
		{name: "spec allow stays spec", cmd: "cat a.txt", want: Allow, wantRule: "spec"},
		{name: "inner command under a pattern", cmd: "nice true x", want: Allow, wantRule: rules.AllowedPattern},
		{name: "inner command screened", cmd: "nice true /tmp", want: Ask, wantRule: rules.PatternWord, wantWord: "/tmp"},
		{name: "pattern over a wrapper", cmd: "timeout 5 make build", want: Allow, wantRule: rules.AllowedPattern},
		{name: "pattern over a wrapper screened", cmd: "timeout 5 make ../..", want: Ask, wantRule: rules.PatternWord, wantWord: "../.."},
		{name: "pattern never covers a spec deny", cmd: "timeout 5 make -C ..", want: Deny, wantRule: "path-outside-root", wantWord: ".."},
		{name: "pattern over a wrapper never allows its denied command", cmd: "timeout 5 touch /etc/passwd", want: Deny, wantRule: "path-outside-root"},
		{name: "pattern over a wrapper never covers a read outside", cmd: "timeout 5 cat /etc/passwd", want: Ask, wantRule: rules.ReadOutside},
		{name: "find -exec of an allowed command is not covered by find *", cmd: "find . -name a.txt -exec cat {} \\;", want: Ask, wantRule: "spec-ask"},
		{name: "find -exec of an asked command is not covered by find *", cmd: "find . -exec python3 x.py \\;", want: Ask, wantRule: "spec-ask"},
		{name: "find -exec of an unknown program is not covered by find *", cmd: "find . -exec ruby y.rb \\;", want: Ask, wantRule: "spec-ask"},
		{name: "find -execdir is not covered by find *", cmd: "find . -name a.txt -execdir cat {} \\;", want: Ask, wantRule: "spec-ask"},
		{name: "find -exec as the person saw it whole", cmd: "find . -exec ruby x.rb \\;", want: Allow, wantRule: rules.AllowedPattern},
		{name: "find -exec of a denied command under find *", cmd: "find . -exec touch /etc/passwd \\;", want: Deny, wantRule: "path-outside-root"},
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
		if v.Decision != tt.want || v.Rule != tt.wantRule || (tt.wantWord != "" && v.Word != tt.wantWord) {
			t.Errorf("%s: Decide(%q) = %s (%s `%s`: %s), want %s (%s `%s`)", tt.name, tt.cmd, v.Decision, v.Rule, v.Word, v.Reason, tt.want, tt.wantRule, tt.wantWord)
			continue
		}
		if v.Decision == Ask && (v.Why == "" || v.Advice == "") {
			t.Errorf("%s: ask without why or advice: %+v", tt.name, v)
		}
	}
}

func TestPrefixFor(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t)
	if err := os.Mkdir(filepath.Join(root, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ cmd, want string }{
		{"true test ./...", "true test *"},
		{"true run build:prod", "true run *"},
		{"true test", "true test *"},
		{"true mod tidy", "true mod *"},
		{"true", ""},                         // no subcommand
		{"true -v test", ""},                 // an option first
		{"true build", ""},                   // a directory, not a subcommand
		{"true a.b", ""},                     // reads as a file name
		{"true Test", ""},                    // not a subcommand word
		{"true test -exec /tmp/x ./...", ""}, // the prefix would not cover it
		{"true test -o ../t", ""},            // the prefix would not cover it
		{"python3 test x", ""},               // an interpreter: no `python3 test *`
		{"sh build x", ""},                   // a shell
		{"xargs run", ""},                    // a wrapper
	}
	for _, tt := range tests {
		argv, err := parser.Command(tt.cmd)
		if err != nil {
			t.Fatal(err)
		}
		r := &Result{Argv: argv, Verdict: Verdict{Decision: Ask, Dir: root}}
		if got := g.prefixFor(r); got != tt.want {
			t.Errorf("prefixFor(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
	r := &Result{Argv: []string{"rm", "run"}, Verdict: Verdict{Decision: Ask, Dir: root, Lost: []string{"run"}}}
	if got := g.prefixFor(r); got != "" {
		t.Errorf("prefixFor of a command destroying what git cannot restore = %q, want none", got)
	}
}

// TestExecuteAlwaysPrefix: answering prefix runs the command and
// remembers its program-and-subcommand prefix, which covers the next one.
func TestExecuteAlwaysPrefix(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t)
	p := plan(t, g, "<---RUN--->\ntrue run x\n<---END--->\n")
	asker := &fakeAsker{answers: []approve.Answer{approve.AlwaysPrefix}}
	g.Execute(context.Background(), p, ExecOptions{Asker: asker}, nil)
	if p.Results[0].Status != StatusRan || p.Results[0].ApprovedBy != "prefix" {
		t.Fatalf("result %+v", p.Results[0])
	}
	if q := asker.asked[0]; q.Prefix != "true run *" {
		t.Errorf("question offered prefix %q, want `true run *`", q.Prefix)
	}
	cmds, err := approve.LoadCommands(root, ParsePattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds.Allowed) != 1 || cmds.Allowed[0].Text != "true run *" {
		t.Fatalf("allowed = %+v, want `true run *`", cmds.Allowed)
	}
	g2, err := New(Options{Root: root, Commands: cmds})
	if err != nil {
		t.Fatal(err)
	}
	if v := g2.Decide([]string{"true", "run", "y"}, ""); v.Decision != Allow {
		t.Errorf("after prefix, `true run y` = %+v", v)
	}
	if v := g2.Decide([]string{"true", "run", "/etc"}, ""); v.Decision != Ask || v.Rule != rules.PatternWord {
		t.Errorf("after prefix, `true run /etc` = %+v, want ask (pattern-word)", v)
	}
}

func TestCheckAllowPattern(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, tt := range []struct {
		pattern string
		refuse  bool
	}{
		{"sudo *", true},
		{"sudo ls", true},
		{"env sudo *", true},
		{"timeout 5 doas *", true},
		{"rm -rf /", true},
		{"dd *", true},
		{"mkfs.ext4 *", true},
		{"rm *", false},
		{"npm test *", false},
		{"sudoku *", false},
		{"'sudo", false}, // does not parse: adding it says so
	} {
		err := CheckAllowPattern(root, tt.pattern)
		var pe *PatternError
		if got := errors.As(err, &pe); got != tt.refuse {
			t.Errorf("CheckAllowPattern(%q) = %v, want refused %v", tt.pattern, err, tt.refuse)
			continue
		}
		if pe != nil && (pe.Rule != "hard-block" || pe.Word == "" || pe.Advice == "" || pe.Reason == "") {
			t.Errorf("CheckAllowPattern(%q): incomplete %+v", tt.pattern, pe)
		}
	}
}
