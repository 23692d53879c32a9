package hook

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/parser"
)

// quoteCases are words a rewrite must hand over unchanged.
var quoteCases = [][]string{
	{"cat", "a.txt"},
	{"grep", "-n", "two words", "it's.txt"},
	{"echo", "", "$HOME", "`x`", "$(id)", "a;b", "a|b", "a&&b", "*", "?", "[a]", "{a,b}", "~", "~/x"},
	{"echo", "=ls", "^x", "#c", "!x", "a=b", "%1", "@x", "+x", "-n", "--opt=v"},
	{"echo", "back\\slash", "tab\there", "new\nline", "quote\"d", "'", "''", "x'y'z"},
	{"echo", "héllo", "日本", "emoji 🙂"},
	{"/usr/local/bin/clada", "exec", "--root", "/src/my project", "--", "ls"},
}

// ShellQuote's line splits back into the same words in every shell an
// agent may hand it to (each one found on this machine), and in clada's
// own parser.
func TestShellQuote(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shells")
	}
	shells := 0
	for _, sh := range []string{"bash", "sh", "dash", "zsh"} {
		path, err := exec.LookPath(sh)
		if err != nil {
			continue
		}
		shells++
		for _, words := range quoteCases {
			line := ShellQuote(words)
			// printf ends each word with the unit separator (\037),
			// which none of the words holds.
			out, err := exec.Command(path, "-c", `printf '%s\037' `+line).Output()
			if err != nil {
				t.Fatalf("%s -c %q: %v", sh, line, err)
			}
			got := strings.Split(strings.TrimSuffix(string(out), "\x1f"), "\x1f")
			if diff := cmp.Diff(words, got); diff != "" {
				t.Errorf("%s splits %q differently (-want +got):\n%s", sh, line, diff)
			}
		}
	}
	if shells == 0 {
		t.Fatal("no POSIX shell found")
	}
	for _, words := range quoteCases {
		line := ShellQuote(words)
		got, err := parser.Command(line)
		if err != nil && !bytes.ContainsAny([]byte(strings.Join(words, "")), "\t\n") {
			t.Errorf("parser.Command(%q): %v", line, err)
			continue
		}
		if err == nil {
			if diff := cmp.Diff(words, got); diff != "" {
				t.Errorf("parser.Command(%q) (-want +got):\n%s", line, diff)
			}
		}
	}
}

// shellCases are the shells an agent may hand clada's rewritten line to,
// as `NAME ARGS... LINE`; zsh also with the options that change what it
// expands.
var shellCases = [][]string{
	{"bash", "-c"}, {"sh", "-c"}, {"dash", "-c"}, {"zsh", "-c"},
	{"zsh", "-o", "extendedglob", "-o", "rcquotes", "-o", "magicequalsubst", "-c"}, {"fish", "-c"},
}

