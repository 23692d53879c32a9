package testtmp

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

type fakeM struct {
	t      *testing.T
	tmpdir string
}

func (m *fakeM) Run() int {
	m.tmpdir = os.TempDir()
	if err := os.WriteFile(filepath.Join(m.tmpdir, "f"), []byte("x"), 0o600); err != nil {
		m.t.Error(err)
	}
	return 3
}

// Run runs the tests with os.TempDir a new directory under the old one,
// returns their code, removes the directory and gives TMPDIR back.
func TestRun(t *testing.T) {
	before, had := os.LookupEnv("TMPDIR")
	base := os.TempDir()
	m := &fakeM{t: t}
	if code := M(m).Run(); code != 3 {
		t.Errorf("Run returned %d, want the tests' 3", code)
	}
	after, hasAfter := os.LookupEnv("TMPDIR")
	if after != before || hasAfter != had {
		t.Errorf("TMPDIR after Run = %q (set %v), want %q (set %v)", after, hasAfter, before, had)
	}
	if runtime.GOOS != "linux" {
		if m.tmpdir != base {
			t.Errorf("the tests ran with TMPDIR %s, want it left as %s", m.tmpdir, base)
		}
		return
	}
	if filepath.Dir(m.tmpdir) != filepath.Clean(base) {
		t.Errorf("the tests ran with TMPDIR %s, want a new directory in %s", m.tmpdir, base)
	}
	if _, err := os.Stat(m.tmpdir); !os.IsNotExist(err) {
		t.Errorf("%s is left after Run: %v", m.tmpdir, err)
	}
}
