package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/sandbox"
	"github.com/clada/clada/internal/teststate"
	"github.com/clada/clada/internal/testtmp"
)

var update = flag.Bool("update", false, "rewrite golden files and scripts")

func TestMain(m *testing.M) {
	// Most tests here wait on the processes they start (clada, git, a
	// command sleeping into its 1 s timeout), so GOMAXPROCS slots leave the
	// CPUs idle: on 2 CPUs the package took 17 s with 2 slots and 10-12 s
	// with 8, the same work. -parallel on the command line still wins:
	// testing parses it after this default is set.
	flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	// The [userns] condition starts this binary as clada's namespace
	// probe, which must answer and exit rather than run the tests.
	sandbox.Main()
	// The tests and the scripts make their files in a TMPDIR of their
	// own, where ext4 creates them fast (see internal/testtmp).
	testscript.Main(testtmp.M(teststate.M(removingReleaseBin{m})), map[string]func(){
		"clada": main,
		// clada-mcp stands in for the MCP server that clada mcp
		// starts (cmd/clada-mcp, tested there): it prints the
		// arguments it was given, one per line, and serves nothing.
		// Linking the server and its SDK here would cost every clada a
		// script starts ~1 ms.
		"clada-mcp": func() {
			fmt.Println("clada-mcp started as", os.Args[0])
			for _, a := range os.Args[1:] {
				fmt.Println(a)
			}
		},
		// clada-fastclock is clada whose approval timeout runs on a clock
		// 100 times faster than the real one: the prompt and the report
		// still say "10s", and the wait takes 0.1 s. It prints each timer
		// it starts on stderr.
		"clada-fastclock": func() {
			testOnlyClock = fastClock{start: time.Now(), scale: fastClockScale}
			os.Args[0] = "clada"
			os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
		},
		// argv prints its arguments one per line, so scripts can see
		// exactly what arrived after clada ran a command.
		"argv": func() {
			for _, a := range os.Args[1:] {
				fmt.Println(a)
			}
		},
		// tmpfill writes 100 files into $TMPDIR, as sort does when it
		// spills, says where, and sleeps until it is killed.
		"tmpfill": func() {
			dir := os.Getenv("TMPDIR")
			for i := range 100 {
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("spill%03d", i)), []byte("x"), 0o600)
			}
			fmt.Println("filled", dir)
			time.Sleep(time.Hour)
		},
	})
}

// fastClockScale is how much faster than real time clada-fastclock's
// approval clock runs.
const fastClockScale = 100

// fastClock is an approve.Clock on which time passes scale times faster
// than on the real clock.
type fastClock struct {
	start time.Time
	scale time.Duration
}

func (c fastClock) Now() time.Time { return c.start.Add(time.Since(c.start) * c.scale) }

// NewTimer says on stderr how long a timer clada asked for, so a test can
// see what clada waited for without measuring real time.
func (c fastClock) NewTimer(d time.Duration) *time.Timer {
	fmt.Fprintf(os.Stderr, "clada-fastclock: timer %s\n", d)
	return time.NewTimer(d / c.scale)
}

// TestScripts runs the end-to-end scripts in testdata/script against the
// real binary. Each script starts in its own project root with .clada/.
func TestScripts(t *testing.T) {
	t.Parallel()
	python := interpreterDir(t, "python3")
	bin := scriptBin(t)
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", "/no-home")
			env.Setenv("CI", "")
			// Under -race every test-binary process that exits 0 sleeps
			// 1 s by default; scripts start dozens of them.
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			// The person's user id, as agents name their per-user
			// directories (claude-UID).
			env.Setenv("UID", strconv.Itoa(os.Getuid()))
			// The build cache of the go running the tests, warm: a script
			// that builds Go under the sandbox compiles only its own
			// package, not the runtime (9 s with an empty cache).
			env.Setenv("TEST_GOCACHE", testGoCache())
			if python != "" {
				env.Setenv("PATH", python+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
			if bin != "" {
				env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
			if err := os.MkdirAll(filepath.Join(env.WorkDir, ".clada"), 0o755); err != nil {
				return err
			}
			// The script's files stand for what the person wrote:
			// its .clada files are trusted, as after clada trust. A
			// file the script writes later is not, until the script
			// runs clada trust (trust_*.txtar test that).
			env.Setenv("CLADA_STATE_DIR", os.Getenv("CLADA_STATE_DIR"))
			return approve.TrustCurrent(env.WorkDir)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jsonlines":   cmdJSONLines,
			"maxbytes":    cmdMaxBytes,
			"hasprefix":   cmdHasPrefix,
			"listen":      cmdListen,
			"listenlater": cmdListenLater,
			"goproxy":     cmdGoProxy,
		},
		Condition: sandboxCondition,
	})
}

