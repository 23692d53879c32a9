// Package testproc holds what the end-to-end tests of cmd/clada and
// cmd/clada-mcp share: how they start the program under test, and how
// they wait for the processes a command left behind to be gone.
package testproc

import (
	"os"
	"os/exec"
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
