package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clada/clada/internal/leftover"
	"github.com/clada/clada/internal/runner"
)

// leftoverInnerEnv marks the test binary started in namespaces by
// TestConfinedDaemonGoneInNamespace.
const leftoverInnerEnv = "CLADA_SANDBOX_TEST_LEFTOVER_INNER"

// TestConfinedDaemonGone: a confined command that daemonizes a process
// (sessions of their own, a double fork) leaves nothing running once it
// has exited, and nothing running once it has timed out. This test
// process runs in no user namespace: the command gets no mount
// namespace.
func TestConfinedDaemonGone(t *testing.T) {
	t.Parallel()
	if os.Getenv(leftoverInnerEnv) != "" {
		t.Skip("the outer test")
	}
	testConfinedDaemonGone(t, false)
}

// TestConfinedDaemonGoneInNamespace runs TestConfinedDaemonGoneInner in
// this test binary started again as RunInNamespace starts clada.
func TestConfinedDaemonGoneInNamespace(t *testing.T) {
	t.Parallel()
	if os.Getenv(leftoverInnerEnv) != "" {
		t.Skip("the outer half")
	}
	if _, err := landlockABI(); err != nil {
		t.Skip(err)
	}
	var out bytes.Buffer
	env := append(os.Environ(), leftoverInnerEnv+"=1", "GORACE=atexit_sleep_ms=0")
	code, started := runInNamespace([]string{"-test.run=^TestConfinedDaemonGoneInner$", "-test.v"}, env, nil, &out, &out)
	if !started {
		t.Skipf("no user namespaces here: %s", ns.reason)
	}
	if code != 0 || !strings.Contains(out.String(), "--- PASS: TestConfinedDaemonGoneInner") {
		t.Fatalf("inside the namespace (exit %d):\n%s", code, out.String())
	}
}

func TestConfinedDaemonGoneInner(t *testing.T) {
	if os.Getenv(leftoverInnerEnv) == "" {
		t.Skip("run by TestConfinedDaemonGoneInNamespace inside namespaces")
	}
	if !ns.inside {
		t.Fatalf("Main did not set up the namespace: %s", ns.reason)
	}
	testConfinedDaemonGone(t, true)
}

func testConfinedDaemonGone(t *testing.T, namespace bool) {
	for _, then := range []string{"exit", "timeout"} {
		t.Run(then, func(t *testing.T) {
			f := newFixture(t, ModeAuto)
			// Not at the top of the root, where the sandbox without
			// namespaces lets nothing be created.
			marker := filepath.Join(f.root, "src", "daemon-wrote")
			var outcome Outcome
			cfg := runner.Config{
				Dir: f.root, TempRoot: f.sb.TempRoot(),
				Env: append(os.Environ(), actEnv+"=1", "GORACE=atexit_sleep_ms=0"),
				Start: func(cmd *exec.Cmd, tmp string) error {
					o, err := f.sb.Start(cmd, Command{TmpDir: tmp})
					outcome = o
					return err
				},
			}
			argv := []string{os.Args[0], "leftover", "daemonize", marker}
			want := runner.StatusExited
			if then == "timeout" {
				// A script runs the daemonizing helper, then sleeps
				// into the timeout.
				script := filepath.Join(f.root, "daemonize-and-sleep")
				if err := os.WriteFile(script, []byte("#!/bin/sh\n\"$@\"\nexec sleep 60\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				argv = append([]string{script}, argv...)
				cfg.Timeout, want = 500*time.Millisecond, runner.StatusTimedOut
			}
			start := time.Now()
			var errOut bytes.Buffer
			cfg.Stdout, cfg.Stderr = &errOut, &errOut
			r := runner.Run(context.Background(), argv, cfg)
			if r.Status != want || (want == runner.StatusExited && r.ExitCode != 0) {
				t.Fatalf("got %v, code %d, output %q; want %v", r.Status, r.ExitCode, errOut.String(), want)
			}
			if !outcome.Confined || outcome.Namespace != namespace {
				t.Errorf("outcome %+v; want confined, mount namespace %v", outcome, namespace)
			}
			leftover.Gone(t, marker, start, "the confined command ended ("+then+")")
		})
	}
}
