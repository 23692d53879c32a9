package gateway

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/netproxy"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/runner"
)

// hostAsker is a HostAsker that answers from a list, optionally waiting
// for release first, and counts its questions.
type hostAsker struct {
	mu      sync.Mutex
	answers []approve.Answer
	asked   []approve.HostQuestion
	release chan struct{} // nil: answer at once
	calls   atomic.Int32
}

func (h *hostAsker) AskHost(ctx context.Context, q approve.HostQuestion, _ time.Duration) (approve.Answer, approve.NoReason, error) {
	h.calls.Add(1)
	if h.release != nil {
		select {
		case <-h.release:
		case <-ctx.Done():
			return approve.No, approve.NoInterrupted, nil
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, q)
	if len(h.answers) == 0 {
		return approve.No, approve.NoEOF, nil
	}
	a := h.answers[0]
	h.answers = h.answers[1:]
	return a, "", nil
}

// gateProxy starts a proxy that decides with a hostGate for v, and a
// listener the proxy's dialer sends every host to.
func gateProxy(t *testing.T, v Verdict, hq *HostQuestions, pause *runner.Pause) (*netproxy.Proxy, *hostGate) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	gate := &hostGate{ctx: ctx, v: v, hq: hq, pause: pause, ns: &netSession{}, answers: map[string]bool{}}
	p, err := netproxy.Start(netproxy.Options{Allow: gate.allow, Hint: gate.hint,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, ln.Addr().String())
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, gate
}

// connect sends CONNECT dest through p and returns the status line.
func connect(t *testing.T, p *netproxy.Proxy, dest string) string {
	t.Helper()
	c, err := net.Dial("tcp4", p.Addr())
	if err != nil {
		t.Error(err)
		return ""
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", dest, dest)
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Error(err)
	}
	return strings.TrimSpace(line)
}

func hostVerdict(hosts, denied []string) Verdict {
	v := Verdict{Decision: Allow, HostCommand: "npm install", HostPattern: "npm install"}
	v.Grants.Hosts, v.Grants.DeniedHosts = hosts, denied
	return v
}

// TestHostGateAsksOncePerHost: a dozen connections at once to a host not
// granted (on two ports) make one question; yes lets all of them and
// later ones through without another question; a granted host and a
// host answered never are never asked about.
func TestHostGateAsksOncePerHost(t *testing.T) {
	t.Parallel()
	asker := &hostAsker{answers: []approve.Answer{approve.Yes}, release: make(chan struct{})}
	var holds atomic.Int32
	hq := &HostQuestions{Asker: asker, Hold: func() func() { holds.Add(1); return func() {} }}
	p, gate := gateProxy(t, hostVerdict([]string{"granted.test"}, []string{"never.test"}), hq, nil)
	var wg sync.WaitGroup
	got := make([]string, 12)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = connect(t, p, fmt.Sprintf("new.test:%d", 443+i%2))
		}()
	}
	// Every connection waits for the one question.
	deadline := time.Now().Add(10 * time.Second)
	for asker.calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // let the others arrive and wait
	close(asker.release)
	wg.Wait()
	for i, line := range got {
		if !strings.HasPrefix(line, "HTTP/1.1 200") {
			t.Errorf("connection %d: %q; want 200 after yes", i, line)
		}
	}
	if line := connect(t, p, "new.test:8443"); !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Errorf("a later connection after yes: %q", line)
	}
	if line := connect(t, p, "granted.test:443"); !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Errorf("granted host: %q", line)
	}
	if line := connect(t, p, "never.test:443"); !strings.Contains(line, "403") || !strings.Contains(line, "never.test:443") {
		t.Errorf("host answered never: %q; want 403 naming it", line)
	}
	if n := asker.calls.Load(); n != 1 {
		t.Errorf("asked %d times; want once", n)
	}
	if n := holds.Load(); n != 1 {
		t.Errorf("live output held %d times; want once, for the question", n)
	}
	if len(asker.asked) == 1 {
		q := asker.asked[0]
		if q.Command != "npm install" || q.Pattern != "npm install" || (q.Host != "new.test:443" && q.Host != "new.test:444") {
			t.Errorf("question %+v", q)
		}
	}
	if got := gate.ns.asked; len(got) != 1 || !strings.HasSuffix(got[0], " yes") {
		t.Errorf("questions noted: %q", got)
	}
}

