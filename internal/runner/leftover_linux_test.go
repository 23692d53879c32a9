package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clada/clada/internal/leftover"
	"golang.org/x/sys/unix"
)

// noReaperEnv, set, keeps TestMain from enabling the reaper: the test
// binary then runs commands as a program that never called
// EnableReaper does (withoutReaper).
const noReaperEnv = "CLADA_RUNNER_TEST_NO_REAPER"

// subreaperOnly makes a test binary without the reaper a subreaper that
// never drains: the orphans of its commands stay its own instead of
// going to the test binary that started it, whose reaper would kill them.
func subreaperOnly() {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// withoutReaper runs the calling test again in a test binary of its own
// without the reaper, and reports whether this is that binary (the test
// goes on) or the parent (the test is done: it passed when the child
// did).
func withoutReaper(t *testing.T) bool {
	t.Helper()
	if os.Getenv(noReaperEnv) != "" {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), noReaperEnv+"=1", "GORACE=atexit_sleep_ms=0")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Errorf("without the reaper: %v\n%s", err, out)
	}
	return false
}

// daemonizing is the argv of a command that leaves a daemon (see
// leftover.Step) writing marker, and then does what then says (sleep,
// flood) or exits.
func daemonizing(t *testing.T, marker, then string) []string {
	return helperArgv(t, "leftover", "daemonize", marker, then)
}

func marker(t *testing.T, name string) string {
	return filepath.Join(t.TempDir(), name)
}

// TestRunKillsDaemon: a command that daemonizes a process (double fork,
// sessions of their own) and exits leaves nothing running.
func TestRunKillsDaemon(t *testing.T) {
	t.Parallel()
	m := marker(t, "daemon-wrote")
	start := time.Now()
	got := capRun(t, context.Background(), daemonizing(t, m, ""), Config{})
	if got.Status != StatusExited || got.ExitCode != 0 {
		t.Fatalf("got %v, code %d, stderr %q; want exited 0", got.Status, got.ExitCode, got.Stderr)
	}
	leftover.Gone(t, m, start, "the command exited")
}

// TestTimeoutKillsDaemon, TestOutputCapKillsDaemon and
// TestCancelKillsDaemon: however the runner ends the command, its daemon
// goes too.
func TestTimeoutKillsDaemon(t *testing.T) {
	t.Parallel()
	m := marker(t, "daemon-wrote")
	start := time.Now()
	got := capRun(t, context.Background(), daemonizing(t, m, "sleep"), Config{Timeout: 300 * time.Millisecond})
	if got.Status != StatusTimedOut {
		t.Fatalf("got %v, stderr %q; want timed out", got.Status, got.Stderr)
	}
	leftover.Gone(t, m, start, "the command timed out")
}

func TestOutputCapKillsDaemon(t *testing.T) {
	t.Parallel()
	m := marker(t, "daemon-wrote")
	start := time.Now()
	got := capRun(t, context.Background(), daemonizing(t, m, "flood"), Config{MaxOutput: 1 << 20})
	if got.Status != StatusTruncated {
		t.Fatalf("got %v, stderr %q; want truncated", got.Status, got.Stderr)
	}
	// On a loaded machine the flood may take longer than leftover.Delay
	// to reach the cap: a marker written while the command ran was
	// allowed (the daemon must be gone now and write nothing more).
	if _, err := os.Stat(m); err == nil {
		os.Remove(m)
		start = time.Now().Add(-leftover.Delay)
	}
	leftover.Gone(t, m, start, "the command passed the output cap")
}

// TestConcurrentCommandsKeepEachOthersDaemons: a command that ends kills
// its own daemon, not the daemon of a command still running, which goes
// when that one is canceled.
func TestConcurrentCommandsKeepEachOthersDaemons(t *testing.T) {
	t.Parallel()
	mA, mB := marker(t, "a-wrote"), marker(t, "b-wrote")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	doneA := make(chan captured)
	go func() { doneA <- capRun(t, ctx, daemonizing(t, mA, "sleep"), Config{}) }()
	leftover.WaitStarted(t, mA)
	startB := time.Now()
	got := capRun(t, context.Background(), daemonizing(t, mB, ""), Config{})
	if got.Status != StatusExited || got.ExitCode != 0 {
		t.Fatalf("B: got %v, code %d, stderr %q; want exited 0", got.Status, got.ExitCode, got.Stderr)
	}
	leftover.Alive(t, mA, "after another command ended")
	leftover.Gone(t, mB, startB, "its command exited")
	cancel()
	if got := <-doneA; got.Status != StatusCanceled {
		t.Errorf("A: got %v; want canceled", got.Status)
	}
	// A's daemon may have written its marker while A ran: that was
	// allowed. It must be gone now, and write nothing more.
	os.Remove(mA)
	leftover.Gone(t, mA, time.Now().Add(-leftover.Delay), "its command was canceled")
}

// TestPipelineKillsEveryStagesDaemon: in a composition each stage's
// daemon goes when the stage ends.
func TestPipelineKillsEveryStagesDaemon(t *testing.T) {
	t.Parallel()
	m1, m2 := marker(t, "first-wrote"), marker(t, "second-wrote")
	start := time.Now()
	s := NewScript(context.Background(), Config{})
	res := s.Pipeline([]Stage{
		{Argv: daemonizing(t, m1, ""), Stdout: Stream{Kind: StreamPipe}, Stderr: Stream{Kind: StreamStderr}},
		{Argv: daemonizing(t, m2, ""), Stdin: Stream{Kind: StreamPipe}, Stdout: Stream{Kind: StreamStdout}, Stderr: Stream{Kind: StreamStderr}},
	})
	r := s.Finish()
	if r.Status != StatusExited || r.ExitCode != 0 || res[0].Code() != 0 {
		t.Fatalf("got %v %d, stages %+v; want both exited 0", r.Status, r.ExitCode, res)
	}
	leftover.Gone(t, m1, start, "the pipeline ended")
	leftover.Gone(t, m2, start, "the pipeline ended")
}

// BenchmarkDrain is what the reaper adds to every command that ends
// with nothing left: listing this process's children (one file per
// thread) and finding none to kill. Compare BenchmarkRun.
func BenchmarkDrain(b *testing.B) {
	if os.Getenv(noReaperEnv) != "" {
		b.Skip("no reaper")
	}
	b.ReportAllocs()
	for b.Loop() {
		drain()
	}
}
