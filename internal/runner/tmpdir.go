package runner

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// tempVars name the temporary directory for programs: TMPDIR on Unix
// (sort, mktemp, Go, Python), TMP and TEMP on Windows. All three are set
// on every system, since some Unix programs read TMP or TEMP too.
var tempVars = []string{"TMPDIR", "TMP", "TEMP"}

// tempDir is the private temporary directory of one command: made before
// it starts, named by tempVars in its environment, and removed with
// everything in it once the command and its group are gone, whether it
// exited, timed out, passed the output cap or was canceled. Without it
// sort -S1K on a large file, killed at its timeout, leaves tens of
// thousands of spill files in the shared /tmp.
type tempDir struct {
	path string
}

// newTempDir makes a private directory (mode 0700) under parent, or under
// os.TempDir() when parent is "".
func newTempDir(parent string) (*tempDir, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	p, err := os.MkdirTemp(parent, "clada-cmd-")
	if err != nil {
		return nil, err
	}
	return &tempDir{path: p}, nil
}

// env returns base with every tempVars entry replaced by one naming the
// directory. Keys are compared without regard to case, as Windows does.
func (t *tempDir) env(base []string) []string {
	out := make([]string, 0, len(base)+len(tempVars))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !isTempVar(k) {
			out = append(out, kv)
		}
	}
	for _, k := range tempVars {
		out = append(out, k+"="+t.path)
	}
	return out
}

func isTempVar(k string) bool {
	for _, v := range tempVars {
		if strings.EqualFold(k, v) {
			return true
		}
	}
	return false
}

// remove deletes the directory and everything in it. A command may have
// left directories without write or search permission (chmod 0), which
// os.RemoveAll cannot empty, so on failure it makes every directory
// accessible and tries again; on Windows a file that a dying process
// still holds open cannot be removed at once, so it retries briefly.
func (t *tempDir) remove() error {
	err := os.RemoveAll(t.path)
	if err == nil {
		return nil
	}
	for try := 0; try < 5; try++ {
		_ = filepath.WalkDir(t.path, func(p string, d fs.DirEntry, err error) error {
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				// Unreadable: make it accessible and let the retry see inside.
				_ = os.Chmod(p, 0o700)
				return nil
			}
			if d != nil && d.IsDir() {
				_ = os.Chmod(p, 0o700)
			}
			return nil
		})
		if err = os.RemoveAll(t.path); err == nil {
			return nil
		}
		if runtime.GOOS != "windows" {
			continue
		}
		time.Sleep(time.Duration(try+1) * 20 * time.Millisecond)
	}
	return err
}
