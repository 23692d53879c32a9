// Package agente2e holds what the end-to-end tests of clada with the real
// agents share (e2e/gemini, e2e/codex): clada built once per test binary,
// the agent installed by npm from the repository's pinned package-lock,
// a project to work in, and a log of what the fake model server received.
//
// The agents come from `npm ci` in e2e/AGENT/testdata/npm (.ci/run does
// it). A test whose agent is missing skips, saying how to install it;
// under CI=true it fails instead, since CI must run it.
package agente2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// Missing skips the test, or fails it under CI=true, because something
// it needs is not installed.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI is set: CI must run this test)", args...)
	}
	t.Skipf(format, args...)
}

// Agent returns the path of an agent's executable as npm installed it in
// dir (testdata/npm of the calling package): node_modules/.bin/NAME, at
// the version package.json pins.
func Agent(t testing.TB, dir, pkg, bin string) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the agent end-to-end tests run on Linux (clada's sandbox and the agents' Linux builds)")
	}
	if race {
		// .ci/run runs go test twice, with and without -race; these
		// tests run in the pass without it. Under -race only this
		// driver would be instrumented (clada is built by go build),
		// for a minute more of CI.
		t.Skip("the agent end-to-end tests run in `go test` without -race: the agents and clada run as their own processes, not instrumented")
	}
	if _, err := exec.LookPath("node"); err != nil {
		Missing(t, "node is not installed: the %s end-to-end tests need node ≥ 20 and `npm ci --prefix %s`", pkg, dir)
	}
	var want, got struct {
		Dependencies map[string]string `json:"dependencies"`
		Version      string            `json:"version"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	data, err = os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json"))
	if err != nil {
		Missing(t, "%s is not installed: run `npm ci --prefix %s`", pkg, dir)
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Version != want.Dependencies[pkg] {
		Missing(t, "%s %s is installed, package.json pins %s: run `npm ci --prefix %s`", pkg, got.Version, want.Dependencies[pkg], dir)
	}
	abs, err := filepath.Abs(filepath.Join(dir, "node_modules", ".bin", bin))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// Clada builds clada and clada-mcp once per test binary and returns the
// directory that holds them.
func Clada(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "clada-e2e-bin-")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", buildDir+string(filepath.Separator),
			"github.com/clada/clada/cmd/clada", "github.com/clada/clada/cmd/clada-mcp")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			buildErr = &buildError{err, out.String()}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildDir
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "building clada: " + e.err.Error() + "\n" + e.out }

// Project makes a git work tree with files (path → content), and returns
// its root with symlinks resolved, as the agents report it.
func Project(t testing.TB, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(root, "project")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(files[name]), mode); err != nil {
			t.Fatal(err)
		}
	}
	Run(t, root, nil, "git", "init", "-q")
	Run(t, root, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "start")
	return root
}

// Run runs a command in dir with env added, and fails the test when it
// fails; it returns stdout.
func Run(t testing.TB, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %q: %v\n%s%s", name, args, err, out.String(), errOut.String())
	}
	return out.String()
}

// Env is the environment an agent runs with: PATH and the system's
// locale from this process, a home of its own, nothing else of the
// person's (no keys, no settings).
func Env(home string, extra ...string) []string {
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1"}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	if ci := os.Getenv("CI"); ci != "" {
		env = append(env, "CI="+ci)
	}
	return append(env, extra...)
}

// Lifetime bounds every agent run: a scripted conversation that has not
// ended by then is killed and the test fails.
// Six minutes: a scripted run takes 10-40 s on an idle machine, but a
// loaded 2-core CI runner (go test runs packages side by side) was seen
// to need more than two; the bound is there to end a hung agent, not to
// time it.
const Lifetime = 6 * time.Minute

// Stats are the median, minimum and maximum of durations.
type Stats struct{ Median, Min, Max time.Duration }

// StatsOf returns the stats of ds (not empty).
func StatsOf(ds []time.Duration) Stats {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Stats{Median: m, Min: s[0], Max: s[len(s)-1]}
}

// Exists fails the test when path, a marker a command was to make, is
// not there.
func Exists(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("%s was not made: %v", path, err)
	}
}

// Absent fails the test when path, a marker a refused command would have
// made, is there: the command ran.
func Absent(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s was made: the command ran", path)
	}
}
