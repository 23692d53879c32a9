//go:build linux

package mcpserver_test

import (
	"os/exec"
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
func newRoot(t *testing.T) string { return testproc.NewRoot(t) }

// exitCodeOf returns the exit code of a finished command, failing the test
// when it did not start or was killed.
func exitCodeOf(t *testing.T, err error) int { return testproc.ExitCode(t, err) }