// TestHostGateNoRefuses: no refuses the host for the rest of the run
// without asking again, and the refusal names the host and how to grant
// it; without an asker nothing is asked and the refusal is today's.
func TestHostGateNoRefuses(t *testing.T) {
	t.Parallel()
	asker := &hostAsker{answers: []approve.Answer{approve.No}}
	p, _ := gateProxy(t, hostVerdict(nil, nil), &HostQuestions{Asker: asker}, nil)
	for range 3 {
		line := connect(t, p, "evil.test:443")
		if !strings.Contains(line, "403") || !strings.Contains(line, "evil.test:443") {
			t.Errorf("after no: %q; want 403 naming evil.test:443", line)
		}
	}
	if n := asker.calls.Load(); n != 1 {
		t.Errorf("asked %d times; want once", n)
	}
	quiet, gate := gateProxy(t, hostVerdict(nil, nil), nil, nil)
	if line := connect(t, quiet, "evil.test:443"); !strings.Contains(line, "403 clada: the network grant of this command does not include evil.test:443") {
		t.Errorf("without an asker: %q", line)
	}
	if h := gate.hint("evil.test", 443); !strings.Contains(h, "hosts = [...] in .clada/config.toml") {
		t.Errorf("hint without an asker: %q", h)
	}
}

// TestHostGatePausesTimeout: the command's timeout stands still while
// the question is open.
func TestHostGatePausesTimeout(t *testing.T) {
	t.Parallel()
	asker := &hostAsker{answers: []approve.Answer{approve.Yes}, release: make(chan struct{})}
	pause := &runner.Pause{}
	p, _ := gateProxy(t, hostVerdict(nil, nil), &HostQuestions{Asker: asker}, pause)
	done := make(chan string)
	go func() { done <- connect(t, p, "slow.test:443") }()
	deadline := time.Now().Add(10 * time.Second)
	for asker.calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if _, holding := pause.Held(); !holding {
		t.Error("the timeout's clock runs while the question is open")
	}
	time.Sleep(50 * time.Millisecond)
	close(asker.release)
	<-done
	if d, holding := pause.Held(); holding || d < 50*time.Millisecond {
		t.Errorf("Held() = %v, %v after the answer; want at least 50ms, false", d, holding)
	}
}

// TestHostAlwaysRemembersForPattern: always writes the host for the
// command's pattern in commands.toml, so that the next decision of the
// same command grants it and an unrelated command's does not; never makes
// the host one refused without a question. Through Execute, with the
// gateway's own Remember.
func TestHostAlwaysRemembersForPattern(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t, "tool fetch *")
	asker := &hostAsker{answers: []approve.Answer{approve.Always, approve.Never}}
	r := &Result{Argv: []string{"tool", "fetch", "x"}}
	hq := g.hostQuestions(r, ExecOptions{Hosts: &HostQuestions{Asker: asker}})
	v := g.Decide([]string{"tool", "fetch", "x"}, "")
	if v.Rule != rules.AllowedPattern || v.HostPattern != "tool fetch *" || v.HostCommand != "tool fetch x" {
		t.Fatalf("verdict %s, HostPattern %q, HostCommand %q", v.Rule, v.HostPattern, v.HostCommand)
	}
	p, _ := gateProxy(t, v, hq, nil)
	if line := connect(t, p, "new.test:443"); !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Errorf("after always: %q", line)
	}
	if line := connect(t, p, "bad.test:443"); !strings.Contains(line, "403") {
		t.Errorf("after never: %q", line)
	}
	if r.Wrote == "" {
		t.Error("Result.Wrote is not set after always")
	}
	cmds, err := approve.LoadCommands(root, ParsePattern)
	if err != nil {
		t.Fatal(err)
	}
	if a, d := cmds.MatchHosts([]string{"tool", "fetch", "y"}); !slices.Equal(a, []string{"new.test"}) || !slices.Equal(d, []string{"bad.test"}) {
		t.Errorf("commands.toml: allow %q, deny %q", a, d)
	}
	for _, tc := range []struct {
		argv          []string
		granted, deny bool
	}{
		{[]string{"tool", "fetch", "y"}, true, true},
		{[]string{"tool", "push"}, false, false},
		{[]string{"other", "fetch", "x"}, false, false},
	} {
		v := g.Decide(tc.argv, "")
		if got := slices.Contains(v.Grants.Hosts, "new.test"); got != tc.granted {
			t.Errorf("%q: new.test granted %v; want %v", tc.argv, got, tc.granted)
		}
		if got := slices.Contains(v.Grants.DeniedHosts, "bad.test"); got != tc.deny {
			t.Errorf("%q: bad.test denied %v; want %v", tc.argv, got, tc.deny)
		}
	}
}
