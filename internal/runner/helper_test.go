//go:build unix

package runner

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clada/clada/internal/leftover"
	"github.com/clada/clada/internal/testtmp"
)

// helperArg, as os.Args[1], makes the test binary act as the command under
// test instead of running tests: real processes, no shell, no mocks.
const helperArg = "runner-test-helper"

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == helperArg {
		// syscall.Exit skips the race detector's exit hook, which sleeps 1 s.
		syscall.Exit(helper(os.Args[2], os.Args[3:]))
	}
	// The commands' leftovers outside their groups are killed too, as
	// in clada (see reap_linux.go); a test switches it off in a test
	// binary of its own (withoutReaper).
	if os.Getenv(noReaperEnv) == "" {
		if err := EnableReaper(); err != nil && runtime.GOOS == "linux" {
			fmt.Fprintln(os.Stderr, "EnableReaper:", err)
			os.Exit(1)
		}
	} else {
		subreaperOnly()
	}
	// The slow tests here wait on processes and timers, not the CPU: with
	// GOMAXPROCS parallel slots (2 here) they queued behind each other.
	// -parallel on the command line still wins.
	flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	// The tests run in a TMPDIR of their own, where ext4 creates the
	// files of their commands fast (see internal/testtmp); TempRoot
	// follows it.
	os.Exit(testtmp.Run(m))
}

// helperArgv returns the argv that runs the test binary in helper mode.
func helperArgv(t testing.TB, mode string, args ...string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{exe, helperArg, mode}, args...)
}

func helper(mode string, args []string) int {
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch mode {
	case "print": // print N [out|err|both]: N bytes of 'x' on the stream(s)
		n, _ := strconv.ParseInt(arg(0), 10, 64)
		switch arg(1) {
		case "err":
			writeN(os.Stderr, n)
		case "both":
			writeN(os.Stdout, n)
			writeN(os.Stderr, n)
		default:
			writeN(os.Stdout, n)
		}
	case "flood": // print forever, then (never) sleep
		writeN(os.Stdout, 1<<62)
	case "exit": // exit CODE
		fmt.Println("bye")
		n, _ := strconv.Atoi(arg(0))
		return n
	case "signal": // signal TERM|KILL: die of that signal
		sig := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL}[arg(0)]
		syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Hour)
	case "stdin": // report what stdin gives and what it is
		data, err := io.ReadAll(os.Stdin)
		in, _ := os.Stdin.Stat()
		null, _ := os.Stat(os.DevNull)
		fmt.Printf("read %d bytes, err %v, null device %v\n", len(data), err, in != nil && null != nil && os.SameFile(in, null))
	case "interleave": // interleave N: alternate lines on stdout and stderr
		n, _ := strconv.Atoi(arg(0))
		for i := range n {
			fmt.Fprintf(os.Stdout, "out %d\n", i)
			fmt.Fprintf(os.Stderr, "err %d\n", i)
		}
	case "pwd":
		wd, _ := os.Getwd()
		fmt.Println(wd)
	case "env":
		fmt.Print(strings.Join(os.Environ(), "\n"))
	case "env-but-temp": // the environment without TMPDIR, TMP and TEMP, which Run always sets
		var env []string
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); !isTempVar(k) {
				env = append(env, kv)
			}
		}
		fmt.Print(strings.Join(env, "\n"))
	case "tempdir": // tempdir N [sleep]: write N files into $TMPDIR, print its name, then maybe sleep
		dir := os.Getenv("TMPDIR")
		n, _ := strconv.Atoi(arg(0))
		for i := range n {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("spill%d", i)), []byte("x"), 0o600)
		}
		os.MkdirAll(filepath.Join(dir, "locked", "deeper"), 0o700)
		os.WriteFile(filepath.Join(dir, "locked", "deeper", "f"), []byte("x"), 0o600)
		os.Chmod(filepath.Join(dir, "locked", "deeper"), 0)
		os.Chmod(filepath.Join(dir, "locked"), 0)
		fmt.Println(dir, os.Getenv("TMP"), os.Getenv("TEMP"))
		if arg(1) == "sleep" {
			time.Sleep(time.Hour)
		}
		if arg(1) == "flood" {
			writeN(os.Stdout, 1<<62)
		}
	case "args": // one argument per line, as received
		for _, a := range args {
			fmt.Println(a)
		}
	case "nap": // nap DURATION: sleep that long, then exit 0
		d, err := time.ParseDuration(args[0])
		if err != nil {
			return 2
		}
		time.Sleep(d)
	case "sleep":
		fmt.Println("sleeping")
		time.Sleep(time.Hour)
	case "grandchild": // grandchild PIDFILE sleep|exit|escape
		// Start a sleeping grandchild that inherits stdout and stderr, so it
		// holds the pipes; record "childpid grandchildpid"; then sleep, exit,
		// or exit after starting the grandchild in its own session.
		gc := exec.Command(os.Args[0], helperArg, "sleep")
		gc.Stdout, gc.Stderr = os.Stdout, os.Stderr
		if arg(1) == "escape" {
			gc.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		}
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		tmp := arg(0) + ".tmp"
		os.WriteFile(tmp, fmt.Appendf(nil, "%d %d", os.Getpid(), gc.Process.Pid), 0o644)
		os.Rename(tmp, arg(0))
		fmt.Println("ready")
		if arg(1) == "sleep" {
			time.Sleep(time.Hour)
		}
	case "leftover": // leftover STEP MARKER [sleep]: see leftover.Step; then maybe sleep
		self := func(a ...string) *exec.Cmd {
			return exec.Command(os.Args[0], append([]string{helperArg, "leftover"}, a...)...)
		}
		if code := leftover.Step(arg(0), arg(1), self); code != 0 || arg(2) == "" {
			return code
		}
		if arg(2) == "flood" {
			writeN(os.Stdout, 1<<62)
		}
		fmt.Println("sleeping")
		time.Sleep(time.Hour)
	default:
		fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
		return 100
	}
	return 0
}

