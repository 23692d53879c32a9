//go:build unix

package main

import "golang.org/x/sys/unix"

// signalNumber is the number of the signal named name ("SIGKILL"), 0 when
// the name is unknown.
func signalNumber(name string) int {
	if name == "" {
		return 0
	}
	return int(unix.SignalNum(name))
}
