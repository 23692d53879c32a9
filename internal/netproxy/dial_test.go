package netproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

func TestCheckResolved(t *testing.T) {
	for _, c := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:80", false},
		{"127.0.1.1:80", false},
		{"[::1]:443", false},
		{"0.0.0.0:80", false},
		{"[::]:80", false},
		{"169.254.169.254:80", false}, // cloud metadata
		{"[fe80::1]:80", false},
		{"[::ffff:127.0.0.1]:80", false},
		{"10.0.0.1:443", true}, // a company registry
		{"192.168.1.10:443", true},
		{"93.184.215.14:443", true},
		{"[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:443", true},
	} {
		err := checkResolved("registry.test", c.addr)
		if (err == nil) != c.ok {
			t.Errorf("registry.test resolving to %s: %v, want allowed %v", c.addr, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "registry.test resolves to") {
			t.Errorf("the error does not name the host: %v", err)
		}
	}
}

func TestDefaultDial(t *testing.T) {
	srv := server(t, echo)
	_, port, _ := net.SplitHostPort(srv)
	ctx := context.Background()
	// An IP literal and localhost are dialed as Allow saw them.
	for _, host := range []string{"127.0.0.1", "localhost"} {
		c, err := defaultDial(ctx, "tcp", net.JoinHostPort(host, port))
		if err != nil {
			t.Errorf("defaultDial %s: %v", host, err)
			continue
		}
		c.Close()
	}
	// Through the proxy with the default dialer.
	p, err := Start(Options{Allow: func(host string, _ int) bool { return host == "localhost" }})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, br, resp := connect(t, p, "localhost:"+port)
	if resp.code != 200 {
		t.Fatalf("CONNECT localhost answered %q", resp.status)
	}
	io.WriteString(c, "x")
	c.CloseWrite()
	if b, _ := io.ReadAll(br); string(b) != "x" {
		t.Errorf("echoed %q", b)
	}
}

func TestCloseCancelsDialInFlight(t *testing.T) {
	// A dial in flight when Close comes is cancelled: an address that
	// never answers (TEST-NET-1, RFC 5737) would otherwise hold Close for
	// the 30 s dial timeout.
	started := make(chan struct{}, 1)
	p, err := Start(Options{
		Allow: func(string, int) bool { return true },
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := dialProxy(t, p)
	io.WriteString(c, "CONNECT 192.0.2.1:443 HTTP/1.1\r\n\r\n")
	<-started
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("Close waited for a dial in flight")
	}
}

func Test100ContinueForwarded(t *testing.T) {
	// The origin answers 100 Continue and waits for the body; the client
	// waits for the 100 before it sends the body. Holding the interim
	// answer back would deadlock them.
	got := make(chan string, 1)
	srv := server(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		if _, err := readHead(br); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n")
		b := make([]byte, 4)
		io.ReadFull(br, b)
		got <- string(b)
		io.WriteString(c, "HTTP/1.1 201 Created\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok")
	})
	f := newFixture(t)
	f.route("origin.test", 80, srv, true)
	c := dialProxy(t, f.p)
	io.WriteString(c, "PUT http://origin.test/x HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
	br := bufio.NewReader(c)
	interim := readResponse(t, br)
	if interim.code != 100 {
		t.Fatalf("first answer %q, want 100", interim.status)
	}
	io.WriteString(c, "body")
	final := readResponse(t, br)
	if final.code != 201 || final.body != "ok" || fmt.Sprint(final.header["connection"]) != "[close]" {
		t.Fatalf("final answer %q %v %q", final.status, final.header, final.body)
	}
	if b := <-got; b != "body" {
		t.Errorf("the origin got %q", b)
	}
}
