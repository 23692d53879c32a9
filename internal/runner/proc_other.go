//go:build !unix && !windows

package runner

import (
	"os"
	"os/exec"
)

// group on other systems (plan9, wasip1…) is the command alone: kill ends
// the command but not what it started.
type group struct{}

func (group) prepare(*exec.Cmd)          {}
func (group) started(*os.Process)        {}
func (group) kill(p *os.Process) error   { return p.Kill() }
func (group) killLeftovers(*os.Process)  {}
func (group) close()                     {}
func signalName(*os.ProcessState) string { return "" }

// SignalNumber is 9 for SIGKILL, the only signal clada itself sends where
// there are no Unix signals, and 0 otherwise.
func SignalNumber(name string) int {
	if name == "SIGKILL" {
		return 9
	}
	return 0
}
