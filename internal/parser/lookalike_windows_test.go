package parser

import (
	"errors"
	"testing"

	"github.com/clada/clada/internal/rules"
)

// TestNewRefusesConsumedBackslashOnWindows: on Windows the default parser
// refuses a word whose backslash the bash syntax would remove, since it
// was meant as a path separator.
func TestNewRefusesConsumedBackslashOnWindows(t *testing.T) {
	t.Parallel()
	_, err := New().Command(`cat calc\calc.go`)
	var d *rules.Denied
	if !errors.As(err, &d) || d.Rule != rules.Backslash {
		t.Fatalf(`Command("cat calc\\calc.go") = %v, want rule %s`, err, rules.Backslash)
	}
	argv, err := New().Command(`cat calc/calc.go 'C:\x\y'`)
	if err != nil || len(argv) != 3 || argv[2] != `C:\x\y` {
		t.Errorf("Command with slashes and a single-quoted backslash = %q, %v", argv, err)
	}
}
