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
var releaseBin = sync.OnceValues(func() (string, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "clada-bin-")
	if err != nil {
		return "", err
	}
	builtDir = dir
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
		os.RemoveAll(dir)
		return "", &buildError{err: err, out: string(out)}
	}
	return dir, nil
})

// exeName is clada's file name here.
var exeName = map[bool]string{false: "clada", true: "clada.exe"}[runtime.GOOS == "windows"]

// builtDir is the directory releaseBin made, "" before.
var builtDir string

// removingReleaseBin runs the tests, then removes the release build.
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
func cladaExe(t *testing.T) string {
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
