package netproxy

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestConnectRelaysBothWays(t *testing.T) {
	f := newFixture(t)
	target := f.route("echo.test", 443, server(t, echo), true)
	c, br, resp := connect(t, f.p, target)
	if resp.code != 200 || resp.status != "HTTP/1.1 200 Connection established" {
		t.Fatalf("CONNECT answered %q", resp.status)
	}
	// 1 MiB each way at once: a relay that copied one direction at a time
	// would deadlock on full socket buffers.
	payload := make([]byte, 1<<20)
	rand.Read(payload)
	go func() {
		c.Write(payload)
		c.CloseWrite()
	}()
	got, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, payload) {
		t.Fatalf("echoed %d bytes, sha %x; sent %d, sha %x", len(got), sha256.Sum256(got), len(payload), sha256.Sum256(payload))
	}
	if f.askedList()[0] != "echo.test:443" || !slices.Equal(f.dialedList(), []string{"echo.test:443"}) {
		t.Errorf("asked %q, dialed %q", f.askedList(), f.dialedList())
	}
}

func TestConnectHalfClose(t *testing.T) {
	// The server speaks first and ends its direction; the client reads
	// the end, then still sends, and the server receives it: each half
	// close crosses the proxy without ending the other direction.
	received := make(chan string, 1)
	srv := server(t, func(c net.Conn) {
		io.WriteString(c, "hello from the server")
		c.(*net.TCPConn).CloseWrite()
		b, _ := io.ReadAll(c)
		received <- string(b)
	})
	f := newFixture(t)
	target := f.route("half.test", 8443, srv, true)
	c, br, resp := connect(t, f.p, target)
	if resp.code != 200 {
		t.Fatalf("CONNECT answered %q", resp.status)
	}
	got, err := io.ReadAll(br)
	if err != nil || string(got) != "hello from the server" {
		t.Fatalf("read %q, %v; want the server's greeting then the end", got, err)
	}
	io.WriteString(c, "the client still talks")
	c.CloseWrite()
	select {
	case s := <-received:
		if s != "the client still talks" {
			t.Fatalf("the server received %q", s)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the client's half close never reached the server")
	}
}

func TestConnectForwardsBytesSentWithTheRequest(t *testing.T) {
	// A client may send its first bytes (a TLS ClientHello) in the same
	// packet as CONNECT, before the 200: they must not be lost.
	f := newFixture(t)
	target := f.route("echo.test", 443, server(t, echo), true)
	c := dialProxy(t, f.p)
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\n\r\nearly bytes", target)
	c.CloseWrite()
	br := bufio.NewReader(c)
	if resp := readResponse(t, br); resp.code != 200 {
		t.Fatalf("CONNECT answered %q", resp.status)
	}
	got, _ := io.ReadAll(br)
	if string(got) != "early bytes" {
		t.Fatalf("echoed %q, want %q", got, "early bytes")
	}
}

func TestConnectRefused(t *testing.T) {
	f := newFixture(t)
	f.route("granted.test", 443, server(t, echo), true)
	f.route("denied.test", 443, server(t, echo), false)
	for i := 0; i < 2; i++ {
		_, _, resp := connect(t, f.p, "Denied.Test.:443")
		if resp.code != 403 {
			t.Fatalf("attempt %d: answered %q, want 403", i+1, resp.status)
		}
		want := "clada: the network grant of this command does not include denied.test:443\n"
		if resp.body != want {
			t.Fatalf("attempt %d: body %q, want %q", i+1, resp.body, want)
		}
		if resp.status != "HTTP/1.1 403 "+strings.TrimSpace(want) {
			t.Fatalf("attempt %d: status line %q, want the refusal as its reason phrase", i+1, resp.status)
		}
	}
	if _, _, resp := connect(t, f.p, "denied.test:8443"); resp.code != 403 {
		t.Fatalf("denied.test:8443 answered %q", resp.status)
	}
	if got, want := f.p.Refused(), []string{"denied.test:443", "denied.test:8443"}; !slices.Equal(got, want) {
		t.Errorf("Refused() = %q, want %q", got, want)
	}
	for _, d := range f.dialedList() {
		if strings.HasPrefix(d, "denied.test") {
			t.Errorf("the proxy dialed the refused %s", d)
		}
	}
	f.mu.Lock()
	logs := strings.Join(f.logs, "\n")
	f.mu.Unlock()
	if !strings.Contains(logs, "denied.test:443 is not granted") {
		t.Errorf("Log did not receive the refusal: %q", logs)
	}
}

func TestRefusalHint(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.Hint = func(host string, port int) string {
			return fmt.Sprintf("grant it: network = [%q]", host)
		}
	})
	_, _, resp := connect(t, f.p, "denied.test:443")
	want := "clada: the network grant of this command does not include denied.test:443\ngrant it: network = [\"denied.test\"]\n"
	if resp.code != 403 || resp.body != want || resp.status != "HTTP/1.1 403 clada: the network grant of this command does not include denied.test:443" {
		t.Fatalf("answered %q with %q, want 403 with %q", resp.status, resp.body, want)
	}
}

