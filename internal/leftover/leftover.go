// Package leftover helps the tests check that nothing a command started
// outlives it: a command daemonizes a process (a double fork, a session
// of its own, standard streams on the null device, as daemon(3) does)
// whose command line holds a marker, a unique path, and which writes that
// file after [Delay]. The tests look for both after the command ended.
package leftover

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Delay is how long a leftover sleeps before it writes its marker.
const Delay = time.Second

// Processes returns the pids of the live (not zombie) processes with an
// argument equal to marker.
func Processes(marker string) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, d := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !hasArg(cmdline, marker) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if i := bytes.LastIndexByte(stat, ')'); err != nil || i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		pids = append(pids, pid)
	}
	return pids
}

func hasArg(cmdline []byte, arg string) bool {
	for _, a := range bytes.Split(cmdline, []byte{0}) {
		if string(a) == arg {
			return true
		}
	}
	return false
}

// WaitStarted waits up to 10 s for a live process with marker in its
// command line, failing the test when none comes.
func WaitStarted(t testing.TB, marker string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(Processes(marker)) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no process with %s in its command line started", marker)
		}
	}
}

// Gone fails the test when a process with marker in its command line
// still runs, or when the marker file appears before Delay and a margin
// have passed since started (the time the command started, before its
// leftover could). Survivors are killed, so no test leaves one behind.
// after says what should have ended them.
func Gone(t testing.TB, marker string, started time.Time, after string) {
	t.Helper()
	// SIGKILL is delivered asynchronously: a process killed just now
	// may still show for a moment.
	var live []int
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if live = Processes(marker); len(live) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, pid := range live {
		killPID(pid)
	}
	if len(live) > 0 {
		t.Errorf("processes %v started by the command still run after %s", live, after)
	}
	time.Sleep(time.Until(started.Add(Delay + 500*time.Millisecond)))
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a process the command started wrote %s after %s", marker, after)
	}
}

// Alive fails the test unless a process with marker in its command line
// still runs.
func Alive(t testing.TB, marker string, why string) {
	t.Helper()
	if len(Processes(marker)) == 0 {
		t.Errorf("the process with %s in its command line is gone %s", marker, why)
	}
}

// Step is one step of daemonizing a leftover, for a test binary's helper
// mode; self returns the command that runs this test binary in that mode
// with the given arguments. "daemonize" starts "detach" in a session of
// its own and waits for it; "detach" starts "late" in yet another
// session and exits at once, so that "late" is an orphan in a session
// and process group that are not the command's; "late" sleeps [Delay],
// writes the marker file and sleeps on. Standard streams are the null device, so
// no pipe tells the runner that "late" is still there.
func Step(step, marker string, self func(args ...string) *exec.Cmd) int {
	switch step {
	case "daemonize", "detach":
		next := map[string]string{"daemonize": "detach", "detach": "late"}[step]
		cmd := self(next, marker)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
		cmd.SysProcAttr = newSession()
		if err := cmd.Start(); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 1
		}
		if step == "daemonize" {
			_ = cmd.Wait()
		}
	case "late":
		time.Sleep(Delay)
		// Written or not (the sandbox may refuse it), the process
		// stays for Gone to find.
		_ = os.WriteFile(marker, []byte("outlived its command\n"), 0o644)
		time.Sleep(time.Hour)

	default:
		return 2
	}
	return 0
}
