//go:build windows

package runner

import (
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// group is a job object holding the command and, through inheritance, the
// processes it starts. Terminating the job kills them all, and
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE kills whatever is left when Run closes
// it. The command is assigned to the job just after it starts (os/exec
// cannot start it suspended and resume it), so a process it spawns in that
// instant escapes the job. If the job cannot be created or assigned, kill
// falls back to killing the command alone (Process.Kill).
//
// CREATE_NEW_PROCESS_GROUP keeps the console's Ctrl-C away from the command,
// as Setpgid does on Unix: clada cancels ctx instead.
type group struct {
	job      windows.Handle
	assigned bool
}

func (g *group) prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return
	}
	g.job = job
}

func (g *group) started(p *os.Process) {
	if g.job == 0 {
		return
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		return
	}
	defer windows.CloseHandle(h)
	g.assigned = windows.AssignProcessToJobObject(g.job, h) == nil
}

func (g *group) kill(p *os.Process) error {
	if g.assigned {
		if err := windows.TerminateJobObject(g.job, 1); err == nil {
			return nil
		}
	}
	return p.Kill()
}

func (g *group) killLeftovers(*os.Process) {
	if g.assigned {
		_ = windows.TerminateJobObject(g.job, 1)
	}
}

func (g *group) close() {
	if g.job != 0 {
		windows.CloseHandle(g.job)
		g.job = 0
	}
}

// signalName returns "": Windows processes do not die of signals.
func signalName(*os.ProcessState) string { return "" }

// SignalNumber is 9 for SIGKILL, the only signal clada itself sends where
// there are no Unix signals, and 0 otherwise.
func SignalNumber(name string) int {
	if name == "SIGKILL" {
		return 9
	}
	return 0
}
