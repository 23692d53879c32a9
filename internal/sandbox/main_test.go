//go:build linux

package sandbox

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/clada/clada/internal/leftover"
	"github.com/clada/clada/internal/runner"
	"golang.org/x/sys/unix"
)

// actEnv makes the test binary act as the confined command: it performs
// one action (os.Args[1:]) and prints "ok" or the error, exiting 0 or 1.
// The tests run it as root, where the file permissions stop nothing: what
// is refused is refused by Landlock and seccomp.
const actEnv = "CLADA_SANDBOX_TEST_ACT"

func TestMain(m *testing.M) {
	if os.Getenv(actEnv) != "" {
		os.Exit(act(os.Args[1:]))
	}
	Main()
	// As clada does: what a command leaves outside its group is killed
	// when it ends (leftover_linux_test.go checks it, confined).
	if err := runner.EnableReaper(); err != nil {
		fmt.Fprintln(os.Stderr, "EnableReaper:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func act(args []string) int {
	if len(args) < 2 {
		fmt.Println("act: want ACTION ARG")
		return 2
	}
	if args[0] == "leftover" && len(args) == 3 { // leftover STEP MARKER: see leftover.Step
		return leftover.Step(args[1], args[2], func(a ...string) *exec.Cmd {
			return exec.Command(os.Args[0], append([]string{"leftover"}, a...)...)
		})
	}
	var err error
	switch arg := args[1]; args[0] {
	case "write":
		err = os.WriteFile(arg, []byte("x"), 0o644)
	case "append":
		var f *os.File
		if f, err = os.OpenFile(arg, os.O_WRONLY|os.O_APPEND, 0); err == nil {
			_, err = f.WriteString("x")
			f.Close()
		}
	case "mkdir":
		err = os.Mkdir(arg, 0o755)
	case "remove":
		err = os.Remove(arg)
	case "rename":
		err = os.Rename(arg, args[2])
	case "read":
		_, err = os.ReadFile(arg)
	case "list":
		_, err = os.ReadDir(arg)
	case "connect":
		err = connectTCP(arg)
	case "udp":
		// A UDP socket that sends one datagram to arg.
		var fd int
		if fd, err = unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0); err == nil {
			err = unix.Sendto(fd, []byte("x"), 0, &unix.SockaddrInet4{Port: 9, Addr: [4]byte{127, 0, 0, 1}})
			unix.Close(fd)
		}
	case "greet":
		// greet ADDR: connect to ADDR ("127.0.0.1:PORT", "[::1]:PORT")
		// and print what it sends first.
		var got string
		if got, err = greetTCP(arg); err == nil {
			fmt.Println(got)
		}
	case "abstract":
		// abstract NAME: connect to the abstract Unix socket @NAME.
		var fd int
		if fd, err = unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err == nil {
			err = unix.Connect(fd, &unix.SockaddrUnix{Name: "@" + arg})
			unix.Close(fd)
		}
	case "setns-parent":
		// Join the network namespace of the process that started this
		// one (clada's: the host's network).
		var fd int
		if fd, err = unix.Open(fmt.Sprintf("/proc/%d/ns/net", os.Getppid()), unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
			err = unix.Setns(fd, unix.CLONE_NEWNET)
			unix.Close(fd)
		}
	case "listening-fd":
		// Fails when this process holds a listening socket it did not
		// make (one inherited from clada: the proxy's).
		err = inheritedListener()
	case "unix":
		// A Unix socket of its own: listen and connect.
		err = unixSelfConnect(arg)
	case "uring":
		// io_uring_setup(1, NULL): EFAULT when allowed, ENOSYS when filtered.
		_, _, errno := syscall.Syscall(unix.SYS_IO_URING_SETUP, 1, 0, 0)
		if errno != syscall.EFAULT {
			err = errno
		}
	case "umount":
		err = syscall.Unmount(arg, syscall.MNT_DETACH)
	case "ptrace-parent":
		// PTRACE_ATTACH to every thread of the process that started
		// this one: a launcher thread shares the command's Landlock
		// domain, and attaching to it would put this command inside
		// clada's memory. "ok" when any attach succeeded.
		err = eachParentThread(func(tid int) error {
			if err := syscall.PtraceAttach(tid); err != nil {
				return err
			}
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(tid, &ws, syscall.WALL, nil)
			return syscall.PtraceDetach(tid)
		})
	case "vmread-parent":
		// process_vm_readv on every thread of the parent, at address 0:
		// EFAULT means the kernel let it read clada's memory.
		err = eachParentThread(func(tid int) error {
			buf := make([]byte, 1)
			local := []syscall.Iovec{{Base: &buf[0], Len: 1}}
			remote := []syscall.Iovec{{Base: nil, Len: 1}}
			_, _, errno := syscall.Syscall6(unix.SYS_PROCESS_VM_READV, uintptr(tid), uintptr(unsafe.Pointer(&local[0])), 1,
				uintptr(unsafe.Pointer(&remote[0])), 1, 0)
			if errno == syscall.EFAULT {
				return nil
			}
			return errno
		})
	case "mknod":
		// A character device (1, 3, /dev/null's numbers): as root, a
		// block device made this way would read a whole disk.
		err = syscall.Mknod(arg, syscall.S_IFCHR|0o600, 1<<8|3)
	case "capbset":
		// "ok" when the capability numbered arg is in the bounding set,
		// so that a command run as root would have it.
		var c int
		fmt.Sscan(arg, &c)
		var in int
		if in, err = unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0); err == nil && in == 0 {
			err = syscall.EPERM
		}
	case "tkill-parent":
		// Signal 0 to every thread of the parent: it checks the
		// permission to signal without sending anything. "ok" when any
		// thread could be signalled (SIGSTOP would stop clada, and its
		// timeouts with it).
		err = eachParentThread(func(tid int) error {
			return syscall.Tgkill(os.Getppid(), tid, 0)
		})
	case "kill":
		var pid int
		fmt.Sscan(arg, &pid)
		err = syscall.Kill(pid, 0)
	case "link":
		err = os.Link(arg, args[2])
	case "modecall":
		// modecall CALL PATH MODE: the system call CALL made directly
		// on PATH with MODE (octal), so that every call the seccomp
		// filter checks is tried as a program would make it.
		var mode uint64
		if _, err = fmt.Sscanf(args[3], "%o", &mode); err == nil {
			err = makeModeCall(arg, args[2], mode)
		}
	default:
		err = fmt.Errorf("unknown action %q", args[0])
	}
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("ok")
	return 0
}

