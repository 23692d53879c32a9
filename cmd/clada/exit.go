package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/clada/clada/internal/project"
)

// Exit codes (docs/usage.md "Exit codes"), the same for every front end, so they
// live in package project. Scripts under testdata/script assert them.
const (
	exitOK          = project.ExitOK          // every block allowed and, when run, exited 0
	exitFailed      = project.ExitFailed      // something was denied, not approved, skipped or failed
	exitUsage       = project.ExitUsage       // usage error, unreadable .clada/ file, or malformed CSL (then nothing runs)
	exitApproval    = project.ExitApproval    // dry-run and check: nothing denied, but something needs approval
	exitInterrupted = project.ExitInterrupted // Ctrl-C or SIGTERM stopped the run
)

// exitError carries an exit code out of an action that already reported
// what happened.
type exitError int

func (e exitError) Error() string { return "exit" }

// exitStatus is clada's exit status after an action returned err,
// printing err when it is one of clada's own failures.
func exitStatus(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var code exitError
	if errors.As(err, &code) {
		return int(code)
	}
	printError(stderr, err)
	return exitUsage
}

func exitCode(code int, writeErr error) error {
	if writeErr != nil {
		return fmt.Errorf("writing the report: %w", writeErr)
	}
	if code == exitOK {
		return nil
	}
	return exitError(code)
}
