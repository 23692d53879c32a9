package hook

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/rules"
)

// TestScratchDirs: under clada hook claude-code, a read of Claude Code's
// background-task output (in its per-user temporary directory) is allowed
// and the rewrite carries --agent, so that clada exec grants it again; a
// credential store reached from there stays refused; another agent, or
// no agent, asks as for any read outside; a directory another user owns
// grants nothing.
func TestScratchDirs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix paths")
	}
	top := t.TempDir()
	tmp := filepath.Join(top, "tmp")
	home := filepath.Join(top, "home")
	root := filepath.Join(top, "proj")
	tasks := filepath.Join(tmp, "claude-"+strconv.Itoa(os.Getuid()), "-proj", "session", "tasks")
	for _, d := range []string{tasks, filepath.Join(home, ".ssh"), filepath.Join(root, ".git")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(tasks, "b1x9.output")
	if err := os.WriteFile(out, []byte("PASS\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(tasks, "key.output")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAUDE_CODE_TMPDIR", tmp)
	t.Setenv("HOME", home)

	dirs := ScratchDirs("claude-code")
	if len(dirs) == 0 || dirs[0].Write {
		t.Fatalf("ScratchDirs(claude-code) = %+v, want the per-user directory, read-only", dirs)
	}
	if d := ScratchDirs("cursor"); len(d) != 0 {
		t.Errorf("ScratchDirs(cursor) = %+v, want none", d)
	}

	a := Decide(Request{Command: "tail -5 " + out, Dir: root, Root: root, Agent: "claude-code"})
	if a.Decision != gateway.Allow || a.Scratch != "claude-code" {
		t.Fatalf("claude-code reading its task output: %s (%s), scratch %q; want allow", a.Decision, a.Reason, a.Scratch)
	}
	line := a.Rewrite("/usr/local/bin/clada")
	if !strings.Contains(line, " --agent claude-code ") {
		t.Errorf("rewrite %q does not pass --agent", line)
	}
	x, err := gateway.ParseExec(strings.Fields(line)[2:])
	if err != nil || x.Agent != "claude-code" {
		t.Errorf("ParseExec(%q) = %+v, %v", line, x, err)
	}

	for _, tt := range []struct{ agent, cmd string }{
		{"gemini", "tail -5 " + out},
		{"", "tail -5 " + out},
	} {
		a := Decide(Request{Command: tt.cmd, Dir: root, Root: root, Agent: tt.agent})
		if a.Decision != gateway.Ask || a.Result == nil || a.Result.Rule != rules.ReadOutside || a.Scratch != "" {
			t.Errorf("agent %q: %s: %s (%s), want ask (read-outside)", tt.agent, tt.cmd, a.Decision, a.Reason)
		}
	}
	a = Decide(Request{Command: "cat " + filepath.Join(tasks, "key.output"), Dir: root, Root: root, Agent: "claude-code"})
	if a.Decision != gateway.Deny || !strings.Contains(a.Reason, "credential store") {
		t.Errorf("a link from the scratch directory to a key: %s (%s), want deny", a.Decision, a.Reason)
	}

	// A directory that is not the person's grants nothing (root can
	// give one away to test it).
	if os.Getuid() == 0 {
		if err := os.Chown(filepath.Join(tmp, "claude-0"), 12345, 12345); err != nil {
			t.Fatal(err)
		}
		if d := scratchDirs("claude-code", []string{tmp}); len(d) != 0 {
			t.Errorf("another user's claude-0 is granted: %+v", d)
		}
	}
}

// TestExecAgentFlag: clada exec --agent grants what the hook granted,
// and a model that writes clada exec --agent itself gains nothing: the
// gateway judges the command it runs without the grant.
func TestExecAgentFlag(t *testing.T) {
	if _, err := exec.LookPath("tail"); err != nil || runtime.GOOS == "windows" {
		t.Skip("needs tail on Unix")
	}
	top := t.TempDir()
	tmp := filepath.Join(top, "tmp")
	root := filepath.Join(top, "proj")
	tasks := filepath.Join(tmp, "claude-"+strconv.Itoa(os.Getuid()), "tasks")
	for _, d := range []string{tasks, filepath.Join(root, ".git")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(tasks, "x.output")
	if err := os.WriteFile(out, []byte("PASS\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAUDE_CODE_TMPDIR", tmp)
	a := Decide(Request{Command: "clada exec --agent claude-code -- cat " + out, Dir: root, Root: root})
	if a.Decision == gateway.Allow {
		t.Errorf("a model's own clada exec --agent is allowed: %s", a.Reason)
	}
}
