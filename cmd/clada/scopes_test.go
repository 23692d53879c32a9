package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/internal/approve"
)

// TestScopes: the user scope's patterns work in a fresh project; a managed
// block beats a trusted project allow, and its refusal names the
// administrator; the managed sandbox = "required" and trust_all = false
// cannot be lifted by --sandbox off or --trust-all; personal values win
// over the project's; clada config names each value's file and clada list
// shows patterns by scope. Not parallel: the managed directory and
// XDG_CONFIG_HOME are the process's, and are restored before the
// parallel tests start.
func TestScopes(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("CI", "") // a person's machine (CI would make untrusted files errors)
	userDir := filepath.Join(home, "clada")
	managed := t.TempDir()
	approve.SetManagedDirForTest(managed)
	defer approve.SetManagedDirForTest("")
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clada := func(args ...string) (code int, stdout, stderr string) {
		var out, errb bytes.Buffer
		code = runInProcess(append([]string{"clada"}, args...), strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	write(filepath.Join(userDir, "commands.toml"), "allowed = [\"make lint\"]\n")
	write(filepath.Join(managed, "commands.toml"), "blocked = [\"npm publish *\"]\n")

	// The user's allow works in a fresh project.
	root := newRoot(t)
	if code, out, _ := clada("check", "--root", root, "make lint"); code != exitOK || !strings.Contains(out, filepath.Join(userDir, "commands.toml")) {
		t.Errorf("user allow in a fresh project: exit %d\n%s", code, out)
	}
	// A managed block beats the project's own (trusted) allow.
	write(filepath.Join(root, ".clada", "commands.toml"), "allowed = [\"npm publish --dry-run\"]\n")
	trustRoot(t, root)
	code, out, _ := clada("check", "--root", root, "npm publish --dry-run")
	if code != exitFailed || !strings.Contains(out, "rule blocked-pattern") || !strings.Contains(out, filepath.Join(managed, "commands.toml")) ||
		!strings.Contains(out, "administrator") {
		t.Errorf("managed block vs project allow: exit %d\n%s", code, out)
	}
	// Personal over project over user for values; clada config says where.
	write(filepath.Join(userDir, "config.toml"), "timeout = \"3m\"\nmax_output = \"2MB\"\n")
	write(filepath.Join(root, ".clada", "config.toml"), "timeout = \"2m\"\n")
	write(filepath.Join(root, ".clada", "config.local.toml"), "timeout = \"5m\"\n")
	trustRoot(t, root)
	code, out, stderr := clada("config", "--root", root)
	for _, want := range []string{
		"timeout = \"5m\"\t# " + filepath.Join(root, ".clada", "config.local.toml"),
		"max_output = 2000000\t# " + filepath.Join(userDir, "config.toml"),
		"hard_blocks = true\t# default",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("clada config lacks %q: exit %d\n%s%s", want, code, out, stderr)
		}
	}
	// An untrusted personal file loosens nothing.
	write(filepath.Join(root, ".clada", "config.local.toml"), "timeout = \"9m\"\n")
	if _, out, _ := clada("config", "--root", root); !strings.Contains(out, "timeout = \"120s\"\t# "+filepath.Join(root, ".clada", "config.toml")) ||
		!strings.Contains(out, "config.local.toml is not trusted") {
		t.Errorf("untrusted personal timeout:\n%s", out)
	}
	// clada list shows each scope's patterns.
	if _, out, _ := clada("list", "--root", root); !strings.Contains(out, "managed: "+filepath.Join(managed, "commands.toml")) ||
		!strings.Contains(out, "user: "+filepath.Join(userDir, "commands.toml")) || !strings.Contains(out, "  npm publish *") {
		t.Errorf("clada list by scope:\n%s", out)
	}
	// What the administrator requires nobody lifts.
	trustRoot(t, root)
	write(filepath.Join(managed, "config.toml"), "sandbox = \"required\"\ntrust_all = false\n")
	reply := filepath.Join(root, "reply.csl")
	write(reply, "<---RUN--->\nls\n<---END--->\n")
	if code, _, stderr := clada("run", "--root", root, "--sandbox", "off", reply); code != exitUsage || !strings.Contains(stderr, "managed configuration") {
		t.Errorf("--sandbox off under a managed sandbox = required: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := clada("run", "--root", root, "--trust-all", reply); code != exitUsage || !strings.Contains(stderr, "trust_all = false") {
		t.Errorf("--trust-all under a managed trust_all = false: exit %d\n%s", code, stderr)
	}
	// trust_all is the administrator's only.
	write(filepath.Join(root, ".clada", "config.toml"), "trust_all = true\n")
	if code, _, stderr := clada("check", "--root", root, "ls"); code != exitUsage || !strings.Contains(stderr, "managed configuration") {
		t.Errorf("trust_all in the project's config.toml: exit %d\n%s", code, stderr)
	}
}
