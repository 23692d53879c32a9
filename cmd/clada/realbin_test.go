package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// releaseBin is a directory holding clada built as the README's Install
// builds it (static, -tags urfave_cli_no_docs; with -race when these tests
// are), for the scripts: each script starts clada dozens of times, and
// this test binary, which links the tests and testscript too, took ~1.5 ms
// more CPU to start each time than clada itself. "" when it cannot be
// built here (no go on PATH): the scripts then start this test binary as
// clada, which runs the same main.
//
// The directory is a temporary one, removed when the tests end
// (removingReleaseBin): a build kept in the user's cache directory saved
// the link (~1 s of CPU) on a rerun, but nothing ever removed it, one per
// checkout and build mode. go's build cache still holds the compiled
// packages, so only the link is done again.
var releaseBin = sync.OnceValues(func() (string, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	dir, err := binDir()
	if err != nil {
		return "", err
	}
	args := []string{"build", "-tags", "urfave_cli_no_docs", "-o", filepath.Join(dir, exeName)}
	env := os.Environ()
	if raceBuild {
		args = append(args, "-race")
	} else {
		env = append(env, "CGO_ENABLED=0")
	}
	cmd := exec.Command(gobin, append(args, ".")...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		if builtDir != "" {
			os.RemoveAll(builtDir)
		}
		return "", &buildError{err: err, out: string(out)}
	}
	return dir, nil
})

// binDir makes the temporary directory releaseBin builds in and sets
// builtDir to it, for removingReleaseBin to remove.
func binDir() (string, error) {
	dir, err := os.MkdirTemp("", "clada-bin-")
	if err != nil {
		return "", err
	}
	builtDir = dir
	return dir, nil
}

// exeName is clada's file name here.
var exeName = map[bool]string{false: "clada", true: "clada.exe"}[runtime.GOOS == "windows"]

// builtDir is the temporary directory binDir made, "" until it made one.
var builtDir string

// removingReleaseBin runs the tests, then removes a temporary release
// build.
type removingReleaseBin struct{ m *testing.M }

func (r removingReleaseBin) Run() int {
	code := r.m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	return code
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + e.out }

// cladaExe is the clada that tests start as a process: the release build
// when there is one, else this test binary, which TestMain runs as clada
// when it is started under that name.
func cladaExe(t testing.TB) string {
	t.Helper()
	if dir, err := releaseBin(); err == nil {
		return filepath.Join(dir, exeName)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// scriptBin returns the directory to put first on the scripts' PATH so
// that `exec clada` starts the release build, or "" to leave the test
// binary as clada. TestMain removes the directory when the tests end.
func scriptBin(t *testing.T) string {
	dir, err := releaseBin()
	if err != nil {
		t.Logf("the scripts start the test binary as clada: %v", err)
		return ""
	}
	return dir
}

// TestReleaseBinIsTemporary: the release build the scripts use lives in
// a temporary directory that removingReleaseBin removes, never in the
// user's cache directory, where nothing would remove it.
func TestReleaseBinIsTemporary(t *testing.T) {
	dir, err := releaseBin()
	if err != nil {
		t.Skipf("no release build here: %v", err)
	}
	if dir != builtDir {
		t.Errorf("release build in %s, but the directory removed at the end is %q", dir, builtDir)
	}
	if rel, err := filepath.Rel(os.TempDir(), dir); err != nil || rel == ".." || filepath.IsAbs(rel) || len(rel) > 1 && rel[:2] == ".." {
		t.Errorf("release build in %s, not under %s", dir, os.TempDir())
	}
	if cache, err := os.UserCacheDir(); err == nil {
		if rel, err := filepath.Rel(cache, dir); err == nil && !filepath.IsAbs(rel) && (len(rel) < 2 || rel[:2] != "..") {
			t.Errorf("release build in the user's cache directory %s", dir)
		}
	}
}
