//go:build unix

package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// outcome is the deterministic part of a Result.
type outcome struct {
	Status         Status
	ExitCode       int
	Signal         string
	Stdout, Stderr string
	Truncated      bool
	TimedOut       bool
	OK             bool
}

// captured is a Result with the output its sinks received.
type captured struct {
	Result
	Stdout, Stderr []byte
}

// capRun is Run with stdout and stderr captured in memory. It checks that
// the byte counts of the Result match what the sinks received.
func capRun(t testing.TB, ctx context.Context, argv []string, cfg Config) captured {
	t.Helper()
	var out, errOut bytes.Buffer
	var stdout io.Writer = &out
	if cfg.Stdout != nil { // the caller watches the output too
		stdout = io.MultiWriter(&out, cfg.Stdout)
	}
	cfg.Stdout, cfg.Stderr = stdout, &errOut
	r := Run(ctx, argv, cfg)
	if r.StdoutBytes != int64(out.Len()) || r.StderrBytes != int64(errOut.Len()) {
		t.Errorf("StdoutBytes, StderrBytes = %d, %d; the sinks got %d, %d", r.StdoutBytes, r.StderrBytes, out.Len(), errOut.Len())
	}
	c := captured{Result: r}
	if out.Len() > 0 {
		c.Stdout = out.Bytes()
	}
	if errOut.Len() > 0 {
		c.Stderr = errOut.Bytes()
	}
	return c
}

func outcomeOf(r captured) outcome {
	return outcome{
		Status: r.Status, ExitCode: r.ExitCode, Signal: r.Signal,
		Stdout: string(r.Stdout), Stderr: string(r.Stderr),
		Truncated: r.Truncated, TimedOut: r.TimedOut, OK: r.OK(),
	}
}

// lines returns "prefix 0\n" … "prefix n-1\n", what the interleave helper
// prints on one stream.
func lines(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s %d\n", prefix, i)
	}
	return b.String()
}

func TestRun(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		argv   []string
		cfg    Config
		want   outcome
		reason string
	}{
		{
			name: "exit 0",
			argv: helperArgv(t, "exit", "0"),
			want: outcome{Status: StatusExited, Stdout: "bye\n", OK: true},
		},
		{
			name: "exit 3",
			argv: helperArgv(t, "exit", "3"),
			want: outcome{Status: StatusExited, ExitCode: 3, Stdout: "bye\n"},
		},
		{
			name: "killed by SIGTERM",
			argv: helperArgv(t, "signal", "TERM"),
			want: outcome{Status: StatusSignaled, ExitCode: -1, Signal: "SIGTERM"},
		},
		{
			name: "killed by SIGKILL",
			argv: helperArgv(t, "signal", "KILL"),
			want: outcome{Status: StatusSignaled, ExitCode: -1, Signal: "SIGKILL"},
		},
		{
			name:   "stdin is the null device",
			argv:   helperArgv(t, "stdin"),
			want:   outcome{Status: StatusExited, Stdout: "read 0 bytes, err <nil>, null device true\n", OK: true},
			reason: "a command must never read the CSL that clada reads from stdin",
		},
		{
			name: "streams kept apart and in order",
			argv: helperArgv(t, "interleave", "2000"),
			want: outcome{Status: StatusExited, Stdout: lines("out", 2000), Stderr: lines("err", 2000), OK: true},
		},
		{
			name:   "arguments reach the program verbatim",
			argv:   helperArgv(t, "args", "$HOME", "*", "a b", "'q'", "~", "$(echo hi)", "", "x;y|z"),
			want:   outcome{Status: StatusExited, Stdout: "$HOME\n*\na b\n'q'\n~\n$(echo hi)\n\nx;y|z\n", OK: true},
			reason: "no shell: nothing is expanded, split or interpreted",
		},
		{
			name: "stderr only",
			argv: helperArgv(t, "print", "10", "err"),
			want: outcome{Status: StatusExited, Stderr: "xxxxxxxxxx", OK: true},
		},
		{
			name:   "output exactly at the cap is whole",
			argv:   helperArgv(t, "print", "100000"),
			cfg:    Config{MaxOutput: 100000},
			want:   outcome{Status: StatusExited, Stdout: strings.Repeat("x", 100000), OK: true},
			reason: "truncation means a byte past the cap, not reaching it",
		},
		{
			name: "Dir",
			argv: helperArgv(t, "pwd"),
			cfg:  Config{Dir: dir},
			want: outcome{Status: StatusExited, Stdout: dir + "\n", OK: true},
		},
		{
			name: "Env replaces the environment",
			argv: helperArgv(t, "env-but-temp"),
			cfg:  Config{Env: []string{"A=1", "B=two words"}},
			want: outcome{Status: StatusExited, Stdout: "A=1\nB=two words", OK: true},
		},
		{
			name: "empty non-nil Env is an empty environment",
			argv: helperArgv(t, "env-but-temp"),
			cfg:  Config{Env: []string{}},
			want: outcome{Status: StatusExited, OK: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := capRun(t, context.Background(), tt.argv, tt.cfg)
			if got.Err != nil {
				t.Errorf("Err = %v, want nil", got.Err)
			}
			if diff := cmp.Diff(tt.want, outcomeOf(got)); diff != "" {
				t.Errorf("Run(%q) mismatch (-want +got):\n%s", tt.argv[2:], diff)
			}
		})
	}
}

