package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookReasonsSpeakOfNoBlocks: a model behind an agent's shell tool
// never wrote a RUN block, so no refusal it gets speaks of RUN, WRITE or
// TASKS blocks or of a dir attribute (issue 28, item 4).
func TestHookReasonsSpeakOfNoBlocks(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	for _, c := range []string{"echo $(ls)", "echo `ls`", "echo $HOME", "for i in 1; do ls; done", "ls &", "export X=1", "eval ls", "cd sub", "ls >&3", "echo ${X}", "echo {1..3}", "X=1", "(ls)", "{ ls; }", "if true; then ls; fi", "ls 3>x", "echo $'a'", "source x", "time ls", "! ls", "ls \"$(pwd)\"", "exec ls", "alias x=y", "echo $((1+2))", "set -e", "ls @(x)", "echo <(ls)", "echo " + strings.Repeat("x", 200000)} {
		a := Decide(Request{Command: c, Dir: root})
		if a.Decision != "deny" {
			t.Errorf("%q: %s, want deny (the list holds refused forms)", c, a.Decision)
		}
		if strings.Contains(a.Reason, "RUN") || strings.Contains(a.Reason, "WRITE") || strings.Contains(a.Reason, "attribute") || strings.Contains(a.Reason, "TASKS") || strings.Contains(a.Reason, "block") {
			t.Errorf("%q: %s [%s]", c, a.Reason, a.Result.Rule)
		}
	}
}
