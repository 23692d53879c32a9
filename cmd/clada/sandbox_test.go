package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/clada/clada/internal/sandbox"
)

// sandboxCondition answers the scripts' [landlock] (the kernel confines
// commands with Landlock), [userns] (clada can give each command
// read-only .git and .clada mounts in namespaces of its own) and [netns]
// (a command held to clada's proxy gets a network namespace too). A script
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
	case "netns":
		ok, _ := sandbox.NetNamespacesWork()
		return ok, nil
	}
	name, ok := strings.CutPrefix(cond, "shell:")
	if !ok {
		name, ok = strings.CutPrefix(cond, "tool:")
	}
	if ok {
		// [shell:fish], [tool:python3]: fish is installed, or CI is
		// set, where .ci/run installs it and a script that needs it
		// must fail, not skip.
		_, err := exec.LookPath(name)
		return err == nil || os.Getenv("CI") != "", nil
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

// cmdListenLater stands for the other services a command held to clada's
// proxy must not reach on the proxy's own port number, which nobody knows
// before the command runs: `listenlater FILE ADDR...` waits, for the rest
// of the script, for the file $WORK/FILE to hold a port number (the
// confined command writes the proxy's port there), then listens on each
// ADDR ("127.0.0.2", "::1") at that port, each connection answered with
// "hello from ADDR", and writes FILE.ready listing, one per line, the
// addresses it listens on (an address this machine lacks, such as ::1
// without IPv6, is left out), then "host-proxy-open" or
// "host-proxy-closed": whether anything (clada's proxy) listens on this
// machine's 127.0.0.1 at that port. It also listens on the abstract Unix
// socket "@clada-test-PID" at once and sets $ABSTRACT to its name without
// the @.
func cmdListenLater(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: listenlater FILE ADDR...")
	}
	file := ts.MkAbs(args[0])
	addrs := args[1:]
	done := make(chan struct{})
	var mu sync.Mutex
	var listeners []net.Listener
	closed := false
	serve := func(l net.Listener, greeting string) {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			l.Close()
			return
		}
		listeners = append(listeners, l)
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Write([]byte(greeting + "\n"))
				c.Close()
			}
		}()
	}
	abstract := fmt.Sprintf("clada-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	ul, err := net.Listen("unix", "@"+abstract)
	ts.Check(err)
	serve(ul, "hello from the abstract socket")
	ts.Setenv("ABSTRACT", abstract)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
			data, err := os.ReadFile(file)
			port, perr := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil || perr != nil {
				continue
			}
			var bound []string
			for _, a := range addrs {
				l, err := net.Listen("tcp", net.JoinHostPort(a, strconv.Itoa(port)))
				if err != nil {
					continue
				}
				serve(l, "hello from "+a)
				bound = append(bound, a)
			}
			// Whether clada's proxy still listens on this machine's
			// 127.0.0.1 at that port.
			hostProxy := "host-proxy-closed"
			if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 2*time.Second); err == nil {
				c.Close()
				hostProxy = "host-proxy-open"
			}
			bound = append(bound, hostProxy)
			os.WriteFile(file+".ready", []byte(strings.Join(bound, "\n")+"\n"), 0o644)
			return
		}
	}()
	ts.Defer(func() {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		closed = true
		for _, l := range listeners {
			l.Close()
		}
	})
}

