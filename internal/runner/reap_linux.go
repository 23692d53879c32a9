package runner

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// The reaper kills what a command left outside its process group.
//
// The group kill misses a process that made a session (and so a group)
// of its own, as daemon(3), setsid(1) and a double fork do: it would
// outlive the command, and clada, and go on changing the project after
// later decisions were made. [EnableReaper] makes this process the child
// subreaper of everything it starts (PR_SET_CHILD_SUBREAPER): a process
// whose parent dies is adopted by it instead of by init, wherever it
// moved to, so every leftover of every command is a child of this
// process or a descendant of one. When a command (each stage of a
// pipeline) ends, however it ends, the runner kills its group and then
// drains: it kills every adopted child that belongs to no command still
// running, waits for it by its pid (its own children are adopted before
// that wait returns), and looks again, until none is left.
//
// Which command an adopted process belongs to is decided without a
// helper process per command, which would cost another start of a
// program per command (a PID namespace per command would make pids
// disagree with /proc, and exists only with user namespaces): a process
// belongs to a running command when it is still in that command's
// session (its session id is the command's pid, which the kernel does not
// give to another process while the session has a member), or, having
// made a session of its own, when its environment still names that
// command's private TMPDIR, which every descendant inherits unless it
// changes it. A process that belongs to no running command by either
// test is killed: its own command has ended, or it hid where it came
// from. So when a command ends nothing it started remains, except a
// process that made a session of its own and set TMPDIR to another
// command's that is still running, which lives until that command ends
// (clada mcp runs commands concurrently; clada run does not), and a
// process another running command's leftover hid as its own (its
// environment cleared) is killed when any command ends.
//
// Only adopted children are waited for, each by its pid: a wait for any
// child would take the exit status of a command os/exec is waiting for.
// The commands themselves are known (registered while starting, under a
// lock the drain takes exclusively, so a command just forked is never
// mistaken for a leftover). Children in this process's own session are
// not the runner's (its commands all start sessions of their own) and
// are left alone.
//
// When this process is killed with SIGKILL nothing runs: its running
// commands and their leftovers are adopted by init (or an outer
// subreaper) and go on. SIGINT and SIGTERM cancel the commands, which
// drains them, before clada exits.
var reaper struct {
	enabled atomic.Bool
	self    int // this process's pid and session
	sid     int

	// starts is held shared while a command starts and is registered,
	// and exclusively while draining.
	starts sync.RWMutex
	mu     sync.Mutex
	live   map[*reaped]struct{} // the commands running, guarded by mu
}

// reaped is a running command, as the reaper knows it.
type reaped struct {
	pid int
	tmp string // its TMPDIR
}

// EnableReaper makes this process the child subreaper of the commands
// Run and Script start, so that when a command ends nothing it started
// remains, also a process that left its process group and session (see
// reap_linux.go). A program calls it once, at the start of main; from
// then on every child of the program in a session other than the
// program's own is taken for a command's and killed when no running
// command owns it, so the program must not start other children in
// sessions of their own. Without it, only the command's process group is
// killed. It returns errors.ErrUnsupported where there is no subreaper
// (systems other than Linux).
func EnableReaper() error {
	if reaper.enabled.Load() {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return err
	}
	sid, err := unix.Getsid(0)
	if err != nil {
		return err
	}
	reaper.self, reaper.sid = os.Getpid(), sid
	reaper.enabled.Store(true)
	return nil
}

// reapStart is called before a command starts; the function it returns
// is called once it started (pid > 0, with its TMPDIR) or failed to
// (pid 0), and returns the command's registration for reapEnd.
func reapStart() func(pid int, tmp string) *reaped {
	if !reaper.enabled.Load() {
		return func(int, string) *reaped { return nil }
	}
	reaper.starts.RLock()
	return func(pid int, tmp string) *reaped {
		defer reaper.starts.RUnlock()
		if pid <= 0 {
			return nil
		}
		r := &reaped{pid: pid, tmp: tmp}
		reaper.mu.Lock()
		if reaper.live == nil {
			reaper.live = map[*reaped]struct{}{}
		}
		reaper.live[r] = struct{}{}
		reaper.mu.Unlock()
		return r
	}
}

