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
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/clada/clada/internal/sandbox"
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
	if name, ok := strings.CutPrefix(cond, "shell:"); ok {
		// [shell:fish]: fish is installed, or CI is set, where .ci/run
		// installs it and a script that needs it must fail, not skip.
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