// makeModeCall makes the system call named call on path with mode: the
// chmod calls change path's mode, the creating ones create it (open with
// O_CREAT, O_TMPFILE then linked to path, mknod a regular file), and
// "openat-read" opens it without O_CREAT, the mode being ignored.
func makeModeCall(call, path string, mode uint64) error {
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return err
	}
	ptr := uintptr(unsafe.Pointer(p))
	fdcwd := unix.AT_FDCWD
	at := uintptr(fdcwd) // -100, which the kernel reads as an int
	closed := func(r uintptr, errno syscall.Errno) error {
		if errno != 0 {
			return errno
		}
		return unix.Close(int(r))
	}
	var r uintptr
	var errno syscall.Errno
	switch call {
	case "fchmod":
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		_, _, errno = syscall.Syscall(unix.SYS_FCHMOD, uintptr(fd), uintptr(mode), 0)
	case "fchmodat":
		_, _, errno = syscall.Syscall6(unix.SYS_FCHMODAT, at, ptr, uintptr(mode), 0, 0, 0)
	case "fchmodat2":
		_, _, errno = syscall.Syscall6(unix.SYS_FCHMODAT2, at, ptr, uintptr(mode), 0, 0, 0)
	case "openat":
		r, _, errno = syscall.Syscall6(unix.SYS_OPENAT, at, ptr, unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, uintptr(mode), 0, 0)
		return closed(r, errno)
	case "openat-read":
		r, _, errno = syscall.Syscall6(unix.SYS_OPENAT, at, ptr, unix.O_RDONLY|unix.O_CLOEXEC, uintptr(mode), 0, 0)
		return closed(r, errno)
	case "openat-tmpfile":
		// An unnamed file in path's directory, then given path's name.
		d, err := unix.BytePtrFromString(filepath.Dir(path))
		if err != nil {
			return err
		}
		r, _, errno = syscall.Syscall6(unix.SYS_OPENAT, at, uintptr(unsafe.Pointer(d)), unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, uintptr(mode), 0, 0)
		if errno != 0 {
			return errno
		}
		defer unix.Close(int(r))
		return unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", r), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	case "openat2":
		fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_CREAT | unix.O_WRONLY | unix.O_CLOEXEC, Mode: mode})
		if err != nil {
			return err
		}
		return unix.Close(fd)
	case "mknodat":
		_, _, errno = syscall.Syscall6(unix.SYS_MKNODAT, at, ptr, uintptr(unix.S_IFREG|mode), 0, 0, 0)
	case "mkdirat":
		_, _, errno = syscall.Syscall(unix.SYS_MKDIRAT, at, ptr, uintptr(mode))
	default:
		nr, ok := legacyModeCalls[call]
		if !ok {
			return fmt.Errorf("unknown call %q", call)
		}
		switch call {
		case "open":
			r, _, errno = syscall.Syscall(nr, ptr, unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, uintptr(mode))
			return closed(r, errno)
		case "creat":
			r, _, errno = syscall.Syscall(nr, ptr, uintptr(mode), 0)
			return closed(r, errno)
		case "mknod":
			_, _, errno = syscall.Syscall(nr, ptr, uintptr(unix.S_IFREG|mode), 0)
		default: // chmod, mkdir
			_, _, errno = syscall.Syscall(nr, ptr, uintptr(mode), 0)
		}
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// eachParentThread calls try on each thread of the parent process and
// returns nil as soon as one call succeeds, else the last error.
func eachParentThread(try func(tid int) error) error {
	dir := fmt.Sprintf("/proc/%d/task", os.Getppid())
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	last := error(syscall.ESRCH)
	for _, e := range entries {
		var tid int
		fmt.Sscan(e.Name(), &tid)
		if err := try(tid); err == nil {
			return nil
		} else {
			last = err
		}
	}
	return last
}

