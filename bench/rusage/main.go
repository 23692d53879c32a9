//go:build unix

// Command rusage runs a command and reports its peak resident set size,
// read from getrusage via os.ProcessState, for machines without GNU time:
//
//	rusage OUTFILE COMMAND [ARG...]
//
// It writes the peak RSS in KiB (as GNU time's %M does) to OUTFILE, passes
// stdin, stdout and stderr through, and exits with the command's exit code.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: rusage OUTFILE COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(127)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "rusage: no resource usage on this system")
		os.Exit(127)
	}
	// Linux reports ru_maxrss in KiB (macOS in bytes; the suite targets Linux).
	if err := os.WriteFile(os.Args[1], fmt.Appendf(nil, "%d\n", ru.Maxrss), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(127)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
