//go:build !linux

package sandbox

import "io"

// Main does nothing here: clada starts itself with hidden arguments only
// on Linux.
func Main() {}

// RunInNamespace does nothing here: there are no user namespaces.
func RunInNamespace(io.Reader, io.Writer, io.Writer) (code int, started bool) { return 0, false }

func probeNamespaces() string { return "" }

func probeNetNamespaces() string { return "" }