// The sockets of the actions and of the tests' listener are made with
// system calls rather than package net: net links cgo's resolver into this
// test binary, which then starts through the dynamic loader, about 0.7 ms
// more each of the ~100 times the tests start it as the command.

// connectTCP connects to addr ("127.0.0.1:PORT") and closes the
// connection.
func connectTCP(addr string) error {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return err
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Connect(fd, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()})
}

// greetTCP connects to addr, IPv4 or IPv6, and returns what the other
// end sends first (up to 100 bytes).
func greetTCP(addr string) (string, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return "", err
	}
	var fd int
	var sa unix.Sockaddr
	if ap.Addr().Is4() {
		fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		sa = &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	} else {
		fd, err = unix.Socket(unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		sa = &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
	}
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, sa); err != nil {
		return "", err
	}
	buf := make([]byte, 100)
	n, err := unix.Read(fd, buf)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(buf[:n])), nil
}

// inheritedListener returns an error naming the first descriptor of this
// process that is a listening socket.
func inheritedListener() error {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	for _, e := range entries {
		var fd int
		if _, err := fmt.Sscan(e.Name(), &fd); err != nil {
			continue
		}
		if v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err == nil && v == 1 {
			return fmt.Errorf("descriptor %d is a listening socket", fd)
		}
	}
	return nil
}

// unixSelfConnect listens on a Unix socket at path and connects to it.
func unixSelfConnect(path string) error {
	l, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(l)
	if err := unix.Bind(l, &unix.SockaddrUnix{Name: path}); err != nil {
		return err
	}
	defer os.Remove(path)
	if err := unix.Listen(l, 1); err != nil {
		return err
	}
	c, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(c)
	return unix.Connect(c, &unix.SockaddrUnix{Name: path})
}

// listenTCP listens on 127.0.0.1 at a free port, accepting and closing
// every connection until the test ends, and returns "127.0.0.1:PORT".
func listenTCP(t *testing.T) string {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 16); err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, _, err := unix.Accept(fd)
			if err == unix.EINTR || err == unix.ECONNABORTED {
				continue
			}
			if err != nil {
				return
			}
			unix.Close(c)
		}
	}()
	t.Cleanup(func() {
		// shutdown wakes the blocked accept, which then fails.
		unix.Shutdown(fd, unix.SHUT_RDWR)
		<-done
		unix.Close(fd)
	})
	return fmt.Sprintf("127.0.0.1:%d", sa.(*unix.SockaddrInet4).Port)
}
