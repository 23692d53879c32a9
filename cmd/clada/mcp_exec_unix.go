//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// execMCP replaces clada with clada-mcp: the agent's stdin, stdout and
// signals reach the server directly, and its exit status is clada mcp's.
func execMCP(prog string, args []string, _ io.Reader, _, _ io.Writer) error {
	err := syscall.Exec(prog, args, os.Environ())
	return fmt.Errorf("starting %s: %w", prog, err)
}
