//go:build !unix

package main

// signalNumber is 9 for SIGKILL, the only signal clada itself sends where
// there are no Unix signals, and 0 otherwise.
func signalNumber(name string) int {
	if name == "SIGKILL" {
		return 9
	}
	return 0
}
