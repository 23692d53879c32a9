//go:build unix

package netproxy

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// listenerFile is a listening socket on 127.0.0.1 as a file, as the
// sandbox hands one over from a command's network namespace, and its
// address.
func listenerFile(t *testing.T) (*os.File, string) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close() // the file is a duplicate, which keeps listening
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	return f, ln.Addr().String()
}

// TestServeFile: the proxy serves a listener it is given as it serves its
// own (grants, refusals and all), owns the file from then on, and Close
// stops it too.
func TestServeFile(t *testing.T) {
	f := newFixture(t)
	target := f.route("echo.test", 443, server(t, echo), true)
	file, addr := listenerFile(t)
	if err := f.p.ServeFile(file); err != nil {
		t.Fatal(err)
	}
	if err := file.Close(); err == nil {
		t.Error("ServeFile left the file open")
	}
	through := func(hostport string) (*bufio.Reader, response) {
		c, err := net.Dial("tcp4", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(20 * time.Second))
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", hostport, hostport)
		fmt.Fprint(c, "ping\n")
		br := bufio.NewReader(c)
		return br, readResponse(t, br)
	}
	br, resp := through(target)
	if resp.code != 200 {
		t.Fatalf("CONNECT through the given listener: %q", resp.status)
	}
	if line, err := br.ReadString('\n'); line != "ping\n" {
		t.Errorf("echo through the given listener: %q, %v", line, err)
	}
	if _, resp := through("evil.test:443"); resp.code != 403 {
		t.Errorf("an ungranted host through the given listener: %q", resp.status)
	}
	if got := f.p.Refused(); !slices.Equal(got, []string{"evil.test:443"}) {
		t.Errorf("Refused = %q", got)
	}
	// Without its own listener, the proxy serves the given one alone.
	if err := f.p.CloseLoopback(); err != nil {
		t.Fatal(err)
	}
	if c, err := net.DialTimeout("tcp4", f.p.Addr(), 5*time.Second); err == nil {
		c.Close()
		t.Error("the proxy's own listener still accepts after CloseLoopback")
	}
	if _, resp := through(target); resp.code != 200 {
		t.Errorf("CONNECT through the given listener after CloseLoopback: %q", resp.status)
	}
	if err := f.p.Close(); err != nil {
		t.Errorf("Close after CloseLoopback: %v", err)
	}
	if c, err := net.DialTimeout("tcp4", addr, 5*time.Second); err == nil {
		c.Close()
		t.Error("the given listener still accepts after Close")
	}
	// After Close, and for what is not a listening socket: an error,
	// and the file closed.
	late, _ := listenerFile(t)
	if err := f.p.ServeFile(late); err == nil {
		t.Error("ServeFile after Close succeeded")
	}
	if err := late.Close(); err == nil {
		t.Error("ServeFile after Close left the file open")
	}
	g := newFixture(t)
	plain, err := os.Create(filepath.Join(t.TempDir(), "plain"))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.p.ServeFile(plain); err == nil {
		t.Error("ServeFile of a regular file succeeded")
	}
}
