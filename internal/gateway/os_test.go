package gateway

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/specs"
)

// TestOptionsOS: Options.OS decides as on another system, through the
// whole gateway: the parser's backslash rule and Windows' path rules for
// windows, the BSD dialect for darwin.
func TestOptionsOS(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		os, body string
		want     Decision
		rule     rules.Rule
	}{
		{specs.OSWindows, `cat calc\calc.go`, Deny, "backslash"},
		{specs.OSWindows, "cat a.txt:stream", Deny, rules.PathOutsideRoot},
		{specs.OSWindows, "touch .git./config", Deny, rules.PathOutsideRoot},
		{specs.OSWindows, "//host/share/clada exec -- ls", Deny, rules.PathOutsideRoot},
		{specs.OSWindows, "cat a.txt", Allow, rules.Spec},
		{specs.OSDarwin, "touch a.txt -t /outside/x", Deny, rules.OptionAfterOperand},
		{specs.OSDarwin, "ls -I /etc", Ask, rules.ReadOutside},
		{specs.OSDarwin, "ls -la", Allow, rules.Spec},
		{specs.OSLinux, "touch a.txt -t 202001010000", Allow, rules.Spec},
		{specs.OSLinux, "cat a.txt:stream", Allow, rules.Spec},
	}
	for _, c := range cases {
		g, err := New(Options{Root: root, OS: c.os})
		if err != nil {
			t.Fatal(err)
		}
		r := g.Check(c.body, "")
		if r.Decision != c.want || r.Rule != c.rule {
			t.Errorf("--os %s %q = %s (%s: %s), want %s (%s)", c.os, c.body, r.Decision, r.Rule, r.Reason, c.want, c.rule)
		}
	}
	if _, err := New(Options{Root: root, OS: "plan9"}); err == nil {
		t.Error("New accepted OS plan9")
	}
}