// TestReadmeExampleInSync keeps the script that checks the README's example
// reply on the same text as testdata/examples/reply.csl.
func TestReadmeExampleInSync(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "script", "dry_readme_example.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "reply.csl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "reply.csl" {
			if string(f.Data) != string(want) {
				t.Error("testdata/script/dry_readme_example.txtar's reply.csl differs from testdata/examples/reply.csl")
			}
			return
		}
	}
	t.Error("dry_readme_example.txtar has no reply.csl")
}

// TestReadmeFirstCommand: the README's first command, run where the README
// runs it (the repository's root, whose .clada/ holds the approvals for
// developing clada), decides every block of the example as clada's defaults
// do in a project of its own, and exits 1. Approvals added to the
// repository's .clada/ must not change what the README promises.
func TestReadmeFirstCommand(t *testing.T) {
	t.Parallel()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, ".clada", "commands.toml")); err != nil {
		t.Fatalf("the repository has no .clada/commands.toml for developing clada: %v", err)
	}
	example := filepath.Join("testdata", "examples", "reply.csl")
	got := readmeDecisions(t, repo, example)

	fresh := newRoot(t)
	data, err := os.ReadFile(filepath.Join(repo, example))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(fresh, "testdata", "examples"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fresh, example), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(fresh, "parser"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := readmeDecisions(t, fresh, example)
	if got != want {
		t.Errorf("from the repository's root the example decides\n%s\nbut on the defaults\n%s", got, want)
	}
	if !strings.Contains("\n"+want, "\nask ") || !strings.Contains(want, "deny shell-syntax") {
		t.Errorf("the example no longer shows an ask and a deny:\n%s", want)
	}
}

// readmeDecisions runs clada run --dry-run --format json on file in dir
// and returns one "DECISION RULE" line per block; the exit status must be 1.
func readmeDecisions(t *testing.T, dir, file string) string {
	t.Helper()
	cmd := cladaCmd(t, dir, "run", "--dry-run", "--format", "json", file)
	out, err := cmd.Output()
	if code := exitCodeOf(t, err); code != 1 {
		t.Fatalf("in %s: clada run --dry-run %s exited %d, want 1", dir, file, code)
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var block struct{ Type, Decision, Rule string }
		if err := json.Unmarshal([]byte(line), &block); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if block.Type == "block" {
			fmt.Fprintf(&b, "%s %s\n", block.Decision, block.Rule)
		}
	}
	return b.String()
}

// TestNoShellInterpreter fails if the clada binary links mvdan.cc/sh's
// interpreter or expander: clada must contain no shell.
func TestNoShellInterpreter(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps gave too few packages to be real: %q", deps)
	}
	var sawSyntax bool
	for _, d := range deps {
		switch d {
		case "mvdan.cc/sh/v3/interp", "mvdan.cc/sh/v3/expand":
			t.Errorf("cmd/clada links %s: the binary must contain no shell", d)
		case "mvdan.cc/sh/v3/syntax":
			sawSyntax = true
		}
	}
	if !sawSyntax {
		t.Error("cmd/clada does not link mvdan.cc/sh/v3/syntax; the dependency list is not what it seems")
	}
}

// inProcess serialises the tests that run clada in the test process:
// urfave/cli's help flag is one package-level *BoolFlag that every App
// applies to its flag sets, so two Apps parsing at once race on it (clada
// itself runs one App per process).
var inProcess sync.Mutex

// runInProcess is run, one call at a time.
func runInProcess(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	inProcess.Lock()
	defer inProcess.Unlock()
	return run(args, stdin, stdout, stderr)
}

// interpreterDir returns a directory holding only name, a link to the
// first program of that name on PATH that is not a script, when a
// script comes first: a version manager's shim (pyenv, asdf) is a shell
// script that starts a dozen processes before the interpreter, which
// made the scripts running python3 under the sandbox the slowest of the
// package. It returns "" when PATH already finds a program first, or
// finds none.
func interpreterDir(t *testing.T, name string) string {
	shimmed := false
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		path := filepath.Join(dir, name)
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
			continue
		}
		if isScript(path) {
			shimmed = true
			continue
		}
		if !shimmed {
			return ""
		}
		bin := t.TempDir()
		if err := os.Symlink(path, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
		return bin
	}
	return ""
}

// isScript reports whether the file at path starts with #!.
func isScript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := io.ReadFull(f, head)
	return n == 2 && string(head) == "#!"
}

// testGoCache is `go env GOCACHE` of the go on PATH, or "" without one.
var testGoCache = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})
