//go:build unix

package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPrivateTempDir runs a command that fills $TMPDIR (including
// directories it made unreadable) and ends in each way a command can end:
// every time the directory is its own, under TempRoot, named by TMPDIR,
// TMP and TEMP, and gone afterwards with everything in it.
func TestPrivateTempDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		cfg    Config
		status Status
		cancel bool // cancel once the helper printed its line
		// timeouts are tried in turn until the helper printed its line
		// before the kill; nil: one run with cfg as it is.
		timeouts []time.Duration
	}{
		{name: "exits", args: []string{"50"}, status: StatusExited},
		// The helper must fill and print before the timeout; on a loaded
		// machine (under -race) it may not in the first, short one: then
		// the test tries the longer ones of timeouts.
		{name: "timed out", args: []string{"50", "sleep"}, status: StatusTimedOut, timeouts: []time.Duration{250 * time.Millisecond, time.Second, 4 * time.Second}},
		{name: "output cap", args: []string{"50", "flood"}, cfg: Config{MaxOutput: 100000}, status: StatusTruncated},
		{name: "canceled", args: []string{"50", "sleep"}, status: StatusCanceled, cancel: true},
		{name: "explicit Env keeps no TMPDIR of its own", args: []string{"1"}, cfg: Config{Env: []string{"TMPDIR=/tmp", "tmp=/x", "A=1"}}, status: StatusExited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got captured
			var parent string
			for i := 0; i == 0 || i < len(tt.timeouts); i++ {
				parent = t.TempDir()
				cfg := tt.cfg
				cfg.TempRoot = parent
				if tt.timeouts != nil {
					cfg.Timeout = tt.timeouts[i]
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tt.cancel {
					// Cancel when the helper has printed, not after a fixed
					// time that a loaded machine may not start it in.
					cfg.Stdout = cancelOnLine{cancel}
				}
				got = capRun(t, ctx, helperArgv(t, "tempdir", tt.args...), cfg)
				if left, _ := os.ReadDir(parent); len(left) != 0 {
					t.Errorf("TempRoot holds %d entries after the command, want none", len(left))
				}
				if tt.timeouts == nil || len(got.Stdout) > 0 || i == len(tt.timeouts)-1 {
					break
				}
				t.Logf("with a %v timeout the helper was killed before it printed; trying longer", cfg.Timeout)
			}
			if got.Status != tt.status && !(tt.status == StatusCanceled && got.Status == StatusTimedOut) {
				t.Fatalf("status %v, want %v (err %v)", got.Status, tt.status, got.Err)
			}
			line, _, _ := strings.Cut(string(got.Stdout), "\n")
			f := strings.Fields(line)
			if len(f) != 3 {
				t.Fatalf("the helper printed %q, want TMPDIR TMP TEMP", line)
			}
			if f[0] != f[1] || f[0] != f[2] {
				t.Errorf("TMPDIR, TMP, TEMP = %q, want one directory", f)
			}
			if filepath.Dir(f[0]) != parent {
				t.Errorf("TMPDIR %s is not a directory of its own under TempRoot %s", f[0], parent)
			}
			if _, err := os.Lstat(f[0]); !os.IsNotExist(err) {
				t.Errorf("the command's temporary directory %s outlived it (lstat: %v)", f[0], err)
			}
			if left, _ := os.ReadDir(parent); len(left) != 0 {
				t.Errorf("TempRoot holds %d entries after the command, want none", len(left))
			}
			if got.TempLeft != "" {
				t.Errorf("TempLeft = %q, want \"\"", got.TempLeft)
			}
		})
	}
}

// cancelOnLine cancels when a write ends a line; capRun still captures
// the output in its own sink.
type cancelOnLine struct{ cancel context.CancelFunc }

func (c cancelOnLine) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "\n") {
		c.cancel()
	}
	return len(p), nil
}

// TestTempDirMissingRoot: a TempRoot that does not exist means the command
// cannot start, and says why.
func TestTempDirMissingRoot(t *testing.T) {
	t.Parallel()
	got := Run(context.Background(), helperArgv(t, "exit", "0"), Config{TempRoot: filepath.Join(t.TempDir(), "missing")})
	if got.Status != StatusStartFailed || got.Err == nil || !strings.Contains(got.Err.Error(), "temporary directory") {
		t.Errorf("Run with a missing TempRoot = %v, %v; want could not start naming the temporary directory", got.Status, got.Err)
	}
}

func TestTempDirEnv(t *testing.T) {
	t.Parallel()
	td := &tempDir{path: "/p"}
	got := strings.Join(td.env([]string{"A=1", "TMPDIR=/tmp", "Temp=x", "TMP_X=keep", "B=2"}), " ")
	want := "A=1 TMP_X=keep B=2 TMPDIR=/p TMP=/p TEMP=/p"
	if got != want {
		t.Errorf("env = %q, want %q", got, want)
	}
}
