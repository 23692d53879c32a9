package netproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fixture is a proxy whose Dial maps test host names to loopback ports
// and whose Allow grants a fixed set of host:port, recording its calls.
type fixture struct {
	p *Proxy

	mu      sync.Mutex
	names   map[string]string // "name:port" -> "127.0.0.1:realport"
	grants  map[string]bool   // "host:port" as Allow sees it
	asked   []string
	logs    []string
	dialed  []string
	allowFn func(host string, port int) bool
}

type fixtureOption func(*Options)

func newFixture(tb testing.TB, opts ...fixtureOption) *fixture {
	tb.Helper()
	f := &fixture{names: map[string]string{}, grants: map[string]bool{}}
	o := Options{
		Allow: func(host string, port int) bool {
			hp := net.JoinHostPort(host, strconv.Itoa(port))
			f.mu.Lock()
			f.asked = append(f.asked, hp)
			fn := f.allowFn
			ok := f.grants[hp]
			f.mu.Unlock()
			if fn != nil {
				return fn(host, port)
			}
			return ok
		},
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			f.mu.Lock()
			f.dialed = append(f.dialed, addr)
			real, ok := f.names[addr]
			f.mu.Unlock()
			if !ok {
				return nil, fmt.Errorf("test dialer: no mapping for %s", addr)
			}
			var d net.Dialer
			return d.DialContext(ctx, network, real)
		},
		Log: func(s string) {
			f.mu.Lock()
			f.logs = append(f.logs, s)
			f.mu.Unlock()
		},
	}
	for _, opt := range opts {
		opt(&o)
	}
	p, err := Start(o)
	if err != nil {
		tb.Fatal(err)
	}
	f.p = p
	tb.Cleanup(func() { p.Close() })
	return f
}

// route makes name:port reach the listener at addr, and grants it.
func (f *fixture) route(name string, port int, addr string, grant bool) string {
	hp := net.JoinHostPort(name, strconv.Itoa(port))
	f.mu.Lock()
	defer f.mu.Unlock()
	f.names[hp] = addr
	if grant {
		f.grants[hp] = true
	}
	return hp
}

func (f *fixture) askedList() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

func (f *fixture) dialedList() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.dialed...)
}

// server is a TCP listener on loopback that runs handle for each
// connection (and closes it after).
func server(tb testing.TB, handle func(net.Conn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var wg sync.WaitGroup
	tb.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return ln.Addr().String()
}

// echo copies everything back, then half-closes.
func echo(c net.Conn) {
	io.Copy(c, c)
	c.(*net.TCPConn).CloseWrite()
	// Wait for the peer to close so that the half close is observed.
	io.Copy(io.Discard, c)
}

// dialProxy connects to the proxy with a deadline against hangs.
func dialProxy(tb testing.TB, p *Proxy) *net.TCPConn {
	tb.Helper()
	c, err := net.Dial("tcp4", p.Addr())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	return c.(*net.TCPConn)
}

// response is a parsed answer of the proxy.
type response struct {
	code   int
	status string
	header map[string][]string // lower-case names
	body   string
}

// readResponse reads a status line and headers, and a body of
// Content-Length bytes when there is one (none after a 200 to CONNECT).
func readResponse(tb testing.TB, br *bufio.Reader) response {
	tb.Helper()
	status, err := br.ReadString('\n')
	if err != nil {
		tb.Fatalf("reading the status line: %v (got %q)", err, status)
	}
	r := response{status: strings.TrimRight(status, "\r\n"), header: map[string][]string{}}
	if _, err := fmt.Sscanf(r.status, "HTTP/1.1 %d", &r.code); err != nil {
		tb.Fatalf("status line %q: %v", r.status, err)
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			tb.Fatalf("reading headers: %v", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		k, v, _ := strings.Cut(line, ":")
		k = strings.ToLower(k)
		r.header[k] = append(r.header[k], strings.TrimSpace(v))
	}
	if cl := r.header["content-length"]; len(cl) == 1 {
		n, _ := strconv.Atoi(cl[0])
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			tb.Fatalf("reading the body: %v", err)
		}
		r.body = string(b)
	}
	return r
}

// connect opens a CONNECT tunnel to hostport and returns the connection,
// its reader and the proxy's answer.
func connect(tb testing.TB, p *Proxy, hostport string) (*net.TCPConn, *bufio.Reader, response) {
	tb.Helper()
	c := dialProxy(tb, p)
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", hostport, hostport)
	br := bufio.NewReader(c)
	return c, br, readResponse(tb, br)
}

// raw sends bytes to the proxy and returns its answer.
func raw(tb testing.TB, p *Proxy, req string) response {
	tb.Helper()
	c := dialProxy(tb, p)
	if _, err := io.WriteString(c, req); err != nil {
		tb.Fatal(err)
	}
	return readResponse(tb, bufio.NewReader(c))
}
