package approve

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/clada/clada/internal/teststate"
	"github.com/clada/clada/internal/testtmp"
)

// childEnv selects a child mode: the test binary re-executes itself to
// be a separate process (concurrent writers, a process with or without a
// controlling terminal).
const childEnv = "APPROVE_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		// The slow tests here wait on processes and timers, not the CPU: with
		// GOMAXPROCS parallel slots (2 here) they queued behind each other.
		// -parallel on the command line still wins.
		flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
		// The tests run in a TMPDIR of their own, where ext4 creates
		// their files fast (see internal/testtmp).
		os.Exit(testtmp.Run(teststate.M(m)))
	case "add":
		if _, err := Add(os.Getenv("APPROVE_ROOT"), ListAllowed, os.Getenv("APPROVE_PATTERN"), fakeParse); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "ask":
		os.Exit(childAsk())
	default:
		fmt.Fprintln(os.Stderr, "unknown child mode")
		os.Exit(2)
	}
}

// childAsk opens the terminal, asks one question and writes the outcome
// to fd 3.
func childAsk() int {
	result := os.NewFile(3, "result")
	if result == nil {
		return 2
	}
	in, out, err := OpenTTY()
	if err != nil {
		fmt.Fprintf(result, "open: noTTY=%v\n", errors.Is(err, ErrNoTTY))
		return 0
	}
	p := NewPrompter(in, out)
	if os.Getenv("APPROVE_TYPEAHEAD") != "" {
		fmt.Fprintf(out, "ready\n")
		waitTypedAhead(in)
	}
	ms, _ := strconv.Atoi(os.Getenv("APPROVE_TIMEOUT_MS"))
	a, why, err := p.Ask(context.Background(), Question{Command: "npm test", Dir: "sub/", Why: "not in clada's specs"}, time.Duration(ms)*time.Millisecond)
	fmt.Fprintf(result, "answer=%s reason=%q err=%v\n", a, why, err)
	return 0
}

// childCommand returns a command running the test binary in mode.
func childCommand(t *testing.T, mode string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls cond for up to 10 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
	}
}
