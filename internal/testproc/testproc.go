// Package testproc holds what the end-to-end tests of cmd/clada and
// cmd/clada-mcp share: how they start the program under test, and how
// they wait for the processes a command left behind to be gone.
package testproc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Command is the program at path started as argv0 with args in dir, with
// the environment the end-to-end tests use: no HOME (nothing of the
// tester's configuration is read), CI unset (so that clada may ask), and,
// under -race, no second of sleep at every exit (atexit_sleep_ms): these
// tests start many processes.
func Command(path, argv0, dir string, args ...string) *exec.Cmd {
	cmd := &exec.Cmd{Path: path, Args: append([]string{argv0}, args...), Dir: dir}
	cmd.Env = append(os.Environ(), "HOME=/no-home", "CI=", "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	return cmd
}

// Self is the running test binary, which a TestMain runs as the program
// under test when it is started under that program's name.
func Self(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// NewRoot returns a project root with an empty .clada/.
func NewRoot(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".clada"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// ExitCode returns the exit code of a finished command, failing the test
// when it did not start or was killed.
func ExitCode(t testing.TB, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode()
	}
	t.Fatalf("the program did not run to completion: %v", err)
	return -1
}
