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

// clada starts itself again in a user namespace only for what runs
// commands under the sandbox.
func TestNeedsNamespace(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"clada", "run", "reply.csl"}, true},
		{[]string{"clada", "run", "--trust-all", "--sandbox", "required", "reply.csl"}, true},
		{[]string{"clada", "run", "--dry-run", "reply.csl"}, false},
		{[]string{"clada", "run", "--sandbox", "off", "reply.csl"}, false},
		{[]string{"clada", "run", "--sandbox=off"}, false},
		{[]string{"clada", "mcp"}, false}, // clada-mcp enters its own
		{[]string{"clada", "mcp", "--sandbox", "off"}, false},
		{[]string{"clada", "exec", "--", "ls", "--sandbox", "off"}, true}, // the command's own words
		{[]string{"clada", "exec", "ls", "--dry-run"}, true},
		{[]string{"clada", "exec", "--sandbox", "off", "--", "ls"}, false},
		{[]string{"clada", "check", "--", "ls"}, false},
		{[]string{"clada", "sandbox"}, false},
		{[]string{"clada"}, false},
	} {
		if got := needsNamespace(tt.args); got != tt.want {
			t.Errorf("needsNamespace(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
