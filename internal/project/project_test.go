package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/gateway"
)

func mkdirs(t *testing.T, root string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFindRoot(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	mkdirs(t, top, "repo/.git", "repo/app/.clada", "repo/app/src/deep", "repo/lib/x", "plain/sub", "wt/sub", "cladafile/sub",
		"proj/.git", "proj/.clada", "proj/sub/.clada", "proj/sub/deep", "proj/link/x", "elsewhere/.clada",
		"loose/.clada", "loose/sub/.clada")
	// A command in proj planted sub/.clada (a directory) and link/.clada
	// (a symbolic link to a .clada elsewhere): neither moves the root.
	if err := os.Symlink(filepath.Join(top, "elsewhere", ".clada"), filepath.Join(top, "proj", "link", ".clada")); err != nil {
		t.Fatal(err)
	}
	// A worktree's .git is a file; a .clada that is a file is not a project.
	if err := os.WriteFile(filepath.Join(top, "wt", ".git"), []byte("gitdir: /elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, "cladafile", ".clada"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, wd, want, how string
	}{
		{"clada dir above", "repo/app/src/deep", "repo/app", ".clada/"},
		{"clada dir here", "repo/app", "repo/app", ".clada/"},
		{"clada wins over a git top further up", "repo/app/src", "repo/app", ".clada/"},
		{"git work tree top", "repo/lib/x", "repo", "git"},
		{"gitdir file", "wt/sub", "wt", "git"},
		{"neither", "plain/sub", "plain/sub", "working directory"},
		{".clada file is not a project", "cladafile/sub", "cladafile/sub", "working directory"},
		{"a .clada below the repository's is not a root", "proj/sub/deep", "proj", ".clada/"},
		{"a .clada below the repository's, standing in it", "proj/sub", "proj", ".clada/"},
		{"a symbolic link named .clada is not a root", "proj/link/x", "proj", ".clada/"},
		{"outside git, the nearest", "loose/sub", "loose/sub", ".clada/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, how := FindRoot(filepath.Join(top, tt.wd))
			if want := filepath.Join(top, tt.want); root != want || how != tt.how {
				t.Errorf("FindRoot(%s) = %s, %q; want %s, %q", tt.wd, root, how, want, tt.how)
			}
		})
	}
}

// From a subdirectory, the root is found above it, the approvals are the
// root's, and a command's paths and dir attribute are relative to where
// the person stands, still confined to the root.
func TestOpenFromSubdirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mkdirs(t, root, ".clada", "sub/inner")
	for _, f := range []string{"sub/a.txt", "top.txt"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := approve.Add(root, approve.ListAllowed, "true", gateway.ParsePattern); err != nil {
		t.Fatal(err)
	}
	p, err := Open(Options{WorkDir: filepath.Join(root, "sub")})
	if err != nil {
		t.Fatal(err)
	}
	if p.Root != root || p.Base != "sub" || p.Discovered != ".clada/" {
		t.Fatalf("Open from sub = root %s base %q (%s); want %s, sub", p.Root, p.Base, p.Discovered, root)
	}
	g, err := p.Gateway()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, cmd, dir string
		want           gateway.Decision
		wantDir        string // relative to the root
	}{
		{"path relative to the subdirectory", "cat a.txt", "", gateway.Allow, "sub"},
		{"the root's file by ..", "cat ../top.txt", "", gateway.Allow, "sub"},
		{"dir attribute relative to the subdirectory", "ls", "inner", gateway.Allow, "sub/inner"},
		{"dir attribute .. to the root", "cat top.txt", "..", gateway.Allow, ""},
		{"still confined to the root", "touch ../../x", "", gateway.Deny, ""},
		{"a read outside is asked", "cat ../../x", "", gateway.Ask, ""},
		{"dir attribute outside the root", "ls", "../..", gateway.Deny, ""},
		{"the root's approvals apply", "true", "", gateway.Allow, "sub"},
	}
	for _, tt := range tests {
		r := g.Check(tt.cmd, tt.dir)
		if r.Decision != tt.want {
			t.Errorf("%s: %s (dir %q) = %s (%s: %s); want %s", tt.name, tt.cmd, tt.dir, r.Decision, r.Rule, r.Reason, tt.want)
			continue
		}
		if tt.want == gateway.Allow {
			resolvedRoot, _ := filepath.EvalSymlinks(root)
			if want := filepath.Join(resolvedRoot, tt.wantDir); r.Dir != want {
				t.Errorf("%s: runs in %s, want %s", tt.name, r.Dir, want)
			}
		}
	}
	// --root given: the working directory still sets the base when it is
	// inside; outside it, the base is the root.
	p, err = Open(Options{Root: root, WorkDir: filepath.Join(root, "sub", "inner")})
	if err != nil || p.Base != "sub/inner" || p.Discovered != "--root" {
		t.Errorf("Open --root from sub/inner = %+v, %v", p, err)
	}
	p, err = Open(Options{Root: filepath.Join(root, "sub"), WorkDir: root})
	if err != nil || p.Base != "" {
		t.Errorf("Open --root sub from the root: base %q, %v; want \"\"", p.Base, err)
	}
}

func TestOpenBadRoot(t *testing.T) {
	t.Parallel()
	_, err := Open(Options{Root: filepath.Join(t.TempDir(), "missing")})
	var pe *Error
	if err == nil || !strings.Contains(err.Error(), "is not a directory") || !errors.As(err, &pe) || pe.Hint == "" {
		t.Errorf("Open of a missing root = %v; want an error with a hint", err)
	}
}

// TestRootHoldingOwnDirs: a root that holds clada's state directory (the
// trust record) is refused: a command confined to the root could trust
// files for itself. Not parallel: it sets CLADA_STATE_DIR.
func TestRootHoldingOwnDirs(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".clada"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLADA_STATE_DIR", filepath.Join(root, ".local", "state", "clada"))
	_, err := Open(Options{Root: root})
	if err == nil || !strings.Contains(err.Error(), "clada's own configuration or state") {
		t.Fatalf("Open with the state directory inside the root: %v", err)
	}
}
