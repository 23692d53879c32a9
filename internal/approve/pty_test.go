//go:build linux || darwin

package approve

import (
	"bufio"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyChild runs the test binary in "ask" mode with a new session whose
// controlling terminal is a fresh pseudo-terminal (its stdout and
// stderr); its stdin is a pipe holding "y\n", which must never be read as
// an answer. It returns the pty master, the result reader and the child.
func ptyChild(t *testing.T, env ...string) (master *os.File, terminal *syncBuffer, result func() string) {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close() })
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := childCommand(t, "ask", env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, slave, slave
	cmd.ExtraFiles = []*os.File{resW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 1}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	stdinR.Close()
	resW.Close()
	io.WriteString(stdinW, "y\n")
	t.Cleanup(func() { stdinW.Close() })

	terminal = &syncBuffer{}
	go io.Copy(terminal, master) // ends with EIO when the child exits

	resCh := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(resR).ReadString('\n')
		resCh <- strings.TrimSpace(line)
		cmd.Wait()
	}()
	return master, terminal, func() string {
		select {
		case r := <-resCh:
			return r
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("child did not answer; terminal:\n%s", terminal.String())
			return ""
		}
	}
}

func TestPTYAsk(t *testing.T) {
	t.Parallel()
	const hint = "please answer y (yes), n (no), a (always) or v (never)"
	tests := []struct {
		name    string
		answers []string // each typed after the next prompt appears
		want    string
	}{
		{name: "yes", answers: []string{"y\r"}, want: `answer=yes reason="" err=<nil>`},
		{name: "no", answers: []string{"no\r"}, want: `answer=no reason="answered no" err=<nil>`},
		{name: "always", answers: []string{"A\r"}, want: `answer=always reason="" err=<nil>`},
		{name: "never", answers: []string{"never\r"}, want: `answer=never reason="answered no" err=<nil>`},
		{name: "retry", answers: []string{"sure\r", "y\r"}, want: `answer=yes reason="" err=<nil>`},
		{name: "ctrl-d", answers: []string{"\x04"}, want: `answer=no reason="end of input" err=<nil>`},
		{name: "timeout", answers: nil, want: `answer=no reason="timed out" err=<nil>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ms := "20000"
			if tt.answers == nil {
				ms = "300"
			}
			master, term, result := ptyChild(t, "APPROVE_TIMEOUT_MS="+ms)
			for i, a := range tt.answers {
				waitFor(t, func() bool { return strings.Count(term.String(), "[y]es") > i })
				if _, err := io.WriteString(master, a); err != nil {
					t.Fatal(err)
				}
			}
			if got := result(); got != tt.want {
				t.Errorf("result %q, want %q (stdin held y); terminal:\n%s", got, tt.want, term.String())
			}
			// The result comes through a pipe and the terminal through
			// the pty: the question may reach the terminal's reader later
			// than the result on a loaded machine.
			const question = "clada: run `npm test` in sub/ (not in clada's specs)? [y]es, [n]o, [a]lways, ne[v]er ("
			waitFor(t, func() bool { return strings.Contains(term.String(), question) })
			out := term.String()
			if wantHint := len(tt.answers) > 1; strings.Contains(out, hint) != wantHint {
				t.Errorf("hint shown = %v, want %v:\n%s", !wantHint, wantHint, out)
			}
		})
	}
}

// TestPTYTypeAhead: a line typed before the question is shown is thrown
// away, not taken as the answer.
func TestPTYTypeAhead(t *testing.T) {
	t.Parallel()
	master, term, result := ptyChild(t, "APPROVE_TIMEOUT_MS=20000", "APPROVE_TYPEAHEAD=1")
	waitFor(t, func() bool { return strings.Contains(term.String(), "ready") })
	io.WriteString(master, "y\r")
	waitFor(t, func() bool { return strings.Contains(term.String(), "[y]es") })
	io.WriteString(master, "n\r")
	if got, want := result(), `answer=no reason="answered no" err=<nil>`; got != want {
		t.Errorf("result %q, want %q; terminal:\n%s", got, want, term.String())
	}
}

// TestOpenTTYWithoutTerminal: a process in a new session without a
// controlling terminal gets ErrNoTTY, even though it has a stdin.
func TestOpenTTYWithoutTerminal(t *testing.T) {
	t.Parallel()
	resR, resW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer resR.Close()
	cmd := childCommand(t, "ask")
	cmd.Stdin = strings.NewReader("y\n")
	cmd.ExtraFiles = []*os.File{resW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	resW.Close()
	out, _ := io.ReadAll(resR)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	if got, want := strings.TrimSpace(string(out)), "open: noTTY=true"; got != want {
		t.Errorf("child says %q, want %q", got, want)
	}
}
