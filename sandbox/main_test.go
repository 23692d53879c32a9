//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
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
	os.Exit(m.Run())
}

func act(args []string) int {
	if len(args) < 2 {
		fmt.Println("act: want ACTION ARG")
		return 2
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
		var c net.Conn
		if c, err = net.Dial("tcp", arg); err == nil {
			c.Close()
		}
	case "unix":
		// A Unix socket of its own: listen and connect.
		var l net.Listener
		if l, err = net.Listen("unix", arg); err == nil {
			var c net.Conn
			if c, err = net.Dial("unix", arg); err == nil {
				c.Close()
			}
			l.Close()
		}
	case "uring":
		// io_uring_setup(1, NULL): EFAULT when allowed, ENOSYS when filtered.
		_, _, errno := syscall.Syscall(425, 1, 0, 0)
		if errno != syscall.EFAULT {
			err = errno
		}
	case "umount":
		err = syscall.Unmount(arg, syscall.MNT_DETACH)
	case "kill":
		var pid int
		fmt.Sscan(arg, &pid)
		err = syscall.Kill(pid, 0)
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