func TestConnectDialFailure(t *testing.T) {
	// Granted but unreachable: 502 naming the destination and the error.
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	f := newFixture(t)
	f.route("down.test", 443, closed, true)
	_, _, resp := connect(t, f.p, "down.test:443")
	if resp.code != 502 || !strings.Contains(resp.body, "cannot reach down.test:443") || !strings.Contains(resp.body, "refused") {
		t.Fatalf("answered %q %q, want 502 naming down.test:443 and the refusal", resp.status, resp.body)
	}
	if len(f.p.Refused()) != 0 {
		t.Errorf("a dial failure is not a refusal by Allow: Refused() = %q", f.p.Refused())
	}
}

func TestAllowSeesNormalisedHosts(t *testing.T) {
	f := newFixture(t)
	cases := []struct{ target, asked string }{
		{"Registry.NPMJS.org.:443", "registry.npmjs.org:443"},
		{"[::1]:443", "[::1]:443"},
		{"[::FFFF:127.0.0.1]:443", "127.0.0.1:443"},
		{"[0:0:0:0:0:0:0:1]:8080", "[::1]:8080"},
		{"10.0.0.1:22", "10.0.0.1:22"},
		{"under_score.test:443", "under_score.test:443"},
	}
	for _, c := range cases {
		f.mu.Lock()
		f.asked = nil
		f.mu.Unlock()
		_, _, resp := connect(t, f.p, c.target)
		if resp.code != 403 {
			t.Errorf("CONNECT %s answered %q, want 403", c.target, resp.status)
		}
		if got := f.askedList(); !slices.Equal(got, []string{c.asked}) {
			t.Errorf("CONNECT %s asked Allow %q, want %q", c.target, got, c.asked)
		}
	}
}

func TestSelfIsRefused(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Allow = func(string, int) bool { return true } })
	for _, host := range []string{"127.0.0.1", "localhost", "127.0.0.2", "[::1]"} {
		_, _, resp := connect(t, f.p, fmt.Sprintf("%s:%d", host, f.p.Port()))
		if resp.code != 400 || !strings.Contains(resp.body, "this proxy itself") {
			t.Errorf("CONNECT to the proxy through %s answered %q %q, want 400", host, resp.status, resp.body)
		}
	}
}

