//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/clada/clada/internal/testproc"
)

// ttyRun is one `clada run` whose stdin is a pipe carrying the CSL and
// whose controlling terminal is a pty that the test plays the person on.
type ttyRun struct {
	t      testing.TB
	pid    int
	ptmx   *os.File
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan error    // the process's Wait result
	read   chan struct{} // closed when the terminal's output has ended

	mu   sync.Mutex
	term []byte // everything written to the terminal so far
	seen int    // how far expect has consumed term
}

const ttyWait = 10 * time.Second // how long any one step may take

// startTTY starts clada run in root with csl on stdin and a new session
// whose controlling terminal is a fresh pty.
func startTTY(t testing.TB, root, csl string, args ...string) *ttyRun {
	t.Helper()
	return startTTYProgram(t, "clada", root, csl, args...)
}

// startTTYProgram is startTTY for one of the programs TestMain registers.
func startTTYProgram(t testing.TB, program, root, csl string, args ...string) *ttyRun {
	t.Helper()
	return startTTYEnv(t, program, root, csl, nil, false, args...)
}

// startTTYEnv is startTTYProgram with env added to clada's environment,
// and, when stderrTTY, clada's stderr on the terminal too (where clada
// run shows its progress and the commands' live output).
func startTTYEnv(t testing.TB, program, root, csl string, env []string, stderrTTY bool, args ...string) *ttyRun {
	t.Helper()
	cmd := cladaCmd(t, root, append([]string{"run", "--root", root}, args...)...)
	if program != "clada" {
		// A program of this test binary's (TestMain), such as
		// clada-fastclock.
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Path = exe
	}
	cmd.Args[0] = program
	cmd.Env = append(cmd.Env, env...)
	return startTTYCmdOn(t, cmd, csl, stderrTTY)
}

// startTTYCmd starts cmd with stdin on its standard input and a new
// session whose controlling terminal is a fresh pty.
func startTTYCmd(t testing.TB, cmd *exec.Cmd, stdin string) *ttyRun {
	t.Helper()
	return startTTYCmdOn(t, cmd, stdin, false)
}

// startTTYCmdOn is startTTYCmd with, when stderrTTY, cmd's stderr on the
// terminal too.
func startTTYCmdOn(t testing.TB, cmd *exec.Cmd, stdin string, stderrTTY bool) *ttyRun {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pty: %v", err)
	}
	r := &ttyRun{t: t, ptmx: ptmx, done: make(chan error, 1), read: make(chan struct{})}
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
	if stderrTTY {
		cmd.Stderr = tty
	}
	cmd.ExtraFiles = []*os.File{tty} // fd 3 in the child
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 3}
	if err := cmd.Start(); err != nil {
		ptmx.Close()
		tty.Close()
		t.Fatalf("starting clada: %v", err)
	}
	r.pid = cmd.Process.Pid
	tty.Close() // the child holds it now; reads on ptmx end when it exits
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			r.mu.Lock()
			r.term = append(r.term, buf[:n]...)
			r.mu.Unlock()
			if err != nil { // EIO once every holder of the tty is gone
				close(r.read)
				return
			}
		}
	}()
	go func() { r.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // harmless once it has exited
		ptmx.Close()
	})
	return r
}

