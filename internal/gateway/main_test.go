package gateway

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/clada/clada/internal/teststate"
	"github.com/clada/clada/internal/testtmp"
)

// TestMain runs the tests in a TMPDIR of their own, where ext4 creates
// their files fast (see internal/testtmp).
func TestMain(m *testing.M) {
	// The slow tests here wait on processes and timers, not the CPU: with
	// GOMAXPROCS parallel slots (2 here) they queued behind each other.
	// -parallel on the command line still wins.
	flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	os.Exit(testtmp.Run(teststate.M(m)))
}
