//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clada/clada/sandbox"
)

// serverCmd is clada-mcp args... in root: this test binary under the name
// clada-mcp.
func serverCmd(t *testing.T, root string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: exe, Args: append([]string{"clada-mcp"}, args...), Dir: root}
	// Under -race a process that exits 0 sleeps a second first
	// (atexit_sleep_ms); these tests start many.
	cmd.Env = append(os.Environ(), "HOME=/no-home", "CI=", "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	return cmd
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

// sandboxPhrase is how a report says a command ran under the sandbox on
// this machine.
func sandboxPhrase(t *testing.T) string {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	return sb.Phrase(sandbox.Command{})
}

// waitGone waits until the process whose pid is in pidFile has ended,
// failing the test (and killing it) when it still runs after 5 s: after
// says what should have ended it.
func waitGone(t *testing.T, pidFile, after string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the command did not start its grandchild: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("grandchild %d still runs after %s", pid, after)
		}
	}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
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
