//go:build unix && !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package approve

// flushInput does nothing where clada does not know how to flush.
func flushInput(int) error { return nil }
