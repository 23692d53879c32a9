package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// innerEnv marks the test binary started in namespaces by TestNamespace,
// where TestNamespaceInner does the checking.
const innerEnv = "CLADA_SANDBOX_TEST_INNER"

// TestNamespace runs TestNamespaceInner in this test binary started
// again as RunInNamespace starts clada: inside, commands get read-only
// .git and .clada mounts and may create and delete at the top of the root.
func TestNamespace(t *testing.T) {
	if os.Getenv(innerEnv) != "" {
		t.Skip("the outer half of TestNamespace")
	}
	if _, err := landlockABI(); err != nil {
		t.Skip(err)
	}
	var out bytes.Buffer
	env := append(os.Environ(), innerEnv+"=1", "GORACE=atexit_sleep_ms=0")
	code, started := runInNamespace([]string{"-test.run=^TestNamespaceInner$", "-test.v"}, env, nil, &out, &out)
	if !started {
		t.Skipf("no user namespaces here: %s", ns.reason)
	}
	if code != 0 || !strings.Contains(out.String(), "--- PASS: TestNamespaceInner") {
		t.Fatalf("inside the namespace (exit %d):\n%s", code, out.String())
	}
}

func TestNamespaceInner(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("run by TestNamespace inside namespaces")
	}
	if !ns.inside {
		t.Fatalf("Main did not set up the namespace: %s", ns.reason)
	}
	f := newFixture(t, ModeAuto)
	if !f.sb.Support().Namespaces {
		t.Fatalf("Support.Namespaces is false: %s", f.sb.Support().NamespaceReason)
	}
	repo := Command{TmpDir: f.tmp, Repository: true}
	tests := []struct {
		name   string
		c      Command
		action []string
		want   bool
	}{
		{"create at the top", Command{}, []string{"write", "new-top.txt"}, true},
		{"make a directory at the top", Command{}, []string{"mkdir", "newdir"}, true},
		{"delete at the top", Command{}, []string{"remove", "top.txt"}, true},
		{"write a git hook", Command{}, []string{"write", ".git/hooks/pre-commit"}, false},
		{"change .git/config", Command{}, []string{"append", ".git/config"}, false},
		{"write .clada", Command{}, []string{"write", ".clada/specs.toml"}, false},
		{"rename .git away", Command{}, []string{"rename", ".git", "git-old"}, false},
		{"remove .clada's file", Command{}, []string{"remove", ".clada/config.toml"}, false},
		{"unmount .git", Command{}, []string{"umount", ".git"}, false},
		{"write outside the root", Command{}, []string{"write", "../outside/x"}, false},
		{"hard link a file from outside into the root", Command{}, []string{"link", "../outside/keep.txt", "keep-link"}, false},
		{"hard link from outside, repository granted", repo, []string{"link", "../outside/keep.txt", "src/keep-link"}, false},
		{"hard link inside the root", Command{}, []string{"link", "src/sub/c.txt", "c-link"}, true},
		{"read ~/.ssh", Command{}, []string{"read", "../home/.ssh/id_ed25519"}, false},
		{"repository: write in .git", repo, []string{"write", ".git/index"}, true},
		{"repository: write a git hook", repo, []string{"write", ".git/hooks/post-checkout"}, false},
		{"repository: change .git/config", repo, []string{"append", ".git/config"}, false},
		{"repository: replace .git/config", repo, []string{"rename", ".git/index", ".git/config"}, false},
		{"repository: write .clada", repo, []string{"write", ".clada/specs.toml"}, false},
	}
	for _, tt := range tests {
		c := tt.c
		if c.TmpDir == "" {
			c.TmpDir = f.tmp
		}
		o, out, ok := f.run(t, c, tt.action...)
		if !o.Namespace || !strings.Contains(o.Text, "+ mount namespace") {
			t.Errorf("%s: outcome %+v", tt.name, o)
		}
		if ok != tt.want {
			t.Errorf("%s: %v succeeded = %v, want %v; it printed %q", tt.name, tt.action, ok, tt.want, out)
		}
		if !ok && !refusal(out) {
			t.Errorf("%s: %v failed for another reason than a refusal: %q", tt.name, tt.action, out)
		}
	}
	// clada itself still writes .clada (approvals, saved output).
	if err := os.WriteFile(filepath.Join(f.root, ".clada", "commands.toml"), nil, 0o644); err != nil {
		t.Errorf("clada cannot write .clada in its namespace: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(f.root, ".git", "config")); string(got) != "[core]\n" {
		t.Errorf(".git/config = %q", got)
	}
}
