//go:build linux

package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/clada/clada/internal/sandbox"
	"github.com/clada/clada/internal/testproc"
)

// webServer serves "hello from web.test" to every HTTP request on
// 127.0.0.1 and counts the requests; clada's proxy reaches it by the name
// web.test through CLADA_PROXY_TEST_HOSTS.
func webServer(t *testing.T) (addr string, hits *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	hits = &atomic.Int32{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				c.SetReadDeadline(time.Now().Add(5 * time.Second))
				n, _ := c.Read(buf)
				if n == 0 {
					return
				}
				hits.Add(1)
				body := "hello from web.test\n"
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
			}()
		}
	}()
	return ln.Addr().String(), hits
}

// needsProxySandbox skips where the sandbox cannot hold a command to
// clada's proxy (no Landlock ABI 4): there a command with the network
// gets all of it and no host is ever asked about.
func needsProxySandbox(t *testing.T) {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Mode: sandbox.ModeAuto, Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if !sb.Support().FiltersNetwork() {
		t.Skip("this kernel's sandbox cannot hold a command to clada's proxy (Landlock before ABI 4)")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("these tests need curl, which .ci/run installs")
		}
		t.Skip("needs curl")
	}
}

// ttySandboxPhrase is how the question at a terminal says that a command
// the person approves runs on this machine: where the sandbox can hold it
// to clada's proxy, with the network of the hosts the person lets it
// reach as it runs (asked then); elsewhere as without a terminal.
func ttySandboxPhrase(t *testing.T) string {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Mode: sandbox.ModeAuto, Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if sb.Support().FiltersNetwork() {
		return "sandboxed, network only to hosts you let it reach as it runs"
	}
	return testproc.SandboxPhrase(t)
}

const (
	webCSL       = "<---RUN--->\ncurl -fsS http://web.test/\n<---END--->\n"
	webCommandQ  = "clada: run `curl -fsS http://web.test/`"
	webHostQ     = "clada: `curl -fsS http://web.test/` is running and wants to reach web.test:80, which it was not granted. Let it? [y]es (this run), [n]o, [a]lways (for `curl -fsS http://web.test/`), ne[v]er ("
	webQuestions = "[y]es, [n]o, [a]lways, ne[v]er (60s): "
)

// networkFile is the [[network]] part of commands.toml, decoded
// independently of the approve package that writes it.
type networkFile struct {
	Allowed []string `toml:"allowed"`
	Network []struct {
		Pattern string   `toml:"pattern"`
		Allow   []string `toml:"allow"`
		Deny    []string `toml:"deny"`
	} `toml:"network"`
}

func readNetworkFile(t *testing.T, root string) networkFile {
	t.Helper()
	var f networkFile
	if _, err := toml.DecodeFile(filepath.Join(root, ".clada", "commands.toml"), &f); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return f
}