// expect waits until the terminal shows want after what earlier calls
// consumed, and consumes up to its end.
func (r *ttyRun) expect(want string) {
	r.t.Helper()
	deadline := time.Now().Add(ttyWait)
	for {
		r.mu.Lock()
		i := bytes.Index(r.term[r.seen:], []byte(want))
		if i >= 0 {
			r.seen += i + len(want)
		}
		term := string(r.term)
		r.mu.Unlock()
		if i >= 0 {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the terminal did not show %q within %s; it shows:\n%q", want, ttyWait, term)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// answer types s and Enter, as the person would.
func (r *ttyRun) answer(s string) {
	r.t.Helper()
	if _, err := io.WriteString(r.ptmx, s); err != nil {
		r.t.Fatalf("typing %q: %v", s, err)
	}
}

// wait waits for clada to exit and the terminal to close, and returns the
// exit code and everything the terminal showed.
func (r *ttyRun) wait(limit time.Duration) (code int, term string) {
	r.t.Helper()
	var err error
	select {
	case err = <-r.done:
	case <-time.After(limit):
		r.t.Fatalf("clada did not exit within %s; terminal:\n%q\nstdout:\n%s", limit, r.termText(), &r.stdout)
	}
	select {
	case <-r.read:
	case <-time.After(ttyWait):
		r.t.Fatalf("the terminal did not close after clada exited")
	}
	return exitCodeOf(r.t, err), r.termText()
}

func (r *ttyRun) termText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.term)
}

// askCSL is a reply with one command that clada asks about (`true` is in
// no spec) and one that the specs allow, so the report shows both.
const askCSL = "<---RUN--->\ntrue\n<---END--->\n<---RUN--->\necho after\n<---END--->\n"

const askPrompt = "clada: run `true`"

func TestTTYPrompt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		answers []string // typed one by one, each after the question shows
		again   bool     // the question is asked again after the first answer
		code    int
		report  string // in the report on stdout
		term    string // on the terminal after the answers
		list    string // the list of commands.toml that now holds `true`, "" for none
	}{
		{name: "yes", answers: []string{"y\n"}, code: exitOK,
			report: "exit 0 · "},
		{name: "yes word upper case", answers: []string{"YES\n"}, code: exitOK,
			report: "exit 0 · "},
		{name: "no", answers: []string{"n\n"}, code: exitFailed,
			report: "not run: declined by the person (answered no) (rule not-in-specs): `true` is not in clada's specs, so the person must approve it\n" +
				"    do instead: the person decided; do not send this command again unchanged"},
		{name: "no in the summary", answers: []string{"n\n"}, code: exitFailed,
			report: "summary: 1 ran: 1 ok, 0 failed · 0 denied · 1 declined by the person · 0 needs approval · 0 skipped\n"},
		{name: "unrecognised then yes", answers: []string{"x\n", "y\n"}, again: true, code: exitOK,
			report: "exit 0 · "},
		{name: "always", answers: []string{"a\n"}, code: exitOK,
			report: "exit 0 · ", list: "allowed"},
		{name: "never", answers: []string{"v\n"}, code: exitFailed,
			report: "not run: declined by the person (answered never; added to blocked in ", list: "blocked"},
		{name: "ctrl-d", answers: []string{"\x04"}, code: exitFailed,
			report: "not run: the prompt's input ended without an answer (that counts as no)", term: "end of input: not approved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := newRoot(t)
			r := startTTY(t, root, askCSL)
			r.expect(askPrompt)
			r.expect("[y]es, [n]o, [a]lways, ne[v]er (60s): ")
			for i, a := range tt.answers {
				if i > 0 { // unrecognised: clada says so and asks again
					r.expect("clada: please answer y (yes), n (no), a (always) or v (never)")
					r.expect(askPrompt)
					r.expect("): ")
				}
				r.answer(a)
			}
			if tt.term != "" {
				r.expect(tt.term)
			}
			code, term := r.wait(ttyWait)
			report := r.stdout.String()
			if code != tt.code {
				t.Errorf("exit code %d, want %d", code, tt.code)
			}
			if !strings.Contains(report, tt.report) {
				t.Errorf("report does not contain %q:\n%s", tt.report, report)
			}
			// The allowed block after it ran either way.
			if !strings.Contains(report, "```stdout\nafter\n```\n") {
				t.Errorf("the block after the question did not run:\n%s", report)
			}
			// The question went to the terminal only, never to the report.
			if strings.Contains(report, askPrompt) || strings.Contains(r.stderr.String(), askPrompt) {
				t.Errorf("the question leaked into stdout or stderr:\nstdout:\n%s\nstderr:\n%s", report, &r.stderr)
			}
			wantAsked := 1
			if tt.again {
				wantAsked = 2
			}
			if n := strings.Count(term, askPrompt); n != wantAsked {
				t.Errorf("asked %d times, want %d; terminal:\n%q", n, wantAsked, term)
			}

			path := filepath.Join(root, ".clada", "commands.toml")
			if tt.list == "" {
				if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("answer %q wrote %s (err %v)", tt.answers, path, err)
				}
				return
			}
			f := readCommandsFile(t, root)
			got := map[string][]string{"allowed": f.Allowed, "blocked": f.Blocked}
			if fmt.Sprint(got[tt.list]) != "[true]" || len(f.Allowed)+len(f.Blocked) != 1 {
				t.Errorf("commands.toml holds %+v, want only `true` in %s", f, tt.list)
			}
			wantDiag := fmt.Sprintf("clada: added `true` to %s in %s", tt.list, path)
			if !strings.Contains(r.stderr.String(), wantDiag) {
				t.Errorf("stderr does not name the file written; want %q in:\n%s", wantDiag, &r.stderr)
			}

			// The remembered answer holds: a second run, on a terminal
			// again, decides without asking.
			r2 := startTTY(t, root, askCSL)
			code2, term2 := r2.wait(ttyWait)
			if strings.Contains(term2, askPrompt) {
				t.Errorf("second run asked again:\n%q", term2)
			}
			want2, rule2 := exitOK, "allowed (allowed-pattern)"
			if tt.list == "blocked" {
				want2, rule2 = exitFailed, "denied, not run (rule blocked-pattern)"
			}
			if code2 != want2 || !strings.Contains(r2.stdout.String(), rule2) {
				t.Errorf("second run: exit %d, want %d and %q in:\n%s", code2, want2, rule2, &r2.stdout)
			}
		})
	}
}

