package hook

import (
	"bytes"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/parser"
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
