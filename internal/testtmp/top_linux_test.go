package testtmp

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

type flagsM struct {
	t     *testing.T
	flags uint32
	err   error
}

func (m *flagsM) Run() int {
	f, err := os.Open(os.TempDir())
	if err != nil {
		m.t.Fatal(err)
	}
	defer f.Close()
	m.flags, m.err = unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	return 0
}

// On ext2/3/4 the directory the tests run in is marked as the top of a
// hierarchy (chattr +T).
func TestRunMarksTop(t *testing.T) {
	var st unix.Statfs_t
	if err := unix.Statfs(os.TempDir(), &st); err != nil {
		t.Fatal(err)
	}
	if st.Type != unix.EXT4_SUPER_MAGIC {
		t.Skipf("%s is not on ext2/3/4 (file system magic %#x): nothing to mark", os.TempDir(), st.Type)
	}
	m := &flagsM{t: t}
	Run(m)
	if m.err != nil {
		t.Fatalf("reading the flags of the tests' TMPDIR: %v", m.err)
	}
	if m.flags&fsTopdirFL == 0 {
		t.Errorf("the tests' TMPDIR has flags %#x, without FS_TOPDIR_FL", m.flags)
	}
}