// TestTTYPromptPrefix: the prompt offers the program-and-subcommand
// prefix; answering p runs the command and remembers the prefix, which
// covers the next command of that kind but not one reaching outside.
func TestTTYPromptPrefix(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	r := startTTY(t, root, "<---RUN--->\ntrue run one\n<---END--->\n")
	r.expect("clada: run `true run one` in . (`true` is not in clada's specs) [" + ttySandboxPhrase(t) + "]? [y]es, [n]o, [a]lways, [p]refix `true run *`, ne[v]er (60s): ")
	r.answer("p\n")
	code, _ := r.wait(ttyWait)
	if code != exitOK {
		t.Fatalf("exit code %d, want %d; stdout:\n%s", code, exitOK, &r.stdout)
	}
	path := filepath.Join(root, ".clada", "commands.toml")
	if want := "clada: added `true run *` to allowed in " + path; !strings.Contains(r.stderr.String(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, &r.stderr)
	}
	if f := readCommandsFile(t, root); fmt.Sprint(f.Allowed) != "[true run *]" {
		t.Errorf("commands.toml allowed = %q, want [true run *]", f.Allowed)
	}
	r2 := startTTY(t, root, "<---RUN--->\ntrue run two\n<---END--->\n<---RUN--->\ntrue run ../x\n<---END--->\n")
	r2.expect("clada: run `true run ../x` in . (the pattern `true run *` covers this command, but ../x resolves to ")
	r2.answer("n\n")
	code, term := r2.wait(ttyWait)
	if strings.Contains(term, "`true run two`") || !strings.Contains(r2.stdout.String(), "allowed (allowed-pattern)") {
		t.Errorf("`true run two` was not allowed by the prefix; terminal %q, stdout:\n%s", term, &r2.stdout)
	}
	if code != exitFailed {
		t.Errorf("exit code %d, want %d", code, exitFailed)
	}
}

