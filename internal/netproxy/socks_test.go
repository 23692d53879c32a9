package netproxy

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
)

// socksConnect performs a SOCKS5 handshake without authentication and a
// request with the given address type and address bytes; it returns the
// reply code.
func socksConnect(t *testing.T, p *Proxy, cmd, atyp byte, addr []byte, port int) (net.Conn, *bufio.Reader, byte) {
	t.Helper()
	c := dialProxy(t, p)
	c.Write([]byte{5, 2, 2, 0}) // offers user/password and no authentication
	br := bufio.NewReader(c)
	choice := make([]byte, 2)
	if _, err := io.ReadFull(br, choice); err != nil || choice[0] != 5 || choice[1] != 0 {
		t.Fatalf("method selection: %v %v", choice, err)
	}
	req := []byte{5, cmd, 0, atyp}
	req = append(req, addr...)
	req = binary.BigEndian.AppendUint16(req, uint16(port))
	c.Write(req)
	reply := make([]byte, 10)
	if _, err := io.ReadFull(br, reply); err != nil {
		t.Fatalf("reply: %v", err)
	}
	if reply[0] != 5 {
		t.Fatalf("reply %v", reply)
	}
	return c, br, reply[1]
}

func domain(name string) []byte { return append([]byte{byte(len(name))}, name...) }

func TestSOCKS5(t *testing.T) {
	f := newFixture(t)
	srv := server(t, echo)
	f.route("echo.test", 443, srv, true)
	f.route("denied.test", 443, srv, false)
	f.route("127.0.0.1", 7, srv, true)

	// A granted name: relayed both ways with half close.
	c, br, code := socksConnect(t, f.p, 1, 3, domain("Echo.Test."), 443)
	if code != 0 {
		t.Fatalf("granted name: reply %d", code)
	}
	io.WriteString(c, "over socks")
	c.(*net.TCPConn).CloseWrite()
	if got, _ := io.ReadAll(br); string(got) != "over socks" {
		t.Fatalf("echoed %q", got)
	}

	// A granted IPv4 literal.
	c, br, code = socksConnect(t, f.p, 1, 1, []byte{127, 0, 0, 1}, 7)
	if code != 0 {
		t.Fatalf("granted IPv4: reply %d", code)
	}
	io.WriteString(c, "v4")
	c.(*net.TCPConn).CloseWrite()
	if got, _ := io.ReadAll(br); string(got) != "v4" {
		t.Fatalf("echoed %q", got)
	}

	// Refusals.
	for i := 0; i < 2; i++ {
		if _, _, code := socksConnect(t, f.p, 1, 3, domain("denied.test"), 443); code != 2 {
			t.Errorf("refused name: reply %d, want 2 (not allowed by ruleset)", code)
		}
	}
	if _, _, code := socksConnect(t, f.p, 1, 4, net.ParseIP("::ffff:10.1.2.3"), 80); code != 2 {
		t.Errorf("refused IPv6: reply %d", code)
	}
	if got, want := f.p.Refused(), []string{"denied.test:443", "10.1.2.3:80"}; !slices.Equal(got, want) {
		t.Errorf("Refused() = %q, want %q", got, want)
	}

	// Malformed or unsupported: never asked.
	f.mu.Lock()
	f.asked = nil
	f.mu.Unlock()
	for _, c := range []struct {
		name      string
		cmd, atyp byte
		addr      []byte
		port      int
		want      byte
	}{
		{"BIND", 2, 3, domain("echo.test"), 443, 7},
		{"UDP ASSOCIATE", 3, 3, domain("echo.test"), 443, 7},
		{"unknown address type", 1, 9, nil, 443, 8},
		{"bad name", 1, 3, domain("echo test"), 443, 1},
		{"short IPv4 name", 1, 3, domain("127.1"), 443, 1},
		{"unspecified", 1, 1, []byte{0, 0, 0, 0}, 443, 1},
		{"port 0", 1, 3, domain("echo.test"), 0, 1},
		{"the proxy itself", 1, 1, []byte{127, 0, 0, 1}, f.p.Port(), 1},
	} {
		if _, _, code := socksConnect(t, f.p, c.cmd, c.atyp, c.addr, c.port); code != c.want {
			t.Errorf("%s: reply %d, want %d", c.name, code, c.want)
		}
	}
	if got := f.askedList(); len(got) != 0 {
		t.Errorf("malformed SOCKS requests reached Allow: %q", got)
	}

	// A client that offers only authentication gets "no acceptable
	// method".
	c = dialProxy(t, f.p)
	c.Write([]byte{5, 1, 2})
	if got, _ := io.ReadAll(c); string(got) != "\x05\xff" {
		t.Errorf("authentication only: got %q", got)
	}
	f.mu.Lock()
	logs := strings.Join(f.logs, "\n")
	f.mu.Unlock()
	if !strings.Contains(logs, "SOCKS5 denied.test:443: refused") {
		t.Errorf("Log: %q", logs)
	}
}
