// Package testtmp gives the tests of a package, from their TestMain, a
// temporary directory of their own whose files the kernel creates fast.
//
// The reason is a file system, not the tests: on ext4 without a journal
// (the root file system of the machine the suite is timed on), creating a
// file passes over every inode of its block group freed in the last one
// to five minutes (find_inode_bit and recently_deleted in the kernel),
// and everything under /tmp lands in /tmp's block group, where every test
// run before (this one's, other projects') freed thousands: perf put 19 to
// 27% of the CPU of `go test ./...` in __ext4_new_inode, and 2% after
// this package. A directory marked as the top of
// a hierarchy (chattr +T) makes ext4 place each directory made in it in a
// block group with few directories, where creating files is cheap.
//
// Nothing else changes: the directory is under the usual temporary
// directory, and t.TempDir, os.MkdirTemp and the programs the tests start
// find it through TMPDIR. It is used by the packages whose tests create
// thousands of files; the sandbox package, whose tests are about /tmp,
// keeps its own.
//
// The package has no tests of its own on purpose: every package with
// tests is one more test binary that `go test ./...` links (0.15-0.5 s
// each); the tests of the packages using it run through it.
package testtmp

import "os"

// TestingM is what Run needs of a *testing.M.
type TestingM interface{ Run() int }

// Run runs the tests of m, on Linux with TMPDIR naming a new directory
// under the temporary directory, marked as the top of a hierarchy where
// the file system allows it; removes the directory; and returns m's exit
// code. Elsewhere it only runs m.
func Run(m TestingM) int {
	if !useOwnDir {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "clada-test-")
	if err != nil {
		return m.Run()
	}
	defer os.RemoveAll(dir)
	markTop(dir)
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	defer func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
	}()
	return m.Run()
}

// M is m, whose Run is this package's Run: for a TestMain that hands m
// to another runner (testscript.Main).
func M(m TestingM) TestingM { return wrapped{m} }

type wrapped struct{ m TestingM }

func (w wrapped) Run() int { return Run(w.m) }