// TestRewriteInEveryShell: the line Rewrite writes, run by bash, sh, dash,
// zsh (also with extendedglob, rcquotes and magicequalsubst) and fish,
// hands clada exec exactly the root, directory and words that were
// decided, for every word in quoteCases and words some shell reads
// differently (zsh's =prog, fish's \' inside single quotes, PowerShell's
// , and @). A shell missing here is skipped, but not under CI, whose
// .ci/run installs them.
func TestRewriteInEveryShell(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shells")
	}
	dir := t.TempDir()
	self := filepath.Join(dir, "args")
	// The program prints each argument it gets followed by \037.
	if err := os.WriteFile(self, []byte("#!/bin/sh\nprintf '%s\\037' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := append(slices.Clone(quoteCases),
		[]string{"cp", "evil.sh", "=mytool"}, []string{"rm", "=ls"},
		[]string{"echo", `x\'`, `\\`, `a\`, "a,b", "@(x)", "%self", "!!", "!$", "‘smart’", "a b"},
		[]string{"printf", "%s\n", "x"}, []string{"echo", "--", "-", "+", ":"})
	roots := [][2]string{{"/src/app", "/src/app/sub"}, {"/src/my project", "/src/my project/it's"}, {`/src/back\slash`, "/src/=x"}}
	found := 0
	for _, sh := range shellCases {
		path, err := exec.LookPath(sh[0])
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Errorf("%s is not installed; .ci/run installs it", sh[0])
			}
			continue
		}
		found++
		for _, words := range cases {
			for _, rd := range roots {
				a := Answer{Decision: gateway.Allow, Root: rd[0], Dir: rd[1],
					Result: &gateway.Result{Argv: words, Command: parser.Quote(words)}}
				line := a.Rewrite(self)
				args := append(slices.Clone(sh[1:]), line)
				out, err := exec.Command(path, args...).Output()
				if err != nil {
					t.Errorf("%s %q: %v", sh, line, err)
					continue
				}
				got := strings.Split(strings.TrimSuffix(string(out), "\x1f"), "\x1f")
				if len(got) == 0 || got[0] != "exec" {
					t.Errorf("%s %q: clada got %q", sh, line, got)
					continue
				}
				x, err := gateway.ParseExec(got[1:])
				if err != nil {
					t.Errorf("%s %q: clada exec %q: %v", sh, line, got[1:], err)
					continue
				}
				argv := x.Argv
				if x.Line != "" {
					if argv, err = parser.Command(x.Line); err != nil {
						t.Errorf("%s %q: the encoded line %q does not parse: %v", sh, line, x.Line, err)
						continue
					}
				}
				if x.Root != rd[0] || x.Dir != rd[1] || !slices.Equal(argv, words) {
					t.Errorf("%s %q:\nclada exec got root %q dir %q argv %q\nwant root %q dir %q argv %q", sh, line, x.Root, x.Dir, argv, rd[0], rd[1], words)
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no shell found")
	}
}

// TestRewriteSelfInEveryShell: a clada whose path is not a plain word
// (a space, a quote, a % or = that zsh and fish expand at a word's start)
// is quoted by ShellQuote so that every shell runs that clada; the
// rewritten line still hands it the decided words.
func TestRewriteSelfInEveryShell(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shells")
	}
	base := t.TempDir()
	words := []string{"grep", "-n", "a b", "%self", "x,y"}
	found := 0
	for _, sub := range []string{"my tools", "it's", "%self", "=x", "a,b"} {
		dir := filepath.Join(base, sub)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		self := filepath.Join(dir, "args")
		if err := os.WriteFile(self, []byte("#!/bin/sh\nprintf '%s\\037' \"$@\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, sh := range shellCases {
			path, err := exec.LookPath(sh[0])
			if err != nil {
				if os.Getenv("CI") != "" {
					t.Errorf("%s is not installed; .ci/run installs it", sh[0])
				}
				continue
			}
			found++
			a := Answer{Decision: gateway.Allow, Root: "/src/app", Dir: "/src/app",
				Result: &gateway.Result{Argv: words, Command: parser.Quote(words)}}
			line := a.Rewrite(self)
			out, err := exec.Command(path, append(slices.Clone(sh[1:]), line)...).Output()
			if err != nil {
				t.Errorf("%s %q: %v", sh, line, err)
				continue
			}
			got := strings.Split(strings.TrimSuffix(string(out), "\x1f"), "\x1f")
			x, err := gateway.ParseExec(got[1:])
			if err != nil || got[0] != "exec" {
				t.Errorf("%s %q: clada got %q (%v)", sh, line, got, err)
				continue
			}
			argv := x.Argv
			if x.Line != "" {
				argv, _ = parser.Command(x.Line)
			}
			if !slices.Equal(argv, words) {
				t.Errorf("%s %q: argv %q, want %q", sh, line, argv, words)
			}
		}
	}
	if found == 0 {
		t.Fatal("no shell found")
	}
}

// TestPlainText: the text Cursor runs as written is allowed as written
// only when every shell reads it as the same words.
func TestPlainText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want []string // nil: not plain
	}{
		{"ls -la src", []string{"ls", "-la", "src"}},
		{"git  log --oneline -5", []string{"git", "log", "--oneline", "-5"}},
		{"grep -n 'two words' a.txt", []string{"grep", "-n", "two words", "a.txt"}},
		{"cp evil.sh =mytool", nil},
		{"rm =ls", nil},
		{"echo 'a\\'", nil},
		{"echo 'it'\\''s'", nil},
		{"echo \"x\"", nil},
		{"echo !!", nil},
		{"echo a,b", nil},
		{"echo @x", nil},
		{"echo ~", nil},
		{"echo {a,b}", nil},
		{"echo *.go", nil},
		{"'ls' -la", nil},
		{"echo a'b c'", nil},
		{"echo ''", nil},
		{"echo 'tab\there'", nil},
		{"ls\t-la", nil},
		{"", nil},
	}
	for _, tt := range tests {
		got, ok := plainText(tt.text)
		if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("plainText(%q) = %q, %v; want %q", tt.text, got, ok, tt.want)
		}
	}
}

// failWriter fails every write, as a closed stdout does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestGeminiWriteFailureBlocks: a hook whose answer cannot be written
// exits 2, which Gemini CLI reads as a block; exit 1 would let the command
// run.
func TestGeminiWriteFailureBlocks(t *testing.T) {
	root := goldenProject(t)
	payload := `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"},"cwd":` + strconv.Quote(root) + `}`
	var stderr strings.Builder
	code := Gemini(strings.NewReader(payload), failWriter{}, &stderr, Env{Self: fakeSelf, Getenv: func(k string) string {
		if k == "GEMINI_PROJECT_DIR" {
			return root
		}
		return ""
	}})
	if code != 2 || !strings.Contains(stderr.String(), "writing the hook answer") {
		t.Fatalf("exit %d, stderr %q; want exit 2 and the error on stderr", code, stderr.String())
	}
}

// TestGeminiHeadless covers what the golden cases do not: -p= and -i=
// forms, arguments after --, and an agent process that cannot be seen.
func TestGeminiHeadless(t *testing.T) {
	tty := func(args ...string) func() (AgentProcess, bool) {
		return func() (AgentProcess, bool) { return AgentProcess{Args: args, StdinTTY: true, StdoutTTY: true}, true }
	}
	for _, c := range []struct {
		name  string
		vars  map[string]string
		agent func() (AgentProcess, bool)
		want  bool
	}{
		{"unseen, no CI", nil, nil, false},
		{"unseen, CI", map[string]string{"CI": "true"}, nil, true},
		{"unseen, GITHUB_ACTIONS", map[string]string{"GITHUB_ACTIONS": "true"}, nil, true},
		{"CI=1 is not Gemini's CI", map[string]string{"CI": "1"}, tty("gemini"), false},
		{"CLADA_HEADLESS", map[string]string{"CLADA_HEADLESS": "1"}, tty("gemini", "-i", "x"), true},
		{"terminal", nil, tty("gemini"), false},
		{"-p=", nil, tty("gemini", "-p=hi"), true},
		{"--prompt=", nil, tty("gemini", "--prompt=hi"), true},
		{"-p after --", nil, tty("gemini", "--", "-p"), false},
		{"-i= under CI", map[string]string{"CI": "true"}, tty("gemini", "-i=hi"), false},
		{"--acp under CI", map[string]string{"CI": "true"}, tty("gemini", "--acp"), false},
		{"no args at all", nil, tty(), false},
	} {
		env := Env{Getenv: func(k string) string { return c.vars[k] }, Agent: c.agent}
		if got := geminiHeadless(env); got != c.want {
			t.Errorf("%s: geminiHeadless = %v, want %v", c.name, got, c.want)
		}
	}
}
