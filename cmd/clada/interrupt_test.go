//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clada/clada/internal/testproc"
)

// TestInterruptStopsEverything: SIGINT (Ctrl-C) while a command runs
// stops that command and its grandchild, runs nothing after it, and clada
// exits promptly, reporting what happened.
func TestInterruptStopsEverything(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	script := "#!/bin/sh\nsleep 30 &\necho $! > bg.pid\necho started > started\nsleep 30\n"
	if err := os.WriteFile(filepath.Join(root, "spawn.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := cladaCmd(t, root, "run", "--root", root, "--trust-all")
	cmd.Stdin = strings.NewReader("<---RUN--->\n./spawn.sh\n<---END--->\n<---RUN--->\ntouch after\n<---END--->\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(root, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("spawn.sh did not start")
		}
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("clada took %s to stop after SIGINT", took)
	}
	if code := exitCodeOf(t, err); code != exitInterrupted {
		t.Errorf("exit code %d, want %d\n%s", code, exitInterrupted, stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{"interrupted (Ctrl-C)", "skipped: clada was interrupted"} {
		if !strings.Contains(out, want) {
			t.Errorf("report does not contain %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr.String(), "clada: interrupted") {
		t.Errorf("stderr does not say clada was interrupted: %q", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(root, "after")); err == nil {
		t.Error("a block ran after the interrupt")
	}
	testproc.WaitGone(t, filepath.Join(root, "bg.pid"), "Ctrl-C")
}
