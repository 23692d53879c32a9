package approve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckDir returns an error when root's .clada exists but is not a
// directory of its own: a symbolic link (clada would read configuration
// from, and write its output store and answers to, wherever it points)
// or a file. A missing .clada is no error. Every place that reads or
// writes .clada goes through it (project.Open, the output store,
// commands.toml's writer).
func CheckDir(root string) error {
	p := filepath.Join(root, DirName)
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s: %w", p, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link: clada never reads its configuration or writes its files through one (remove the link and make a directory)", p)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory (move it away; clada makes a new one)", p)
	}
	return nil
}

// EnsureDir makes root's .clada when it does not exist, so that the
// sandbox protects it (read-only inside the command's view, or not
// creatable at the top of the root) before any command runs: a command
// could otherwise create it and plant configuration the next clada would
// read as the person's. It fails as [CheckDir] does for a .clada that is
// not a directory.
func EnsureDir(root string) error {
	if err := CheckDir(root); err != nil {
		return err
	}
	err := os.Mkdir(filepath.Join(root, DirName), 0o755)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("making %s: %w", filepath.Join(root, DirName), err)
	}
	return CheckDir(root) // a link made between the two calls
}
