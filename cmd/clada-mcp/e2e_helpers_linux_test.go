//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/clada/clada/internal/testproc"
)

// serverCmd is clada-mcp args... in root: this test binary under the name
// clada-mcp (TestMain).
func serverCmd(t *testing.T, root string, args ...string) *exec.Cmd {
	t.Helper()
	return testproc.Command(testproc.Self(t), "clada-mcp", root, args...)
}

// newRoot returns a project root with an empty .clada/.
func newRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".clada"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// exitCodeOf returns the exit code of a finished command, failing the test
// when it did not start or was killed.
func exitCodeOf(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode()
	}
	t.Fatalf("clada-mcp did not run to completion: %v", err)
	return -1
}