func writeN(w io.Writer, n int64) {
	chunk := bytes.Repeat([]byte{'x'}, 64<<10)
	for n > 0 {
		k := min(n, int64(len(chunk)))
		if _, err := w.Write(chunk[:k]); err != nil {
			return
		}
		n -= k
	}
}

// readPids reads the "childpid grandchildpid" file a grandchild helper wrote.
func readPids(t *testing.T, file string) (child, grandchild int) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("helper wrote no pid file: %v", err)
	}
	if _, err := fmt.Sscanf(string(data), "%d %d", &child, &grandchild); err != nil {
		t.Fatalf("pid file %q: %v", data, err)
	}
	return child, grandchild
}

// liveMembers returns the pids of the live (not zombie) processes in process
// group pgid, or, when pid > 0, whether that one process is alive. A killed
// process whose parent died stays a zombie until init reaps it, and kill(2)
// still finds zombies, so on Linux /proc tells them apart.
func liveMembers(pgid int) []int {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		if syscall.Kill(-pgid, 0) == nil {
			return []int{pgid}
		}
		return nil
	}
	var live []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range dirs {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(data[i+1:]))
		if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		if fields[2] == strconv.Itoa(pgid) {
			pid, _ := strconv.Atoi(strings.Fields(string(data[:i]))[0])
			live = append(live, pid)
		}
	}
	return live
}

// processAlive reports whether pid is a live, non-zombie process.
func processAlive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		if os.IsNotExist(err) {
			return false
		}
		return syscall.Kill(pid, 0) == nil
	}
	i := bytes.LastIndexByte(data, ')')
	fields := strings.Fields(string(data[i+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// waitGone waits up to 3 s for cond to become false: SIGKILL is delivered
// asynchronously.
func waitGone(cond func() bool) bool {
	deadline := time.Now().Add(3 * time.Second)
	for cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