func TestRunNilEnvIsCallerEnvironment(t *testing.T) {
	t.Parallel()
	got := capRun(t, context.Background(), helperArgv(t, "env"), Config{})
	want := os.Environ()
	env := strings.Split(string(got.Stdout), "\n")
	for _, kv := range want {
		// Run gives every command a TMPDIR (TMP, TEMP) of its own,
		// whatever the caller's says.
		if k, _, _ := strings.Cut(kv, "="); isTempVar(k) {
			continue
		}
		if !strings.HasPrefix(kv, "PWD=") && !contains(env, kv) {
			t.Errorf("child environment lacks %q", kv)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestRunStartFailed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		argv    []string
		cfg     Config
		wantErr error
	}{
		{name: "nil argv", argv: nil, wantErr: ErrNoCommand},
		{name: "empty program", argv: []string{""}, wantErr: ErrNoCommand},
		{name: "not in PATH", argv: []string{"clada-no-such-program-7f3a"}, wantErr: exec.ErrNotFound},
		{name: "absolute path missing", argv: []string{filepath.Join(dir, "missing")}, wantErr: fs.ErrNotExist},
		{name: "not executable", argv: []string{plain}, wantErr: fs.ErrPermission},
		{name: "a directory", argv: []string{dir}, wantErr: fs.ErrPermission},
		{name: "Dir missing", argv: helperArgv(t, "exit", "0"), cfg: Config{Dir: filepath.Join(dir, "missing")}, wantErr: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := capRun(t, context.Background(), tt.argv, tt.cfg)
			if diff := cmp.Diff(outcome{Status: StatusStartFailed, ExitCode: -1}, outcomeOf(got)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			if !errors.Is(got.Err, tt.wantErr) {
				t.Errorf("Err = %v, want errors.Is %v", got.Err, tt.wantErr)
			}
		})
	}
}

// TestRunRefusesErrDot is not parallel: it sets PATH for the whole process.
func TestRunRefusesErrDot(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(bin, "clada-dot-helper")); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", rel) // a relative PATH entry: LookPath returns ErrDot

	got := capRun(t, context.Background(), []string{"clada-dot-helper", helperArg, "exit", "0"}, Config{})
	if got.Status != StatusStartFailed || !errors.Is(got.Err, exec.ErrDot) {
		t.Errorf("Run = %v, %v; want %v wrapping exec.ErrDot", got.Status, got.Err, StatusStartFailed)
	}
}

