package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// leftovers returns the temporary files Write left in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWrite(t *testing.T) {
	t.Parallel()
	for _, sync := range []bool{false, true} {
		dir := t.TempDir()
		p := filepath.Join(dir, "f.toml")
		if err := Write(p, []byte("one"), Options{Perm: 0o600, Sync: sync}); err != nil {
			t.Fatal(err)
		}
		if err := Write(p, []byte("two"), Options{Perm: 0o640, Sync: sync}); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != "two" {
			t.Errorf("sync=%v: content %q, %v; want two", sync, got, err)
		}
		if fi, err := os.Stat(p); err != nil {
			t.Fatal(err)
		} else if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
			t.Errorf("sync=%v: mode %v, want 0640 (the umask has no say)", sync, fi.Mode().Perm())
		}
		if l := leftovers(t, dir); len(l) != 0 {
			t.Errorf("sync=%v: temporary files left: %q", sync, l)
		}
	}
}

// TestWriteLink: a symbolic link at path is replaced, not written
// through; the file it pointed to keeps its content.
func TestWriteLink(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need a privilege on Windows")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("new"), Options{Perm: 0o644}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink != 0 {
		t.Errorf("link is still a link (%v, %v)", fi.Mode(), err)
	}
	if got, _ := os.ReadFile(target); string(got) != "kept" {
		t.Errorf("the link's target was written: %q", got)
	}
}

// TestWriteFails: a directory at path, or a directory that does not
// exist, fails; nothing is left behind and a directory is untouched.
func TestWriteFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	err := Write(sub, []byte("x"), Options{Perm: 0o644, Sync: true})
	if !errors.Is(err, syscall.EISDIR) {
		t.Errorf("Write over a directory = %v, want EISDIR", err)
	}
	if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
		t.Errorf("the directory was replaced: %v", err)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("temporary files left: %q", l)
	}
	if err := Write(filepath.Join(dir, "none", "f"), []byte("x"), Options{Perm: 0o644}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Write into a missing directory = %v, want not exist", err)
	}
}

func TestPerm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if got := Perm(p, 0o644); got != 0o644 {
		t.Errorf("Perm of a missing file = %v, want the default 0644", got)
	}
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := Perm(p, 0o644); runtime.GOOS != "windows" && got != 0o600 {
		t.Errorf("Perm = %v, want 0600", got)
	}
}