// reapEnd is called once the command r was waited for and its group
// killed: it forgets r and kills what r and finished commands left.
func reapEnd(r *reaped) {
	if r == nil {
		return
	}
	reaper.mu.Lock()
	delete(reaper.live, r)
	reaper.mu.Unlock()
	drain()
}

// drain kills and waits for every adopted child that no running command
// owns, and for the children those leave, until none is left; it also
// reaps adopted children that have exited.
func drain() {
	reaper.starts.Lock()
	defer reaper.starts.Unlock()
	reaper.mu.Lock()
	leaders := make(map[int]bool, len(reaper.live))
	var tmps [][]byte
	for r := range reaper.live {
		leaders[r.pid] = true
		tmps = append(tmps, []byte("TMPDIR="+r.tmp))
	}
	reaper.mu.Unlock()
	for {
		var victims []int
		for _, pid := range children() {
			if leaders[pid] {
				continue // os/exec waits for it
			}
			st, ok := readStat(pid)
			if !ok || st.ppid != reaper.self || st.sid == reaper.sid {
				continue
			}
			if st.state != 'Z' && (leaders[st.sid] || namesTemp(pid, tmps)) {
				continue // a running command's
			}
			_ = unix.Kill(pid, unix.SIGKILL)
			victims = append(victims, pid)
		}
		if len(victims) == 0 {
			return
		}
		for _, pid := range victims {
			var ws unix.WaitStatus
			for {
				_, err := unix.Wait4(pid, &ws, 0, nil)
				if !errors.Is(err, unix.EINTR) {
					break
				}
			}
		}
	}
}

// procStat is what drain reads of /proc/PID/stat.
type procStat struct {
	state     byte
	ppid, sid int
}

func readStat(pid int) (procStat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// pid (comm) state ppid pgrp session ...; comm may hold anything.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return procStat{}, false
	}
	var st procStat
	st.state = f[0][0]
	var e1, e2 error
	st.ppid, e1 = strconv.Atoi(string(f[1]))
	st.sid, e2 = strconv.Atoi(string(f[3]))
	return st, e1 == nil && e2 == nil
}

// namesTemp reports whether the environment of pid holds one of the
// entries tmps ("TMPDIR=…").
func namesTemp(pid int, tmps [][]byte) bool {
	if len(tmps) == 0 {
		return false
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		for _, t := range tmps {
			if bytes.Equal(kv, t) {
				return true
			}
		}
	}
	return false
}

// children returns the pids of this process's children, adopted or not:
// those of every thread (an orphan is adopted by the main thread, a
// command's sibling made with CLONE_PARENT is the child of the thread
// that started the command), from /proc/self/task/*/children, or where
// the kernel has no such file (CONFIG_PROC_CHILDREN), from the parent of
// every process.
func children() []int {
	tasks, err := os.ReadDir("/proc/self/task")
	var pids []int
	if err == nil {
		for _, t := range tasks {
			data, err := os.ReadFile(filepath.Join("/proc/self/task", t.Name(), "children"))
			if err != nil {
				if errors.Is(err, os.ErrNotExist) && t.Name() == strconv.Itoa(reaper.self) {
					return childrenByParent()
				}
				continue // the thread ended meanwhile
			}
			for f := range bytes.FieldsSeq(data) {
				if pid, err := strconv.Atoi(string(f)); err == nil {
					pids = append(pids, pid)
				}
			}
		}
		return pids
	}
	return childrenByParent()
}

func childrenByParent() []int {
	dirs, _ := os.ReadDir("/proc")
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok && st.ppid == reaper.self {
			pids = append(pids, pid)
		}
	}
	return pids
}
