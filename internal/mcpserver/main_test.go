package mcpserver_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/leftover"
	"github.com/clada/clada/internal/mcpserver"
	"github.com/clada/clada/internal/sandbox"
	"github.com/clada/clada/internal/teststate"
	"github.com/clada/clada/internal/testtmp"
)

// TestMain runs this test binary as clada-mcp when it is started under
// that name, as cmd/clada-mcp's main does: the end-to-end tests
// (e2e_*_test.go) start it so, the real server over stdio. Otherwise it
// runs the tests, whose files go to a TMPDIR of their own (see
// internal/testtmp). (The package lives under cmd/clada-mcp also so that
// go test ./... links and starts these tests early, next to cmd/clada's,
// instead of last.)
func TestMain(m *testing.M) {
	// clada-mcp's namespace re-exec starts this binary again under the
	// same name, with the namespace argument that sandbox.Main takes off.
	sandbox.Main()
	// leftoverEnv STEP MARKER [sleep], what the script ./leftover of
	// TestMCPKillTakesDaemon runs: see leftover.Step; then maybe sleep.
	if os.Getenv(leftoverEnv) != "" && len(os.Args) >= 3 {
		code := leftover.Step(os.Args[1], os.Args[2], func(a ...string) *exec.Cmd {
			return exec.Command(testSelf(), a...)
		})
		if code == 0 && len(os.Args) > 3 && os.Args[3] == "sleep" {
			fmt.Println("sleeping")
			time.Sleep(time.Hour)
		}
		os.Exit(code)
	}
	if filepath.Base(os.Args[0]) == "clada-mcp" {
		os.Exit(mcpserver.Main(os.Args, os.Stdin, os.Stdout, os.Stderr, ""))
	}
	// clada-trust ROOT trusts ROOT's .clada files, for the TypeScript
	// client test, which writes them as the person would.
	if filepath.Base(os.Args[0]) == "clada-trust" && len(os.Args) == 2 {
		if err := approve.TrustCurrent(os.Args[1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// The end-to-end tests mostly wait: for a server to start, for a job
	// to go to the background or time out. With GOMAXPROCS slots (2
	// here) they waited in turn; more slots let the waits overlap.
	// -parallel on the command line still wins.
	flag.Set("test.parallel", strconv.Itoa(8*runtime.GOMAXPROCS(0)))
	os.Exit(testtmp.Run(teststate.M(m)))
}

// leftoverEnv, set, makes this test binary a command that leaves a
// daemon (see TestMain).
const leftoverEnv = "CLADA_MCP_TEST_LEFTOVER"

// testSelf is this test binary.
func testSelf() string {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return exe
}
