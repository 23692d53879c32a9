//go:build !unix

package main

import (
	"errors"
	"io"
	"os/exec"
)

// execMCP runs clada-mcp as a child with clada's standard streams, where
// a process cannot replace itself, and exits with its status.
func execMCP(prog string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := exec.Command(prog, args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exitError(exit.ExitCode())
	}
	return err
}
