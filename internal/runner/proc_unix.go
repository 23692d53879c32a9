//go:build unix

package runner

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// group is the command's process group: the command leads a new session
// (Setsid), and so a new process group whose id is its pid, and kill(-pid)
// reaches its children and grandchildren unless they moved to another
// group or session. Setsid rather than Setpgid also leaves the command
// without a controlling terminal: opening /dev/tty fails at once, so a
// command can neither read the person's answers nor stop on SIGTTIN and
// wait out its timeout.
type group struct{}

func (group) prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

func (group) started(*os.Process) {}

// kill sends SIGKILL to the whole group. SIGKILL cannot be caught, and it
// also ends stopped processes (a member that read the terminal and got
// SIGTTIN).
func (group) kill(p *os.Process) error {
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// killLeftovers kills what is left of the group after its leader was
// reaped. The group id cannot have been reused meanwhile while any member
// is alive; when none is, the kill finds nothing (ESRCH).
func (g group) killLeftovers(p *os.Process) { _ = g.kill(p) }

func (group) close() {}

// signalName returns "SIGKILL", "SIGSEGV"… when state is a death by signal,
// else "".
func signalName(state *os.ProcessState) string {
	ws, ok := state.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	if name := unix.SignalName(ws.Signal()); name != "" {
		return name
	}
	return ws.Signal().String()
}

// SignalNumber is the number of the signal named name ("SIGKILL"), 0 when
// the name is unknown.
func SignalNumber(name string) int {
	if name == "" {
		return 0
	}
	return int(unix.SignalNum(name))
}
