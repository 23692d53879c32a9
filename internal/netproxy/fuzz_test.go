package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// FuzzRequestHead feeds arbitrary bytes to the parser and checks what it
// accepts: a destination that is well formed, and a forwarded head that
// parses again to the same destination with one Host header and no
// proxy-only headers.
func FuzzRequestHead(f *testing.F) {
	for _, s := range []string{
		"CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: registry.npmjs.org:443\r\n\r\n",
		"GET http://example.com/a?b HTTP/1.1\r\nHost: evil\r\nConnection: X-A, close\r\nX-A: 1\r\n\r\nbody",
		"POST http://[::1]:8080/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"GET http://a@b/ HTTP/1.1\r\n\r\n",
		"GET http://127.1/ HTTP/1.1\r\n\r\n",
		"GET http://x.test/ HTTP/1.1\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n",
		"\r\n\nGET HTTP://X.TEST.:/ HTTP/1.1\nA: b\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := readHead(bufio.NewReader(bytes.NewReader(data)))
		if err != nil {
			var se *statusError
			if !errors.As(err, &se) && err != io.EOF && err != io.ErrUnexpectedEOF {
				t.Fatalf("readHead: unexpected error %v", err)
			}
			return
		}
		tg, path, err := parseTarget(h)
		if err != nil {
			if _, ok := err.(*statusError); !ok {
				t.Fatalf("parseTarget: not a statusError: %v", err)
			}
			return
		}
		checkTarget(t, tg)
		if h.method == "CONNECT" {
			return
		}
		out, _, err := rewriteRequest(h, tg, path)
		if err != nil {
			return
		}
		h2, err := readHead(bufio.NewReader(bytes.NewReader(out)))
		if err != nil {
			t.Fatalf("the forwarded head does not parse: %v\n%q", err, out)
		}
		if h2.method != h.method || h2.target != path || !strings.HasPrefix(path, "/") {
			t.Fatalf("forwarded %s %s, want %s %s", h2.method, h2.target, h.method, path)
		}
		var hosts []string
		for _, f := range h2.fields {
			switch strings.ToLower(f.name) {
			case "host":
				hosts = append(hosts, f.value)
			case "proxy-authorization", "proxy-connection", "keep-alive", "te", "trailer":
				t.Fatalf("forwarded the hop-by-hop header %s", f.name)
			}
		}
		if len(hosts) != 1 {
			t.Fatalf("forwarded Host %q", hosts)
		}
		again, err := parseAuthority(hosts[0], 80)
		if err != nil || again.host != tg.host || again.port != tg.port {
			t.Fatalf("forwarded Host %q names %v (%v), not the destination %v", hosts[0], again, err, tg)
		}
	})
}

func checkTarget(t *testing.T, tg target) {
	t.Helper()
	if tg.port < 1 || tg.port > 65535 || tg.host == "" {
		t.Fatalf("destination %v", tg)
	}
	if ip := net.ParseIP(tg.host); ip != nil {
		if ip.String() != tg.host || ip.IsUnspecified() {
			t.Fatalf("IP destination %q is not canonical or is unspecified", tg.host)
		}
		return
	}
	for _, c := range tg.host {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			t.Fatalf("destination host %q holds %q", tg.host, c)
		}
	}
	if strings.HasSuffix(tg.host, ".") || strings.Contains(tg.host, "..") {
		t.Fatalf("destination host %q is not normalised", tg.host)
	}
}

// FuzzProxy sends arbitrary bytes to a running proxy: whatever they are,
// it dials only destinations Allow approved, and answers in HTTP or
// SOCKS5 (or not at all).
func FuzzProxy(f *testing.F) {
	for _, s := range []string{
		"CONNECT good.test:80 HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n",
		"CONNECT evil.test:80 HTTP/1.1\r\n\r\n",
		"GET http://good.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n",
		"GET http://evil.test/ HTTP/1.1\r\nHost: good.test\r\n\r\n",
		"\x05\x01\x00\x05\x01\x00\x03\x09good.test\x00\x50",
		"\x05\x01\x00\x05\x01\x00\x03\x09evil.test\x00\x50",
		"\x05\x01\x00\x05\x01\x00\x01\x7f\x00\x00\x01\x00\x50",
	} {
		f.Add([]byte(s))
	}
	var mu sync.Mutex
	var approved, dialed []string
	origin := server(f, rawOrigin)
	p, err := Start(Options{
		Allow: func(host string, port int) bool {
			ok := host == "good.test"
			if ok {
				mu.Lock()
				approved = append(approved, net.JoinHostPort(host, strconv.Itoa(port)))
				mu.Unlock()
			}
			return ok
		},
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			mu.Lock()
			dialed = append(dialed, addr)
			mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, network, origin)
		},
		HeadTimeout: time.Second,
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { p.Close() })
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := net.Dial("tcp4", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		c.Write(data)
		c.(*net.TCPConn).CloseWrite()
		got, _ := io.ReadAll(c)
		if len(got) > 0 && !bytes.HasPrefix(got, []byte("HTTP/1.1 ")) && got[0] != 5 {
			t.Fatalf("answered %q", got)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, d := range dialed {
			if !slices.Contains(approved, d) {
				t.Fatalf("dialed %s, approved only %q", d, approved)
			}
		}
		approved, dialed = nil, nil
	})
}