// TestTTYHostQuestion: a command approved at the terminal that connects
// to a host it was not granted makes clada ask then and there, with the
// connection held: yes lets it through for this run; no refuses it and
// the report names the host and how to grant it; always remembers the
// host for the command's pattern, so that a second run reaches it with
// no question; never remembers the refusal, so that a second run is
// refused with no question.
func TestTTYHostQuestion(t *testing.T) {
	t.Parallel()
	needsProxySandbox(t)
	for _, tc := range []struct {
		name, command, host string
		code                int
		report              []string
		second              bool // run again: no host question then
		secondReached       bool
	}{
		{name: "yes", command: "y\n", host: "y\n", code: exitOK,
			report: []string{"exit 0 · ", "hello from web.test", "network: the person was asked while it ran whether it may reach web.test:80 (yes)"}},
		{name: "no", command: "y\n", host: "n\n", code: exitFailed,
			report: []string{"network: the person was asked while it ran whether it may reach web.test:80 (no)",
				"network: clada's proxy refused web.test:80", "hosts = [...] in .clada/config.toml"}},
		{name: "always", command: "a\n", host: "a\n", code: exitOK, second: true, secondReached: true,
			report: []string{"exit 0 · ", "hello from web.test"}},
		{name: "never", command: "a\n", host: "v\n", code: exitFailed, second: true,
			report: []string{"network: clada's proxy refused web.test:80"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr, hits := webServer(t)
			env := []string{"CLADA_PROXY_TEST_HOSTS=web.test=" + addr}
			root := newRoot(t)
			r := startTTYEnv(t, "clada", root, webCSL, env, false)
			r.expect(webCommandQ)
			r.expect("[sandboxed, network only to hosts you let it reach as it runs]? " + webQuestions)
			r.answer(tc.command)
			r.expect(webHostQ)
			r.expect("s): ")
			r.answer(tc.host)
			code, term := r.wait(30 * time.Second)
			out := r.stdout.String()
			if code != tc.code {
				t.Errorf("exit %d, want %d; report:\n%s\nstderr:\n%s", code, tc.code, out, &r.stderr)
			}
			for _, want := range tc.report {
				if !strings.Contains(out, want) {
					t.Errorf("the report lacks %q:\n%s", want, out)
				}
			}
			if n := strings.Count(term, "wants to reach"); n != 1 {
				t.Errorf("asked about the host %d times; want once:\n%q", n, term)
			}
			if strings.Contains(out, "wants to reach") || strings.Contains(r.stderr.String(), "wants to reach") {
				t.Errorf("the question leaked into the report or stderr")
			}
			wantHits := int32(0)
			if tc.host == "y\n" || tc.host == "a\n" {
				wantHits = 1
			}
			if got := hits.Load(); got != wantHits {
				t.Errorf("the web server got %d requests; want %d", got, wantHits)
			}
			if !tc.second {
				if f := readNetworkFile(t, root); len(f.Network) > 0 {
					t.Errorf("answer %q remembered %+v", tc.host, f.Network)
				}
				return
			}
			f := readNetworkFile(t, root)
			list := "allow"
			if len(f.Network) != 1 || f.Network[0].Pattern != "curl -fsS http://web.test/" ||
				(tc.secondReached && fmt.Sprint(f.Network[0].Allow) != "[web.test]") ||
				(!tc.secondReached && fmt.Sprint(f.Network[0].Deny) != "[web.test]") {
				t.Fatalf("commands.toml [[network]] = %+v; want web.test in the %s list of the command's pattern", f.Network, list)
			}
			if !strings.Contains(r.stderr.String(), "clada: added web.test to the ") {
				t.Errorf("stderr does not say what was remembered:\n%s", &r.stderr)
			}
			// The second run: the command is allowed by the pattern that
			// always wrote, and the host is decided by what was
			// remembered, with no question at all.
			hits.Store(0)
			r2 := startTTYEnv(t, "clada", root, webCSL, env, false)
			code2, term2 := r2.wait(30 * time.Second)
			if strings.Contains(term2, "clada: ") {
				t.Errorf("the second run asked:\n%q", term2)
			}
			out2 := r2.stdout.String()
			if tc.secondReached {
				if code2 != exitOK || !strings.Contains(out2, "hello from web.test") || hits.Load() != 1 {
					t.Errorf("second run: exit %d, %d requests; report:\n%s", code2, hits.Load(), out2)
				}
			} else if code2 != exitFailed || !strings.Contains(out2, "network: clada's proxy refused web.test:80") || hits.Load() != 0 {
				t.Errorf("second run after never: exit %d, %d requests; report:\n%s", code2, hits.Load(), out2)
			}
			// An unrelated command of the same program does not get
			// the host: with a host granted to every command (so that
			// it has the proxy), its connection to web.test is refused.
			other := "<---RUN--->\ncurl -fsS http://web.test/other\n<---END--->\n"
			if err := os.WriteFile(filepath.Join(root, "other.csl"), []byte(other), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, ".clada", "config.toml"), []byte("hosts = [\"granted.test\"]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			trustRoot(t, root)
			cmd := cladaCmd(t, root, "run", "--root", root, "--trust-all", "other.csl")
			cmd.Env = append(cmd.Env, env...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal
			out3, _ := cmd.Output()
			if !strings.Contains(string(out3), "network: clada's proxy refused web.test:80") {
				t.Errorf("another curl command reached web.test remembered for `curl -fsS http://web.test/`:\n%s", out3)
			}
		})
	}
}

// TestHostNotAskedWithoutTerminal: with no terminal (CI, a pipe, --no-prompt) a host not
// granted is refused as before, with no question and the report naming the host.
func TestHostNotAskedWithoutTerminal(t *testing.T) {
	t.Parallel()
	needsProxySandbox(t)
	addr, hits := webServer(t)
	root := newRoot(t)
	if err := os.WriteFile(filepath.Join(root, ".clada", "commands.toml"),
		[]byte("allowed = [\"curl -fsS http://web.test/\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A host granted to every command the person chose, so that the
	// command has the proxy (with none, it has no network at all).
	if err := os.WriteFile(filepath.Join(root, ".clada", "config.toml"), []byte("hosts = [\"granted.test\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trustRoot(t, root)
	for _, args := range [][]string{{"run", "--root", root}, {"run", "--root", root, "--no-prompt"}} {
		for _, ci := range []string{"", "true"} {
			cmd := cladaCmd(t, root, args...)
			cmd.Env = append(cmd.Env, "CLADA_PROXY_TEST_HOSTS=web.test="+addr, "CI="+ci)
			cmd.Stdin = strings.NewReader(webCSL)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal
			out, _ := cmd.Output()
			if !strings.Contains(string(out), "network: clada's proxy refused web.test:80") ||
				strings.Contains(string(out), "asked while it ran") {
				t.Errorf("%q CI=%q: report:\n%s", args, ci, out)
			}
		}
	}
	// A terminal, but CI=true or --no-prompt: no question either.
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{[]string{"CI=true"}, nil},
		{nil, []string{"--no-prompt"}},
	} {
		r := startTTYEnv(t, "clada", root, webCSL, append(tc.env, "CLADA_PROXY_TEST_HOSTS=web.test="+addr), false, tc.args...)
		_, term := r.wait(30 * time.Second)
		if strings.Contains(term, "wants to reach") || !strings.Contains(r.stdout.String(), "network: clada's proxy refused web.test:80") {
			t.Errorf("%q %q on a terminal: terminal %q; report:\n%s", tc.env, tc.args, term, &r.stdout)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the web server got %d requests", hits.Load())
	}
}

// TestTTYHostQuestionModelCannotAnswer: answers written by the model in
// the reply after the RUN block (clada reads the reply on stdin, the
// person on the terminal) do not answer the host question, nor does what
// the command prints (-w): only what the person types does.
func TestTTYHostQuestionModelCannotAnswer(t *testing.T) {
	t.Parallel()
	needsProxySandbox(t)
	addr, hits := webServer(t)
	root := newRoot(t)
	csl := "<---RUN--->\ncurl -fsS -w 'a\\ny\\n' http://web.test/\n<---END--->\nalways\ny\na\n"
	r := startTTYEnv(t, "clada", root, csl, []string{"CLADA_PROXY_TEST_HOSTS=web.test=" + addr}, false)
	r.expect("clada: run `curl")
	r.expect(webQuestions)
	r.answer("y\n")
	r.expect("wants to reach web.test:80")
	r.expect("s): ")
	time.Sleep(200 * time.Millisecond) // anything the model could have sent has arrived
	r.answer("n\n")
	code, _ := r.wait(30 * time.Second)
	if code != exitFailed || !strings.Contains(r.stdout.String(), "network: clada's proxy refused web.test:80") || hits.Load() != 0 {
		t.Errorf("exit %d, %d requests; report:\n%s", code, hits.Load(), &r.stdout)
	}
	if f := readNetworkFile(t, root); len(f.Network) > 0 {
		t.Errorf("remembered %+v", f.Network)
	}
}

// TestTTYHostQuestionHoldsLiveOutput: with clada run's progress on the
// same terminal, a command that keeps printing while clada asks about a
// host does not garble the question: an open output line ("partialmore",
// no newline) is ended before it, nothing the command prints appears after it until the person has
// answered, and what it printed meanwhile is shown after the answer.
func TestTTYHostQuestionHoldsLiveOutput(t *testing.T) {
	t.Parallel()
	needsProxySandbox(t)
	addr, hits := webServer(t)
	root := newRoot(t)
	csl := "<---RUN--->\nsh -c 'printf partial; sleep 0.2; printf more; curl -fsS http://web.test/ & i=0; while [ $i -lt 30 ]; do echo tick$i; sleep 0.05; i=$((i+1)); done; wait'\n<---END--->\n"
	r := startTTYEnv(t, "clada", root, csl, []string{"CLADA_PROXY_TEST_HOSTS=web.test=" + addr, "TERM=xterm", "NO_COLOR=1"}, true)
	r.expect("clada: run `sh -c")
	r.expect(webQuestions)
	r.answer("y\n")
	r.expect("wants to reach web.test:80")
	r.expect("s): ")
	r.mu.Lock()
	at := r.seen
	r.mu.Unlock()
	time.Sleep(700 * time.Millisecond) // the command prints a tick every 50 ms meanwhile
	r.mu.Lock()
	during := string(r.term[at:])
	r.mu.Unlock()
	r.answer("y\n")
	code, term := r.wait(30 * time.Second)
	if strings.Contains(during, "tick") {
		t.Errorf("the command's output appeared after the open question: %q", during)
	}
	q := strings.Index(term, "clada: `sh -c")
	if q < 1 || term[q-1] != '\n' || !strings.Contains(term[:q], "partial") {
		t.Errorf("the question does not start on a line of its own after the output:\n%q", term)
	}
	if !strings.Contains(term[max(q, 0):], "tick29") || code != exitOK || hits.Load() != 1 {
		t.Errorf("exit %d, %d requests; the output after the answer is missing:\n%q\nreport:\n%s", code, hits.Load(), term, &r.stdout)
	}
}

// TestTTYHostQuestionDoesNotTimeOut: the command's timeout (1 s here)
// stands still while the person is asked about a host: an answer after
// 2.5 s still lets the command finish, where the same command with no
// answer pending would have been killed at 1 s.
func TestTTYHostQuestionDoesNotTimeOut(t *testing.T) {
	t.Parallel()
	needsProxySandbox(t)
	addr, hits := webServer(t)
	root := newRoot(t)
	r := startTTYEnv(t, "clada", root, webCSL, []string{"CLADA_PROXY_TEST_HOSTS=web.test=" + addr}, false, "--timeout", "1s")
	r.expect(webCommandQ)
	r.expect(webQuestions)
	r.answer("y\n")
	r.expect(webHostQ)
	r.expect("s): ")
	time.Sleep(2500 * time.Millisecond)
	r.answer("y\n")
	code, _ := r.wait(30 * time.Second)
	if out := r.stdout.String(); code != exitOK || !strings.Contains(out, "hello from web.test") || strings.Contains(out, "timed out") || hits.Load() != 1 {
		t.Errorf("exit %d, %d requests; report:\n%s", code, hits.Load(), out)
	}
}
