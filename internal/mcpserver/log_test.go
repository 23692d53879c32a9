//go:build linux

package mcpserver_test

import (
	"path/filepath"
	"testing"

	"github.com/clada/clada/internal/decisionlog"
)

// TestMCPDecisionLog: the check and run tools write the decision log,
// with the client's name as the agent and, for a run, how it ended.
func TestMCPDecisionLog(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	writeFile(t, filepath.Join(root, "a.txt"), "hello\n", 0o644)
	s := startMCP(t, root, nil)
	s.call("check", map[string]any{"command": "cat a.txt"})
	s.call("run", map[string]any{"command": "cat a.txt"})
	s.call("run", map[string]any{"command": "sudo ls"})
	entries, bad, err := decisionlog.New(root).Read()
	if err != nil || bad != 0 || len(entries) != 3 {
		t.Fatalf("log: %d entries, %d bad, %v: %+v", len(entries), bad, err, entries)
	}
	for i, want := range []struct{ status, decision, rule string }{
		{"planned", "allow", "spec"}, {"ran", "allow", "spec"}, {"denied", "deny", "hard-block"},
	} {
		e := entries[i]
		if e.Entry != decisionlog.EntryMCP || e.Agent != "clada-test" || e.Status != want.status || e.Decision != want.decision || e.Rule != want.rule {
			t.Errorf("entry %d = %+v, want %+v", i, e, want)
		}
	}
	if e := entries[1]; e.Exit == nil || *e.Exit != 0 || e.DurationMS == nil || len(e.Output) != 1 || e.Sandbox == "" {
		t.Errorf("the run's entry lacks how it ended: %+v", e)
	}
}