// TestNamespaceOnlyWhenSomethingRuns: clada run and clada exec start
// clada again in its namespace (reexec) only once they know a command may
// run, and then with the document they read from stdin, byte for byte,
// having written nothing themselves; a document whose blocks are all
// denied, a malformed one, a dry run, the sandbox off (--sandbox or
// config.toml) and a refused exec are answered in the same process. (The scripts sandbox_* show that
// what runs is confined in the namespace.)
func TestNamespaceOnlyWhenSomethingRuns(t *testing.T) {
	root := newRoot(t)
	const (
		allowed   = "<---RUN--->\nls\n<---END--->\n"
		denied    = "<---RUN--->\nrm -rf /\n<---END--->\n<---RUN--->\ntouch /etc/passwd\n<---END--->\n"
		asked     = "<---RUN--->\nrm -rf /\n<---END--->\n<---RUN--->\nfrobnicate now\n<---END--->\n"
		malformed = "<---RUN--->\nls\n"
	)
	if err := os.WriteFile(filepath.Join(root, "reply.csl"), []byte(allowed), 0o644); err != nil {
		t.Fatal(err)
	}
	offRoot := newRoot(t)
	if err := os.WriteFile(filepath.Join(offRoot, ".clada", "config.toml"), []byte("sandbox = \"off\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trustRoot(t, offRoot)
	for _, tt := range []struct {
		name  string
		args  []string
		stdin string
		want  bool   // reexec called
		read  string // what the started clada reads from stdin
	}{
		{"allowed", []string{"run", "--root", root}, allowed, true, allowed},
		{"asked", []string{"run", "--root", root, "--no-prompt"}, asked, true, asked},
		{"from a file", []string{"run", "--root", root, filepath.Join(root, "reply.csl")}, "not read", true, "not read"},
		{"from a file and stdin", []string{"run", "--root", root, filepath.Join(root, "reply.csl"), "-"}, denied, true, denied},
		{"all denied", []string{"run", "--root", root}, denied, false, ""},
		{"malformed", []string{"run", "--root", root}, malformed, false, ""},
		{"dry run", []string{"run", "--root", root, "--dry-run"}, allowed, false, ""},
		{"sandbox off", []string{"run", "--root", root, "--sandbox", "off"}, allowed, false, ""},
		{"exec", []string{"exec", "--root", root, "--", "ls"}, "", true, ""},
		{"exec, --sandbox off of the command", []string{"exec", "--root", root, "--", "grep", "-r", "-e", "--sandbox", "off"}, "", true, ""},
		{"exec refused", []string{"exec", "--root", root, "--", "rm", "-rf", "/"}, "", false, ""},
		{"exec --sandbox off", []string{"exec", "--root", root, "--sandbox", "off", "--", "ls"}, "", false, ""},
		{"sandbox = off in config.toml", []string{"run", "--root", offRoot}, allowed, false, ""},
		{"exec, sandbox = off in config.toml", []string{"exec", "--root", offRoot, "--", "ls", "-a"}, "", false, ""},
		{"--sandbox auto over config.toml's off", []string{"run", "--root", offRoot, "--sandbox", "auto"}, allowed, true, allowed},
		{"--sandbox ' off '", []string{"run", "--root", root, "--sandbox", " off "}, allowed, false, ""},
		{"--sandbox nonsense: reported here", []string{"run", "--root", root, "--sandbox", "nonsense"}, allowed, false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			called, read := false, ""
			var stdout, stderr strings.Builder
			inProcess.Lock()
			reexec = func(stdin io.Reader, out, errOut io.Writer) (int, bool) {
				called = true
				if !strings.HasPrefix(tt.args[0], "exec") {
					data, err := io.ReadAll(stdin)
					if err != nil {
						t.Error(err)
					}
					read = string(data)
				}
				return 7, true
			}
			code := run(append([]string{"clada"}, tt.args...), strings.NewReader(tt.stdin), &stdout, &stderr)
			reexec = nil
			inProcess.Unlock()
			if called != tt.want {
				t.Fatalf("clada %q started clada again: %v, want %v; exit %d, stderr:\n%s", tt.args, called, tt.want, code, stderr.String())
			}
			if !called {
				if code == 7 || stdout.Len()+stderr.Len() == 0 {
					t.Errorf("clada %q answered nothing itself: exit %d, stdout %q, stderr %q", tt.args, code, stdout.String(), stderr.String())
				}
				return
			}
			if code != 7 || stdout.Len() != 0 || stderr.Len() != 0 {
				t.Errorf("clada %q: exit %d (want the started clada's 7), stdout %q, stderr %q (want nothing of its own)", tt.args, code, stdout.String(), stderr.String())
			}
			if read != tt.read {
				t.Errorf("clada %q: the started clada read %q from stdin, want %q", tt.args, read, tt.read)
			}
		})
	}
}