// TestTTYPromptTimeout waits out the shortest approval timeout (10 s): no
// answer counts as no. clada-fastclock runs the timeout on a clock 100
// times faster than the real one and says which timers it started, so the
// test sees that clada waited the configured 10 s (on that clock) and
// then gave up, without measuring real time.
func TestTTYPromptTimeout(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	if err := os.WriteFile(filepath.Join(root, ".clada", "config.toml"), []byte("approval_timeout = \"10s\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trustRoot(t, root)
	r := startTTYProgram(t, "clada-fastclock", root, askCSL)
	r.expect(askPrompt)
	r.expect("(10s): ")
	r.expect("no answer within 10s: not approved")
	code, _ := r.wait(ttyWait)
	if got, want := r.stderr.String(), "clada-fastclock: timer 10s\n"; !strings.Contains(got, want) || strings.Count(got, "clada-fastclock:") != 1 {
		t.Errorf("clada should start exactly one timer, of 10s, for the question; stderr:\n%s", got)
	}
	if code != exitFailed {
		t.Errorf("exit code %d, want %d", code, exitFailed)
	}
	if want := "not run: nobody answered the question at the prompt before it timed out (that counts as no)"; !strings.Contains(r.stdout.String(), want) {
		t.Errorf("report does not contain %q:\n%s", want, &r.stdout)
	}
}

// TestTTYTypeAheadIgnored: what was typed before a question showed does
// not answer it, so a stray `y` can never approve a command.
func TestTTYTypeAheadIgnored(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	csl := "<---RUN--->\ntrue\n<---END--->\n<---RUN--->\ntrue second\n<---END--->\n"
	r := startTTY(t, root, csl)
	r.expect("clada: run `true`")
	// One write: the terminal queues both lines at once, clada reads the
	// first as the answer, and the second must be dropped, not taken as
	// the answer to the next question.
	r.answer("n\ny\n")
	r.expect("clada: run `true second`")
	r.expect("): ")
	r.answer("n\n")
	code, _ := r.wait(ttyWait)
	if code != exitFailed {
		t.Errorf("exit code %d, want %d", code, exitFailed)
	}
	if n := strings.Count(r.stdout.String(), "(answered no)"); n != 2 {
		t.Errorf("%d blocks answered no, want 2:\n%s", n, &r.stdout)
	}
}

// TestNoTerminal: a new session without a controlling terminal cannot be
// asked; the command is not approved and the report says why.
func TestNoTerminal(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	cmd := cladaCmd(t, root, "run", "--root", root)
	cmd.Stdin = strings.NewReader(askCSL)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.Output()
	if code := exitCodeOf(t, err); code != exitFailed {
		t.Errorf("exit code %d, want %d", code, exitFailed)
	}
	if want := "not run: needs approval (no terminal to ask on)"; !strings.Contains(string(out), want) {
		t.Errorf("report does not contain %q:\n%s", want, out)
	}
}

// TestCommandStdinNeverInherited: clada's stdin stays open (the reply came
// from a file), and `cat` still gets end of input at once, because a
// command never reads clada's stdin.
func TestCommandStdinNeverInherited(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	if err := os.WriteFile(filepath.Join(root, ".clada", "commands.toml"), []byte("allowed = [\"cat\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trustRoot(t, root)
	reply := filepath.Join(root, "reply.csl")
	if err := os.WriteFile(reply, []byte("<---RUN--->\ncat\n<---END--->\n<---RUN--->\nhead -c 5\n<---END--->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	if _, err := io.WriteString(pw, "secret the model must not read\n"); err != nil {
		t.Fatal(err)
	}
	cmd := cladaCmd(t, root, "run", "--root", root, "--no-prompt", "--timeout", "8s", reply)
	cmd.Stdin = pr // never closed while clada runs
	out, err := cmd.Output()
	pr.Close()
	if code := exitCodeOf(t, err); code != exitOK {
		t.Errorf("exit code %d, want 0:\n%s", code, out)
	}
	// A command that waited on clada's stdin would be killed at the 8 s
	// timeout, and the report would say so: that, not the time taken
	// (which a loaded race run stretches), is what is checked.
	if strings.Contains(string(out), "secret") || strings.Contains(string(out), "timed out") {
		t.Errorf("a command read clada's stdin:\n%s", out)
	}
}

// TestTimeoutKillsProcessGroup: a command that leaves a grandchild holding
// its output open is killed with the grandchild at the timeout, and clada
// returns promptly instead of waiting for the grandchild.
func TestTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	script := "#!/bin/sh\nsleep 30 &\necho $! > bg.pid\nsleep 30\n"
	if err := os.WriteFile(filepath.Join(root, "spawn.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := cladaCmd(t, root, "run", "--root", root, "--trust-all", "--timeout", "1s")
	cmd.Stdin = strings.NewReader("<---RUN--->\n./spawn.sh\n<---END--->\n")
	start := time.Now()
	out, err := cmd.Output()
	took := time.Since(start)
	if code := exitCodeOf(t, err); code != exitFailed {
		t.Errorf("exit code %d, want %d", code, exitFailed)
	}
	// The grandchild holds the output open for 30 s: returning well
	// before that means clada did not wait for it (a loaded race run has
	// taken 8 s for the 1 s timeout).
	if took > 20*time.Second {
		t.Errorf("clada took %s to return from a 1s timeout: it waited for the grandchild", took)
	}
	if !strings.Contains(string(out), "timed out after") {
		t.Errorf("report does not say timed out:\n%s", out)
	}
	testproc.WaitGone(t, filepath.Join(root, "bg.pid"), "the timeout")
}

// TestConcurrentAlways: several clada runs, each on its own terminal, are
// answered `always` at the same moment; commands.toml keeps every pattern.
func TestConcurrentAlways(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	const n = 6
	runs := make([]*ttyRun, n)
	var want []string
	for i := range n {
		word := fmt.Sprintf("run-%d", i)
		want = append(want, "true "+word)
		runs[i] = startTTY(t, root, "<---RUN--->\ntrue "+word+"\n<---END--->\n")
	}
	for i, r := range runs {
		r.expect(fmt.Sprintf("clada: run `true run-%d`", i))
		r.expect("): ")
	}
	for _, r := range runs { // every question is showing: answer them all
		r.answer("a\n")
	}
	for i, r := range runs {
		if code, _ := r.wait(ttyWait); code != exitOK {
			t.Errorf("run %d exited %d:\n%s\n%s", i, code, &r.stdout, &r.stderr)
		}
	}
	got := readCommandsFile(t, root)
	slices.Sort(got.Allowed)
	if diff := diffLines(want, got.Allowed); diff != "" {
		t.Errorf("allowed after %d concurrent `always` answers (-want +got):\n%s", n, diff)
	}
}

// TestTTYInterruptAtPrompt: Ctrl-C typed at the question (the terminal
// sends SIGINT), or SIGTERM, answers no for that command, runs nothing
// after it, reports what happened and exits 130 at once, not after the
// approval timeout (60 s by default): interruptAtPrompt fails the test when
// clada has not exited within ttyWait. How fast "at once" is (the target is
// 100 ms) is measured by BenchmarkInterruptAtPrompt, not here: a timing
// in a unit test fails on a loaded machine (the race run of CI).
func TestTTYInterruptAtPrompt(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"ctrl-c", "sigterm"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			interruptAtPrompt(t, how)
		})
	}
}

// BenchmarkInterruptAtPrompt measures the time from Ctrl-C (or SIGTERM) at
// the question to clada's exit, reported as ms/exit; the target is at most
// 100 ms.
func BenchmarkInterruptAtPrompt(b *testing.B) {
	for _, how := range []string{"ctrl-c", "sigterm"} {
		b.Run(how, func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				total += interruptAtPrompt(b, how)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/exit")
		})
	}
}

// interruptAtPrompt interrupts one question and checks what clada did; it
// returns how long clada took to exit.
func interruptAtPrompt(t testing.TB, how string) time.Duration {
	t.Helper()
	root := newRoot(t)
	r := startTTY(t, root, askCSL+"<---RUN--->\ntouch after\n<---END--->\n")
	r.expect(askPrompt)
	r.expect("): ")
	start := time.Now()
	if how == "ctrl-c" {
		r.answer("\x03")
	} else if err := syscall.Kill(r.pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var took time.Duration
	select {
	case err := <-r.done:
		took = time.Since(start)
		r.done <- err // for wait
	case <-time.After(ttyWait):
		t.Fatalf("clada did not exit after %s at the prompt", how)
	}
	code, _ := r.wait(ttyWait)
	if code != exitInterrupted {
		t.Errorf("exit code %d, want %d", code, exitInterrupted)
	}
	out := r.stdout.String()
	for _, want := range []string{"not run: clada was interrupted at the prompt", "skipped: clada was interrupted"} {
		if !strings.Contains(out, want) {
			t.Errorf("report does not contain %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "after")); err == nil {
		t.Error("a block ran after the interrupt")
	}
	return took
}
