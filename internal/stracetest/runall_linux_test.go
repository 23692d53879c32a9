package stracetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunAll checks that the worker pool of the differential tests counts
// the lines clada denies without running them, traces the others, and
// reports each line that breaks the rules: a pool that lost a failure
// would let those tests pass whatever strace saw.
func TestRunAll(t *testing.T) {
	strace, skip := Find(testing.Short(), t.Fatalf)
	if skip != "" {
		t.Skip(skip)
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("cat is not installed")
	}
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	secret := filepath.Join(base, "outside", "secret")
	for _, f := range []string{filepath.Join(root, "a.txt"), secret} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sb := Sandbox{Root: root, Base: base}
	jobs := []string{"a.txt", secret, "denied-1", "denied-2", "a.txt"}
	ran, denied, failures := RunAll(strace, jobs, func(arg string) (Line, bool) {
		if strings.HasPrefix(arg, "denied-") {
			return Line{}, false
		}
		return Line{Show: "cat " + arg, Argv: []string{cat, arg}, Sandbox: sb}, true
	})
	if ran != 3 || denied != 2 {
		t.Errorf("ran %d, denied %d; want 3 and 2", ran, denied)
	}
	if len(failures) != 1 || !strings.HasPrefix(failures[0], "cat "+secret+" (allowed by clada):\n\topens a file outside the project") {
		t.Errorf("failures %q, want one for cat %s opening a file outside the project", failures, secret)
	}
}
