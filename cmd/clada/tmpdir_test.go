//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrivateTmpdirGoneAfterTimeout: a command killed at its timeout
// leaves nothing in clada's TMPDIR: tmpfill writes 100 files into its
// private temporary directory, as a spilling sort does, says where, and
// sleeps until clada kills it. The check needs the command to have written
// its files before the kill, which a loaded machine may not manage within
// the smallest timeout (1 s); then the try proves nothing and is repeated
// with a longer one. Every try that got that far is checked in full.
// (Windows: the job object test of runner covers kills.)
func TestPrivateTmpdirGoneAfterTimeout(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	if err := os.WriteFile(filepath.Join(root, "reply.csl"), []byte("<---RUN--->\ntmpfill\n<---END--->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, timeout := range []string{"1s", "3s", "9s"} {
		tmp := t.TempDir()
		cmd := cladaCmd(t, root, "run", "--trust-all", "--timeout", timeout, "reply.csl")
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
		out, err := cmd.Output()
		if code := exitCodeOf(t, err); code != 1 {
			t.Fatalf("--timeout %s: clada exited %d, want 1 (the command timed out)\n%s", timeout, code, out)
		}
		if !strings.Contains(string(out), "timed out") {
			t.Fatalf("--timeout %s: the report does not say the command timed out:\n%s", timeout, out)
		}
		left, err := os.ReadDir(tmp)
		if err != nil {
			t.Fatal(err)
		}
		if len(left) != 0 {
			t.Fatalf("--timeout %s: %s holds %d entries after the command was killed, want none (%s …)", timeout, tmp, len(left), left[0].Name())
		}
		filled := false
		for _, line := range strings.Split(string(out), "\n") {
			if dir, ok := strings.CutPrefix(line, "filled "); ok {
				filled = true
				// Under the sandbox the commands' directories lie in one
				// directory of clada's own, clada-sandbox-*, in tmp.
				parent := filepath.Dir(dir)
				if strings.HasPrefix(filepath.Base(parent), "clada-sandbox-") {
					parent = filepath.Dir(parent)
				}
				if parent != tmp || !strings.HasPrefix(filepath.Base(dir), "clada-cmd-") {
					t.Fatalf("--timeout %s: the command's TMPDIR was %s, want a clada-cmd-* directory in %s (or in its clada-sandbox-*)", timeout, dir, tmp)
				}
			}
		}
		if filled {
			return
		}
		t.Logf("--timeout %s: the command was killed before it filled its TMPDIR; trying a longer timeout", timeout)
	}
	t.Fatal("the command never filled its TMPDIR before its timeout, even with 9s")
}