func TestRunRelativePathIsRelativeToDir(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(dir, "bin", "helper")); err != nil {
		t.Fatal(err)
	}
	got := capRun(t, context.Background(), []string{"bin/helper", helperArg, "pwd"}, Config{Dir: dir})
	want := outcome{Status: StatusExited, Stdout: dir + "\n", OK: true}
	if diff := cmp.Diff(want, outcomeOf(got)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s\nErr: %v", diff, got.Err)
	}
}

func TestRunTruncatesAndKills(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	start := time.Now()
	got := capRun(t, context.Background(), helperArgv(t, "flood"), Config{MaxOutput: limit})
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("Run took %v for a command flooding its output", elapsed)
	}
	want := outcome{Status: StatusTruncated, ExitCode: -1, Signal: "SIGKILL",
		Stdout: strings.Repeat("x", limit), Truncated: true}
	if diff := cmp.Diff(want, outcomeOf(got)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%.2000s", diff)
	}
	if got.Dropped <= 0 {
		t.Errorf("Dropped = %d, want > 0", got.Dropped)
	}
}

func TestRunCapIsSharedByStreams(t *testing.T) {
	t.Parallel()
	got := capRun(t, context.Background(), helperArgv(t, "print", "60000", "both"), Config{MaxOutput: 100000})
	if got.Status != StatusTruncated || !got.Truncated {
		t.Errorf("Status, Truncated = %v, %v; want truncated, true", got.Status, got.Truncated)
	}
	if n := len(got.Stdout) + len(got.Stderr); n != 100000 {
		t.Errorf("kept %d+%d bytes, want 100000 together", len(got.Stdout), len(got.Stderr))
	}
	if got.Dropped != 20000 {
		t.Errorf("Dropped = %d, want 20000", got.Dropped)
	}
	if strings.Trim(string(got.Stdout)+string(got.Stderr), "x") != "" {
		t.Errorf("captured bytes other than the ones printed")
	}
}

// TestRunTimeoutKillsGroup runs a command that starts a grandchild holding
// its output pipes and both sleep past the timeout.
func TestRunTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	// The child must have started its grandchild and said so before the
	// timeout, which a loaded (race-instrumented) machine may not manage in
	// the first, short timeout: then the try proves nothing and a longer
	// one follows. A try that got that far is checked in full.
	for _, timeout := range []time.Duration{250 * time.Millisecond, time.Second, 4 * time.Second} {
		pidfile := filepath.Join(t.TempDir(), "pids")
		start := time.Now()
		got := capRun(t, context.Background(), helperArgv(t, "grandchild", pidfile, "sleep"),
			Config{Timeout: timeout, WaitDelay: 10 * time.Second})
		elapsed := time.Since(start)
		if got.Status != StatusTimedOut || !got.TimedOut || got.ExitCode != -1 || got.Signal != "SIGKILL" {
			t.Fatalf("got %v, TimedOut %v, ExitCode %d, Signal %q; want timed out, true, -1, SIGKILL",
				got.Status, got.TimedOut, got.ExitCode, got.Signal)
		}
		if elapsed < timeout || elapsed > timeout+4*time.Second {
			t.Errorf("Run took %v with a %v timeout, want promptly after it", elapsed, timeout)
		}
		if !strings.Contains(string(got.Stdout), "ready\n") {
			t.Logf("with a %v timeout the child was killed before it started its grandchild; trying longer", timeout)
			continue
		}
		assertNoSurvivors(t, pidfile)
		return
	}
	t.Fatal("the child never started its grandchild before the timeout, even with 4s")
}

func TestRunCancelKillsGroup(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "pids")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go cancelWhenExists(pidfile, cancel)
	start := time.Now()
	got := capRun(t, ctx, helperArgv(t, "grandchild", pidfile, "sleep"), Config{WaitDelay: 10 * time.Second})
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("Run took %v after cancel", elapsed)
	}
	if got.Status != StatusCanceled || got.TimedOut || !errors.Is(got.Err, context.Canceled) {
		t.Errorf("got %v, TimedOut %v, Err %v; want canceled, false, context.Canceled",
			got.Status, got.TimedOut, got.Err)
	}
	if !strings.Contains(string(got.Stdout), "ready\n") {
		t.Errorf("Stdout = %q, want the output printed before Ctrl-C", got.Stdout)
	}
	assertNoSurvivors(t, pidfile)
}

