//go:build linux

package main

import (
	"testing"

	"github.com/clada/clada/sandbox"
)

// sandboxPhrase is how the prompt says a command without grants runs on
// this machine: "sandboxed, no network" where the kernel confines, else
// "unconfined".
func sandboxPhrase(t *testing.T) string {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	return sb.Phrase(sandbox.Command{})
}
