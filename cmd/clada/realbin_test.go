package main

import (
	"crypto/sha256"
	"encoding/hex"
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
// The directory is kept between runs, in the user's cache directory, one
// per checkout and build mode (binDir): go build leaves a target whose
// build ID is still current as it is, so a run whose code did not change
// skips the link, ~1 s of CPU (more with -race). Without a cache
// directory it is a temporary one, removed when the tests end.
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

// binDir is where releaseBin builds: <user cache>/clada-test/<hash of this
// package's directory>-<race|plain>, so that two checkouts, or a -race
// run next to a plain one, do not rebuild over each other. Without a user
// cache directory it makes a temporary one and sets builtDir to it.
func binDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err == nil {
		var wd string
		if wd, err = os.Getwd(); err == nil {
			mode := map[bool]string{false: "plain", true: "race"}[raceBuild]
			sum := sha256.Sum256([]byte(wd))
			dir := filepath.Join(cache, "clada-test", hex.EncodeToString(sum[:8])+"-"+mode)
			if err = os.MkdirAll(dir, 0o755); err == nil {
				return dir, nil
			}
		}
	}
	dir, err := os.MkdirTemp("", "clada-bin-")
	if err != nil {
		return "", err
	}
	builtDir = dir
	return dir, nil
}

// exeName is clada's file name here.
var exeName = map[bool]string{false: "clada", true: "clada.exe"}[runtime.GOOS == "windows"]

// builtDir is the temporary directory binDir made, if it made one.
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