// TestRunCancelDoesNotWaitForEscapedHolder: after Ctrl-C, a process outside
// the group that holds the pipes does not keep Run waiting for WaitDelay.
// (With the reaper, which kills that process when the command exits, it
// cannot be there: the test runs without.)
func TestRunCancelDoesNotWaitForEscapedHolder(t *testing.T) {
	t.Parallel()
	if !withoutReaper(t) {
		return
	}
	pidfile := filepath.Join(t.TempDir(), "pids")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The command exits right after writing the pid file; by the time of
	// the cancel only the escaped grandchild holds the pipes.
	go cancelWhenExists(pidfile, cancel)
	start := time.Now()
	got := capRun(t, ctx, helperArgv(t, "grandchild", pidfile, "escape"), Config{WaitDelay: 30 * time.Second})
	elapsed := time.Since(start)
	_, grandchild := readPids(t, pidfile)
	syscall.Kill(grandchild, syscall.SIGKILL)
	if elapsed > 5*time.Second {
		t.Errorf("Run took %v after Ctrl-C, want well under WaitDelay (30s)", elapsed)
	}
	if got.Status != StatusExited || got.ExitCode != 0 {
		t.Errorf("got %v, code %d; want exited 0 (the command itself ended before Ctrl-C)", got.Status, got.ExitCode)
	}
}

func TestRunContextDeadlineIsTimeout(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	got := capRun(t, ctx, helperArgv(t, "sleep"), Config{})
	got.Stdout = nil // whether "sleeping" was printed in time depends on load
	want := outcome{Status: StatusTimedOut, ExitCode: -1, Signal: "SIGKILL", TimedOut: true}
	if diff := cmp.Diff(want, outcomeOf(got)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestRunCanceledBeforeStart(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "pids")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := capRun(t, ctx, helperArgv(t, "grandchild", pidfile, "exit"), Config{})
	if diff := cmp.Diff(outcome{Status: StatusCanceled, ExitCode: -1}, outcomeOf(got)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(pidfile); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the command ran: Stat(pidfile) = %v", err)
	}
}

// TestRunExitKillsLeftovers: the command exits 0 and leaves a grandchild in
// its group holding the pipes; Run kills it at once instead of waiting.
func TestRunExitKillsLeftovers(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "pids")
	start := time.Now()
	got := capRun(t, context.Background(), helperArgv(t, "grandchild", pidfile, "exit"), Config{WaitDelay: 10 * time.Second})
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("Run took %v, want it not to wait for the grandchild", elapsed)
	}
	if got.Status != StatusExited || got.ExitCode != 0 || !strings.Contains(string(got.Stdout), "ready\n") {
		t.Errorf("got %v, code %d, stdout %q; want exited 0 with ready", got.Status, got.ExitCode, got.Stdout)
	}
	assertNoSurvivors(t, pidfile)
}

// TestRunWaitDelayBoundsEscapedHolder: without the reaper, a grandchild
// that left the group (setsid) cannot be killed by the group kill; Run
// still returns once WaitDelay has passed.
func TestRunWaitDelayBoundsEscapedHolder(t *testing.T) {
	t.Parallel()
	if !withoutReaper(t) {
		return
	}
	pidfile := filepath.Join(t.TempDir(), "pids")
	start := time.Now()
	got := capRun(t, context.Background(), helperArgv(t, "grandchild", pidfile, "escape"),
		Config{WaitDelay: 300 * time.Millisecond})
	elapsed := time.Since(start)
	_, grandchild := readPids(t, pidfile)
	t.Cleanup(func() { syscall.Kill(grandchild, syscall.SIGKILL) })

	if elapsed < 300*time.Millisecond || elapsed > 5*time.Second {
		t.Errorf("Run took %v with WaitDelay 300ms", elapsed)
	}
	if got.Status != StatusExited || got.ExitCode != 0 {
		t.Errorf("got %v, code %d; want exited 0", got.Status, got.ExitCode)
	}
	if !processAlive(grandchild) {
		t.Errorf("escaped grandchild %d is gone, so WaitDelay was not what ended Run", grandchild)
	}
}

