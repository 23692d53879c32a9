package testproc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clada/clada/internal/sandbox"
)

// WaitGone fails the test unless the process whose pid is in pidFile is
// gone within 5 s; it kills a survivor so no test leaves one behind.
// after says what should have ended it.
func WaitGone(t testing.TB, pidFile, after string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the command did not start its grandchild: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); Alive(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("grandchild %d still runs after %s", pid, after)
		}
	}
}

// Alive reports whether pid is a running (not zombie) process.
func Alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// SandboxPhrase is how a report says a command ran confined on this
// machine.
func SandboxPhrase(t testing.TB) string {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	return sb.Phrase(sandbox.Command{})
}
