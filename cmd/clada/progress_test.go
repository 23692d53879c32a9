//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// runWithTTYStderr runs clada run in root with csl on stdin, stdout a
// pipe and stderr a pty; it returns stdout and what reached the terminal.
func runWithTTYStderr(t *testing.T, root, csl string, env ...string) (stdout, tty string) {
	t.Helper()
	ptmx, ttyf, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pty: %v", err)
	}
	defer ptmx.Close()
	cmd := cladaCmd(t, root, "run", "--root", root, "--sandbox", "off")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(csl)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, ttyf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ttyf.Close()
	var term bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&term, ptmx); close(done) }()
	_ = cmd.Wait()
	<-done
	return out.String(), term.String()
}

const progressCSL = "<---RUN--->\necho hello\n<---END--->\n<---RUN--->\nprintf 'a\\033[2Jb\\rc'\n<---END--->\n<---RUN--->\nls no-such-file\n<---END--->\n"

// TestProgressOnTerminal: with stderr a terminal, clada run shows which
// block runs, its output live (control characters made visible) and how
// it ended, with colour on the decisions and outcomes; the report on
// stdout has none of it.
func TestProgressOnTerminal(t *testing.T) {
	root := newRoot(t)
	stdout, tty := runWithTTYStderr(t, root, progressCSL, "TERM=xterm", "NO_COLOR=")
	for _, want := range []string{"[1/3] \x1b[32mallow\x1b[0m echo hello", "hello\r\n", "[1/3] \x1b[32mok\x1b[0m in ",
		`a\x1b[2Jb\x0dc`, "[3/3] \x1b[31mexit 2\x1b[0m in "} {
		if !strings.Contains(tty, want) {
			t.Errorf("terminal lacks %q:\n%s", want, tty)
		}
	}
	if strings.Contains(tty, "a\x1b[2J") {
		t.Errorf("a command's escape sequence reached the terminal raw:\n%q", tty)
	}
	if strings.Contains(stdout, "\x1b") || strings.Contains(stdout, "[1/3]") || strings.Contains(stdout, "still running") {
		t.Errorf("progress reached the report:\n%s", stdout)
	}
	if !strings.Contains(stdout, "hello") || !strings.Contains(stdout, "summary:") {
		t.Errorf("report:\n%s", stdout)
	}
	// The log has the same three blocks.
	if data, err := os.ReadFile(filepath.Join(root, ".clada", "log", "decisions.jsonl")); err != nil || bytes.Count(data, []byte("\n")) != 3 {
		t.Errorf("decision log: %v\n%s", err, data)
	}
}

// TestProgressNoColorDumb: NO_COLOR keeps the progress without colour;
// TERM=dumb shows none.
func TestProgressNoColorDumb(t *testing.T) {
	root := newRoot(t)
	_, tty := runWithTTYStderr(t, root, progressCSL, "TERM=xterm", "NO_COLOR=1")
	if !strings.Contains(tty, "[1/3] allow echo hello") || strings.Contains(tty, "\x1b[3") {
		t.Errorf("NO_COLOR: terminal shows\n%q", tty)
	}
	_, tty = runWithTTYStderr(t, root, progressCSL, "TERM=dumb")
	if strings.Contains(tty, "[1/3]") || strings.Contains(tty, "hello") {
		t.Errorf("TERM=dumb: terminal shows\n%q", tty)
	}
}

// TestProgressNotOnPipe: with stderr a pipe there is no progress at all.
func TestProgressNotOnPipe(t *testing.T) {
	root := newRoot(t)
	cmd := cladaCmd(t, root, "run", "--root", root, "--sandbox", "off")
	cmd.Env = append(cmd.Env, "TERM=xterm")
	cmd.Stdin = strings.NewReader(progressCSL)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	if strings.Contains(errb.String(), "[1/3]") || strings.Contains(out.String(), "[1/3]") {
		t.Errorf("progress without a terminal:\nstdout %s\nstderr %s", out.String(), errb.String())
	}
}

func TestLiveText(t *testing.T) {
	for in, want := range map[string]string{
		"plain\n\ttab": "plain\n\ttab", "\x1b[31mred": `\x1b[31mred`, "a\rb": `a\x0db`,
		"\u202eevil": `\u202eevil`, "\xff": `\xff`, "é": "é", "\u0085": `\x85`,
	} {
		if got := liveText(in); got != want {
			t.Errorf("liveText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestProgressSplitRune: a character cut between two writes is shown
// whole, not as invalid bytes.
func TestProgressSplitRune(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b}
	e := []byte("é€\n")
	for _, chunk := range [][]byte{e[:1], e[1:3], e[3:4], e[4:]} {
		p.Write(chunk)
	}
	p.Write([]byte{0xff, '\n'})
	if got, want := b.String(), "é€\n\\xff\n"; got != want {
		t.Errorf("shown %q, want %q", got, want)
	}
}

// TestProgressHold: while clada asks a question (hold), the command's
// output is kept, not shown, an output line left open is ended first so
// the question starts at column 1, and the kept output (escapes made
// visible) is shown at release; past 64 KiB it is counted, not shown.
func TestProgressHold(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, total: 1, block: 1}
	p.Write([]byte("downloading"))
	release := p.hold()
	if got := b.String(); got != "downloading\n" {
		t.Fatalf("at hold: %q; want the open line ended", got)
	}
	b.WriteString("QUESTION\n") // the question, on the same terminal
	p.Write([]byte("y\n\x1b[1Aclada: fake\n"))
	if got := b.String(); got != "downloading\nQUESTION\n" {
		t.Fatalf("output was shown while the question was open: %q", got)
	}
	release()
	release() // a second call does nothing
	if got, want := b.String(), "downloading\nQUESTION\ny\n\\x1b[1Aclada: fake\n"; got != want {
		t.Errorf("after release: %q; want %q", got, want)
	}
	b.Reset()
	release = p.hold()
	p.Write(bytes.Repeat([]byte("x"), maxHeld+10))
	release()
	if got := b.String(); strings.Count(got, "x") != maxHeld || !strings.Contains(got, "10 more bytes printed while clada asked are not shown here") {
		t.Errorf("past the bound: %d x shown, %q", strings.Count(got, "x"), got[len(got)-min(len(got), 200):])
	}
}