// TestReaperKillsEscapedHolder: with the reaper, the grandchild that
// left the group holding the pipes is killed when the command exits, so
// Run does not wait out WaitDelay.
func TestReaperKillsEscapedHolder(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "pids")
	start := time.Now()
	got := capRun(t, context.Background(), helperArgv(t, "grandchild", pidfile, "escape"),
		Config{WaitDelay: 30 * time.Second})
	elapsed := time.Since(start)
	_, grandchild := readPids(t, pidfile)
	t.Cleanup(func() { syscall.Kill(grandchild, syscall.SIGKILL) })
	if elapsed > 10*time.Second {
		t.Errorf("Run took %v, want well under WaitDelay (30s)", elapsed)
	}
	if got.Status != StatusExited || got.ExitCode != 0 {
		t.Errorf("got %v, code %d; want exited 0", got.Status, got.ExitCode)
	}
	if !waitGone(func() bool { return processAlive(grandchild) }) {
		t.Errorf("escaped grandchild %d still runs", grandchild)
	}
}

// cancelWhenExists calls cancel 200 ms after file appears.
func cancelWhenExists(file string, cancel func()) {
	defer cancel()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if _, err := os.Stat(file); err == nil {
			time.Sleep(200 * time.Millisecond)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func assertNoSurvivors(t *testing.T, pidfile string) {
	t.Helper()
	child, grandchild := readPids(t, pidfile)
	if !waitGone(func() bool { return len(liveMembers(child)) > 0 }) {
		t.Errorf("process group %d still has live members %v", child, liveMembers(child))
	}
	if !waitGone(func() bool { return processAlive(grandchild) }) {
		t.Errorf("grandchild %d survived", grandchild)
		syscall.Kill(grandchild, syscall.SIGKILL)
	}
}

func TestStatusString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    Status
		want string
	}{
		{StatusExited, "exited"},
		{StatusSignaled, "signaled"},
		{StatusTimedOut, "timed out"},
		{StatusTruncated, "truncated"},
		{StatusCanceled, "canceled"},
		{StatusStartFailed, "could not start"},
		{Status(0), "Status(0)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			if got := tt.s.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestResultOK(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    Result
		want bool
	}{
		{"exited 0", Result{Status: StatusExited}, true},
		{"zero Result", Result{}, false},
		{"exited 1", Result{Status: StatusExited, ExitCode: 1}, false},
		{"exited 0 but truncated", Result{Status: StatusExited, Truncated: true}, false},
		{"signaled", Result{Status: StatusSignaled, ExitCode: -1}, false},
		{"timed out", Result{Status: StatusTimedOut, ExitCode: -1, TimedOut: true}, false},
		{"start failed", Result{Status: StatusStartFailed, ExitCode: -1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.r.OK(); got != tt.want {
				t.Errorf("OK() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRunNeverPassesStdin is not parallel: it replaces os.Stdin with a pipe
// full of text, standing for the CSL document clada reads, and checks that
// the command reads none of it.
func TestRunNeverPassesStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := w.WriteString("RUN rm -rf /\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	saved := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = saved }()

	got := capRun(t, context.Background(), helperArgv(t, "stdin"), Config{})
	want := outcome{Status: StatusExited, Stdout: "read 0 bytes, err <nil>, null device true\n", OK: true}
	if diff := cmp.Diff(want, outcomeOf(got)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}