func TestCloseEndsTunnelsWithoutLeaks(t *testing.T) {
	srv := server(t, echo)
	before := runtime.NumGoroutine()
	f := newFixture(t)
	target := f.route("echo.test", 443, srv, true)
	var conns []*bufio.Reader
	for i := 0; i < 10; i++ {
		c, br, resp := connect(t, f.p, target)
		if resp.code != 200 {
			t.Fatalf("CONNECT answered %q", resp.status)
		}
		io.WriteString(c, "ping")
		b := make([]byte, 4)
		if _, err := io.ReadFull(br, b); err != nil || string(b) != "ping" {
			t.Fatalf("tunnel %d: %q %v", i, b, err)
		}
		conns = append(conns, br)
	}
	// One client that sent half a request, one that sent nothing, one
	// whose Allow has returned but whose request is stuck mid-body.
	idle := dialProxy(t, f.p)
	partial := dialProxy(t, f.p)
	io.WriteString(partial, "GET http://echo.test:443/ HTTP/1.1\r\n")

	done := make(chan error, 1)
	go func() { done <- f.p.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Close did not return with tunnels open")
	}
	for i, br := range conns {
		if _, err := br.ReadByte(); err == nil {
			t.Errorf("tunnel %d still delivers after Close", i)
		}
	}
	for _, c := range []net.Conn{idle, partial} {
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Error("a waiting client was not dropped by Close")
		}
	}
	if err := f.p.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	f.mu.Lock()
	logs := strings.Join(f.logs, "\n")
	f.mu.Unlock()
	if strings.Contains(logs, "accept") {
		t.Errorf("Close logged an accept error: %q", logs)
	}
	if _, err := net.Dial("tcp4", f.p.Addr()); err == nil {
		t.Error("the proxy still accepts after Close")
	}
	// Every goroutine the proxy started has ended (the echo server's
	// may take a moment to see its connections closed).
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

