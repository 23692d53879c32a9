package main

import (
	"fmt"
	"net"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/clada/clada/sandbox"
)

// sandboxCondition answers the scripts' [landlock] (the kernel confines
// commands with Landlock) and [userns] (clada can give each command
// read-only .git and .clada mounts in namespaces of its own). A script
// that needs one skips with the reason where the machine lacks it.
func sandboxCondition(cond string) (bool, error) {
	switch cond {
	case "landlock":
		sb, err := sandbox.New(sandbox.Options{Root: "."})
		if err != nil {
			return false, err
		}
		defer sb.Close()
		return sb.Support().Landlock > 0, nil
	case "userns":
		ok, _ := sandbox.NamespacesWork()
		return ok, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// cmdListen opens a TCP listener on 127.0.0.1 for the rest of the
// script, accepting and closing every connection, and sets $PORT to its
// port: `listen`.
func cmdListen(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: listen")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	ts.Defer(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello from the listener\n"))
			c.Close()
		}
	}()
	ts.Setenv("PORT", strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
}

// sandboxPhrase is how the prompt says a command without grants runs on
// this machine: "sandboxed, no network" where the kernel confines, else
// "unconfined".
func sandboxPhrase(t *testing.T) string {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	return sb.Phrase(sandbox.Command{})
}
