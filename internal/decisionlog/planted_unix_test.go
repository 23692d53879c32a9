//go:build unix

package decisionlog

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPlanted: a link or a special file planted where the log goes is
// never written through, and what it points to is untouched.
func TestPlanted(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(outside, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		plant func(root string) error
	}{
		{"file is a symlink", func(root string) error {
			os.Mkdir(filepath.Join(root, ".clada", "log"), 0o700)
			return os.Symlink(outside, filepath.Join(root, ".clada", "log", File))
		}},
		{"log dir is a symlink", func(root string) error {
			return os.Symlink(filepath.Dir(outside), filepath.Join(root, ".clada", "log"))
		}},
		{"file is a hard link", func(root string) error {
			os.Mkdir(filepath.Join(root, ".clada", "log"), 0o700)
			return os.Link(outside, filepath.Join(root, ".clada", "log", File))
		}},
		{"file is a FIFO", func(root string) error {
			os.Mkdir(filepath.Join(root, ".clada", "log"), 0o700)
			return syscall.Mkfifo(filepath.Join(root, ".clada", "log", File), 0o600)
		}},
		{".clada is a symlink", func(root string) error {
			os.Remove(filepath.Join(root, ".clada"))
			os.Mkdir(filepath.Join(filepath.Dir(outside), "log"), 0o700)
			return os.Symlink(filepath.Dir(outside), filepath.Join(root, ".clada"))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := project(t)
			if err := c.plant(root); err != nil {
				t.Fatal(err)
			}
			err := New(root).Append(Entry{Entry: EntryRun, Command: "planted"})
			if err == nil {
				t.Error("Append wrote through a planted file")
			}
			if data, _ := os.ReadFile(outside); string(data) != "keep\n" {
				t.Errorf("the file outside now holds %q", data)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(outside), File)); err == nil {
				t.Error("a log was made outside the project")
			}
		})
	}
}