func TestCloseWaitsForAllow(t *testing.T) {
	// Allow blocks (a person is being asked); Close waits for it and the
	// connection is not dialed afterwards.
	release := make(chan struct{})
	entered := make(chan struct{})
	f := newFixture(t)
	f.route("slow.test", 443, server(t, echo), true)
	f.allowFn = func(string, int) bool {
		close(entered)
		<-release
		return true
	}
	c := dialProxy(t, f.p)
	io.WriteString(c, "CONNECT slow.test:443 HTTP/1.1\r\n\r\n")
	<-entered
	closed := make(chan struct{})
	go func() { f.p.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while Allow was still running")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	<-closed
	if d := f.dialedList(); len(d) != 0 {
		t.Errorf("dialed %q after Close", d)
	}
	if b, _ := io.ReadAll(c); len(b) != 0 && !strings.HasPrefix(string(b), "HTTP/1.1 502") {
		t.Errorf("the client got %q after Close", b)
	}
}

func TestConcurrentClients(t *testing.T) {
	f := newFixture(t)
	tunnel := f.route("echo.test", 443, server(t, echo), true)
	origin := f.route("origin.test", 80, server(t, rawOrigin), true)
	_ = origin
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp4", f.p.Addr())
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(30 * time.Second))
			br := bufio.NewReader(c)
			msg := fmt.Sprintf("client %d", i)
			if i%2 == 0 {
				fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\n\r\n", tunnel)
				status, _ := br.ReadString('\n')
				br.ReadString('\n')
				if !strings.HasPrefix(status, "HTTP/1.1 200") {
					errs <- fmt.Errorf("%s: %q", msg, status)
					return
				}
				io.WriteString(c, msg)
				c.(*net.TCPConn).CloseWrite()
			} else {
				fmt.Fprintf(c, "GET http://origin.test/%d HTTP/1.1\r\nHost: origin.test\r\n\r\n", i)
			}
			all, err := io.ReadAll(br)
			if err != nil {
				errs <- fmt.Errorf("%s: %v", msg, err)
				return
			}
			want := msg
			if i%2 == 1 {
				want = fmt.Sprintf("GET /%d HTTP/1.1", i)
			}
			if !strings.Contains(string(all), want) {
				errs <- fmt.Errorf("%s: got %q, want it to contain %q", msg, all, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestEnv(t *testing.T) {
	f := newFixture(t)
	u := f.p.URL()
	if u != fmt.Sprintf("http://127.0.0.1:%d", f.p.Port()) || f.p.Addr() != fmt.Sprintf("127.0.0.1:%d", f.p.Port()) {
		t.Fatalf("URL %q, Addr %q, Port %d", u, f.p.Addr(), f.p.Port())
	}
	want := []string{
		"HTTP_PROXY=" + u, "HTTPS_PROXY=" + u, "ALL_PROXY=" + u,
		"http_proxy=" + u, "https_proxy=" + u, "all_proxy=" + u,
		"NO_PROXY=", "no_proxy=",
		"npm_config_proxy=" + u, "npm_config_https_proxy=" + u,
		"YARN_HTTP_PROXY=" + u, "YARN_HTTPS_PROXY=" + u,
		"NODE_USE_ENV_PROXY=1",
	}
	if got := f.p.Env(); !slices.Equal(got, want) {
		t.Errorf("Env() = %q, want %q", got, want)
	}
	// And the proxy is at that address.
	c, err := net.Dial("tcp4", strings.TrimPrefix(u, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

func TestStartRequiresAllow(t *testing.T) {
	if _, err := Start(Options{}); err == nil || !strings.Contains(err.Error(), "Allow") {
		t.Fatalf("Start without Allow: %v", err)
	}
}

func TestRefusalLingers(t *testing.T) {
	// After a refusal the proxy closes its writing half and still reads
	// for a moment: a client that sends its body late (after reading the
	// refusal, or before, as most do) meets no connection reset, which on
	// some systems destroys the answer before the client reads it.
	f := newFixture(t)
	c := dialProxy(t, f.p)
	io.WriteString(c, "POST http://denied.test/upload HTTP/1.1\r\nContent-Length: 102400\r\n\r\n")
	br := bufio.NewReader(c)
	resp := readResponse(t, br)
	if resp.code != 403 || !strings.Contains(resp.body, "does not include denied.test:80") {
		t.Fatalf("answered %q %q", resp.status, resp.body)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("after the answer: %v, want the end of the stream", err)
	}
	chunk := make([]byte, 10<<10)
	for i := 0; i < 10; i++ {
		if _, err := c.Write(chunk); err != nil {
			t.Fatalf("writing the body, chunk %d: %v", i, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestOverlappingRequestsAskOnce(t *testing.T) {
	// Ten connections to a new host while Allow is deciding (a person is
	// being asked): one call, and all ten get its answer.
	release := make(chan bool)
	var calls sync.WaitGroup
	calls.Add(1)
	var mu sync.Mutex
	n := 0
	f := newFixture(t)
	f.route("new.test", 443, server(t, echo), false)
	f.allowFn = func(host string, port int) bool {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			calls.Done()
		}
		return <-release
	}
	type result struct {
		code int
		err  error
	}
	results := make(chan result, 10)
	for i := 0; i < 10; i++ {
		go func() {
			c, err := net.Dial("tcp4", f.p.Addr())
			if err != nil {
				results <- result{err: err}
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(20 * time.Second))
			io.WriteString(c, "CONNECT new.test:443 HTTP/1.1\r\n\r\n")
			status, err := bufio.NewReader(c).ReadString('\n')
			var code int
			fmt.Sscanf(status, "HTTP/1.1 %d", &code)
			results <- result{code, err}
		}()
	}
	calls.Wait()
	// Let the other nine requests arrive while the first is deciding (a
	// request that arrived after the answer would ask again).
	deadline := time.Now().Add(15 * time.Second)
	for {
		f.p.mu.Lock()
		w := f.p.deciding["new.test:443"].waiters
		f.p.mu.Unlock()
		if w == 9 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests wait for the first one's answer, want 9", w)
		}
		time.Sleep(5 * time.Millisecond)
	}
	release <- true
	for i := 0; i < 10; i++ {
		r := <-results
		if r.err != nil || r.code != 200 {
			t.Errorf("a client got %d, %v", r.code, r.err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if n != 1 {
		t.Errorf("Allow was called %d times for overlapping requests, want 1", n)
	}
}

func TestRefusedIsBounded(t *testing.T) {
	f := newFixture(t)
	for i := 0; i < maxRefused+5; i++ {
		if _, _, resp := connect(t, f.p, fmt.Sprintf("h%d.test:443", i)); resp.code != 403 {
			t.Fatalf("h%d.test answered %q", i, resp.status)
		}
	}
	connect(t, f.p, "h0.test:443") // already listed: not omitted
	got := f.p.Refused()
	if len(got) != maxRefused || got[0] != "h0.test:443" || got[maxRefused-1] != fmt.Sprintf("h%d.test:443", maxRefused-1) {
		t.Errorf("Refused() has %d entries, from %q to %q", len(got), got[0], got[len(got)-1])
	}
	if n := f.p.RefusedOmitted(); n != 5 {
		t.Errorf("RefusedOmitted() = %d, want 5", n)
	}
}
