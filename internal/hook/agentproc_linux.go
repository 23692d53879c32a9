package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FindAgentProcess returns the agent process that ran a hook whose
// parent is ppid: ppid itself, or, when that is a shell the agent ran the
// hook through (Gemini CLI runs `bash -c COMMAND`), the first ancestor
// that is not a shell. It reads /proc; ok is false when that fails.
func FindAgentProcess(ppid int) (p AgentProcess, ok bool) {
	pid := ppid
	for range 4 {
		if pid <= 1 {
			return p, false
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err != nil || len(cmdline) == 0 {
			return p, false
		}
		args := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
		if !isShell(args[0]) {
			p.Args = args
			p.StdinTTY = isTerminalLink(pid, 0)
			p.StdoutTTY = isTerminalLink(pid, 1)
			return p, true
		}
		pid = parentOf(pid)
	}
	return p, false
}

// isShell reports whether program is a shell an agent runs hooks with.
func isShell(program string) bool {
	switch strings.TrimPrefix(filepath.Base(program), "-") {
	case "sh", "bash", "dash", "zsh", "fish", "ksh", "mksh":
		return true
	}
	return false
}

// isTerminalLink reports whether the process's file descriptor fd is a
// terminal device.
func isTerminalLink(pid, fd int) bool {
	target, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", strconv.Itoa(fd)))
	if err != nil {
		return false
	}
	return strings.HasPrefix(target, "/dev/pts/") || strings.HasPrefix(target, "/dev/tty") || target == "/dev/console"
}

// parentOf returns the parent of pid from /proc/PID/stat, or 0.
func parentOf(pid int) int {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}
