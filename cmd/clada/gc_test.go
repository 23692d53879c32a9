package main

import (
	"runtime/debug"
	"testing"
)

// TestLessGC checks that lessGC relaxes the collector only until restore
// is called, keeps a lower user memory limit, and that a second restore
// changes nothing. Not parallel: the settings are process-wide.
func TestLessGC(t *testing.T) {
	oldPct := debug.SetGCPercent(77)
	oldLimit := debug.SetMemoryLimit(64 << 20)
	t.Cleanup(func() {
		debug.SetGCPercent(oldPct)
		debug.SetMemoryLimit(oldLimit)
	})

	restore := lessGC()
	if got := debug.SetGCPercent(400); got != 400 {
		t.Errorf("GC percent while planning = %d, want 400", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Errorf("memory limit while planning = %d, want the user's lower 64 MiB", got)
	}
	restore()
	if got := debug.SetGCPercent(77); got != 77 {
		t.Errorf("GC percent after restore = %d, want 77", got)
	}
	debug.SetGCPercent(50)
	restore() // a second call must not undo later settings
	if got := debug.SetGCPercent(77); got != 50 {
		t.Errorf("GC percent after a second restore = %d, want 50 (untouched)", got)
	}

	debug.SetMemoryLimit(1 << 40)
	restore = lessGC()
	if got := debug.SetMemoryLimit(-1); got != 128<<20 {
		t.Errorf("memory limit while planning = %d, want 128 MiB", got)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("memory limit after restore = %d, want 1 TiB", got)
	}
}
