package netproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"testing"
)

// sink reads everything, then answers with the count of bytes read.
func sink(c net.Conn) {
	buf := make([]byte, 1<<20)
	n := 0
	for {
		m, err := c.Read(buf)
		n += m
		if err != nil {
			break
		}
	}
	fmt.Fprintf(c, "%d", n)
}

// BenchmarkTunnelThroughput sends b.N chunks of 1 MiB through one CONNECT
// tunnel; "MB/s" is the figure. BenchmarkDirectThroughput is the same
// without the proxy, for comparison.
func BenchmarkTunnelThroughput(b *testing.B) {
	f := newFixture(b)
	target := f.route("sink.test", 443, server(b, sink), true)
	c, br, resp := connect(b, f.p, target)
	if resp.code != 200 {
		b.Fatalf("CONNECT answered %q", resp.status)
	}
	throughput(b, c, br)
}

func BenchmarkDirectThroughput(b *testing.B) {
	c, err := net.Dial("tcp4", server(b, sink))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	throughput(b, c.(*net.TCPConn), bufio.NewReader(c))
}

func throughput(b *testing.B, c *net.TCPConn, br *bufio.Reader) {
	chunk := make([]byte, 1<<20)
	b.SetBytes(int64(len(chunk)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Write(chunk); err != nil {
			b.Fatal(err)
		}
	}
	c.CloseWrite()
	got, err := io.ReadAll(br)
	b.StopTimer()
	if err != nil || string(got) != fmt.Sprint(b.N*len(chunk)) {
		b.Fatalf("the sink read %q bytes (%v), want %d", got, err, b.N*len(chunk))
	}
}

// BenchmarkConnectSetup is one tunnel per op: connect to the proxy,
// CONNECT, read the 200, one byte there and back, close. "ns/op" is the
// setup latency a package manager pays per connection (before TLS).
// BenchmarkDirectSetup is a direct connection and the same byte.
func BenchmarkConnectSetup(b *testing.B) {
	f := newFixture(b)
	target := f.route("echo.test", 443, server(b, echo), true)
	req := []byte("CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n")
	const ok = "HTTP/1.1 200 Connection established\r\n\r\n"
	buf := make([]byte, len(ok)+1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := net.Dial("tcp4", f.p.Addr())
		if err != nil {
			b.Fatal(err)
		}
		c.Write(req)
		if _, err := io.ReadFull(c, buf[:len(ok)]); err != nil || string(buf[:len(ok)]) != ok {
			b.Fatalf("CONNECT answered %q, %v", buf, err)
		}
		c.Write([]byte{'x'})
		if _, err := io.ReadFull(c, buf[:1]); err != nil || buf[0] != 'x' {
			b.Fatalf("echo %q, %v", buf[:1], err)
		}
		c.Close()
	}
}

func BenchmarkDirectSetup(b *testing.B) {
	addr := server(b, echo)
	buf := make([]byte, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := net.Dial("tcp4", addr)
		if err != nil {
			b.Fatal(err)
		}
		c.Write([]byte{'x'})
		if _, err := io.ReadFull(c, buf); err != nil || buf[0] != 'x' {
			b.Fatalf("echo %q, %v", buf, err)
		}
		c.Close()
	}
}

// BenchmarkPlainGet is one plain HTTP request per op through the proxy to
// a small origin (request line and headers parsed and rewritten both
// ways).
func BenchmarkPlainGet(b *testing.B) {
	f := newFixture(b)
	f.route("origin.test", 80, server(b, rawOrigin), true)
	req := []byte("GET http://origin.test/index.json HTTP/1.1\r\nHost: origin.test\r\nUser-Agent: bench\r\nAccept: */*\r\n\r\n")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := net.Dial("tcp4", f.p.Addr())
		if err != nil {
			b.Fatal(err)
		}
		c.Write(req)
		all, err := io.ReadAll(c)
		if err != nil || len(all) < 12 || string(all[:12]) != "HTTP/1.1 200" {
			b.Fatalf("answer %q, %v", all, err)
		}
		c.Close()
	}
}

// BenchmarkStartClose is the cost of a proxy of its own per command
// (Allow has no notion of which command connects, so per-command grants
// mean one proxy per command).
func BenchmarkStartClose(b *testing.B) {
	for i := 0; i < b.N; i++ {
		p, err := Start(Options{Allow: func(string, int) bool { return false }})
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
