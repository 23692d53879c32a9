package netproxy

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawOrigin answers any request with its own head as the body, and with a
// keep-alive response that the proxy must turn into Connection: close.
func rawOrigin(c net.Conn) {
	br := bufio.NewReader(c)
	var head strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		head.WriteString(line)
		if line == "\r\n" {
			break
		}
	}
	fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: %d\r\n\r\n%s", head.Len(), head.String())
}

// origin is an httptest server that records the requests it serves.
type origin struct {
	mu   sync.Mutex
	seen []*http.Request
	body [][]byte
}

func newOrigin(t *testing.T) (*origin, string) {
	o := &origin{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		o.mu.Lock()
		o.seen = append(o.seen, r)
		o.body = append(o.body, b)
		o.mu.Unlock()
		fmt.Fprintf(w, "%s %s host=%s len=%d sha=%x", r.Method, r.RequestURI, r.Host, len(b), sha256.Sum256(b))
	}))
	t.Cleanup(s.Close)
	return o, s.Listener.Addr().String()
}

func (o *origin) requests() []*http.Request {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]*http.Request(nil), o.seen...)
}

func proxyClient(t *testing.T, p *Proxy) *http.Client {
	u, err := url.Parse(p.URL())
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{Proxy: http.ProxyURL(u), ExpectContinueTimeout: 10 * time.Second}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

func TestPlainGetForwarded(t *testing.T) {
	o, addr := newOrigin(t)
	f := newFixture(t)
	f.route("origin.test", 8080, addr, true)
	f.route("origin.test", 80, addr, true)
	client := proxyClient(t, f.p)
	for _, c := range []struct{ url, want string }{
		{"http://origin.test:8080/a/b?q=1&r=%20", "GET /a/b?q=1&r=%20 host=origin.test:8080 len=0"},
		{"http://ORIGIN.test/", "GET / host=origin.test len=0"},
		{"http://origin.test?x=1", "GET /?x=1 host=origin.test len=0"},
	} {
		resp, err := client.Get(c.url)
		if err != nil {
			t.Fatalf("GET %s: %v", c.url, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(string(b), c.want) {
			t.Errorf("GET %s: %d %q, want 200 %q", c.url, resp.StatusCode, b, c.want)
		}
		if !resp.Close {
			t.Errorf("GET %s: the answer does not say Connection: close", c.url)
		}
	}
	for _, r := range o.requests() {
		if r.Header.Get("Proxy-Connection") != "" || !r.Close {
			t.Errorf("the origin got Proxy-Connection %q, Close %v", r.Header.Get("Proxy-Connection"), r.Close)
		}
	}
	if got := f.askedList(); !slices.Equal(got, []string{"origin.test:8080", "origin.test:80", "origin.test:80"}) {
		t.Errorf("Allow asked %q", got)
	}
}

func TestPlainPostWithBody(t *testing.T) {
	o, addr := newOrigin(t)
	f := newFixture(t)
	f.route("origin.test", 80, addr, true)
	client := proxyClient(t, f.p)
	body := make([]byte, 300<<10)
	rand.Read(body)
	sum := fmt.Sprintf("len=%d sha=%x", len(body), sha256.Sum256(body))
	for _, c := range []struct {
		name string
		body io.Reader
	}{
		{"Content-Length", bytes.NewReader(body)},
		// A reader of unknown length: the client sends it chunked.
		{"chunked", io.MultiReader(bytes.NewReader(body[:1000]), bytes.NewReader(body[1000:]))},
	} {
		req, _ := http.NewRequest("POST", "http://origin.test/upload", c.body)
		if c.name == "chunked" {
			req.ContentLength = -1
		}
		req.Header.Set("Expect", "100-continue")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), sum) {
			t.Errorf("%s: %d %q, want 200 with %s", c.name, resp.StatusCode, b, sum)
		}
	}
	reqs := o.requests()
	if len(reqs) != 2 || reqs[1].TransferEncoding == nil || reqs[1].TransferEncoding[0] != "chunked" {
		t.Errorf("the origin did not get the second body chunked: %v", reqs)
	}
}

func TestHostHeaderThatLies(t *testing.T) {
	good, goodAddr := newOrigin(t)
	evil, evilAddr := newOrigin(t)
	f := newFixture(t)
	f.route("good.test", 80, goodAddr, true)
	f.route("evil.test", 80, evilAddr, false)
	resp := raw(t, f.p, "GET http://good.test/x HTTP/1.1\r\nHost: evil.test\r\n\r\n")
	if resp.code != 200 || !strings.HasPrefix(resp.body, "GET /x host=good.test ") {
		t.Fatalf("answered %q %q, want good.test's answer", resp.status, resp.body)
	}
	if len(evil.requests()) != 0 || len(good.requests()) != 1 {
		t.Errorf("evil.test got %d requests, good.test %d", len(evil.requests()), len(good.requests()))
	}
	if got := f.askedList(); !slices.Equal(got, []string{"good.test:80"}) {
		t.Errorf("Allow asked %q", got)
	}
	// CONNECT ignores Host entirely.
	_, _, r := connect(t, f.p, "evil.test:80")
	if r.code != 403 {
		t.Errorf("CONNECT evil.test:80 answered %q", r.status)
	}
}

func TestHopByHopHeaders(t *testing.T) {
	f := newFixture(t)
	f.route("origin.test", 80, server(t, rawOrigin), true)
	req := "POST http://origin.test/p HTTP/1.1\r\n" +
		"Host: origin.test\r\n" +
		"Proxy-Connection: keep-alive\r\n" +
		"Proxy-Authorization: Basic c2VjcmV0\r\n" +
		"Connection: keep-alive, X-Drop, Content-Length, Upgrade, HTTP2-Settings\r\n" +
		"X-Drop: 1\r\n" +
		"Keep-Alive: 300\r\n" +
		"TE: trailers\r\n" +
		"Trailer: X-Sum\r\n" +
		"Upgrade: h2c\r\n" +
		"HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n" +
		"X-Keep: yes\r\n" +
		"Content-Length: 0\r\n" +
		"\r\n"
	resp := raw(t, f.p, req)
	if resp.code != 200 {
		t.Fatalf("answered %q", resp.status)
	}
	want := "POST /p HTTP/1.1\r\nHost: origin.test\r\nX-Keep: yes\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
	if resp.body != want {
		t.Errorf("the origin got\n%q\nwant\n%q", resp.body, want)
	}
	if got := resp.header["connection"]; !slices.Equal(got, []string{"close"}) || resp.header["keep-alive"] != nil {
		t.Errorf("the client got Connection %q, Keep-Alive %q; want close only", got, resp.header["keep-alive"])
	}
}

func TestWebSocketUpgradeRelayed(t *testing.T) {
	ws := server(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		h, err := readHead(br)
		if err != nil {
			return
		}
		var up, conn string
		for _, f := range h.fields {
			switch strings.ToLower(f.name) {
			case "upgrade":
				up = f.value
			case "connection":
				conn = f.value
			}
		}
		if up != "websocket" || conn != "Upgrade" {
			fmt.Fprintf(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
			return
		}
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
		io.Copy(c, br)
	})
	f := newFixture(t)
	f.route("ws.test", 80, ws, true)
	c := dialProxy(t, f.p)
	io.WriteString(c, "GET http://ws.test/chat HTTP/1.1\r\nHost: ws.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n")
	br := bufio.NewReader(c)
	resp := readResponse(t, br)
	if resp.code != 101 || !slices.Equal(resp.header["connection"], []string{"Upgrade"}) {
		t.Fatalf("answered %q %v, want 101 with Connection: Upgrade", resp.status, resp.header)
	}
	io.WriteString(c, "frame")
	b := make([]byte, 5)
	if _, err := io.ReadFull(br, b); err != nil || string(b) != "frame" {
		t.Fatalf("after the upgrade read %q, %v", b, err)
	}
}

func TestOriginErrors(t *testing.T) {
	f := newFixture(t)
	f.route("garbage.test", 80, server(t, func(c net.Conn) {
		bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "SSH-2.0-OpenSSH_9.6\r\n")
	}), true)
	f.route("silent.test", 80, server(t, func(c net.Conn) {
		bufio.NewReader(c).ReadString('\n')
	}), true)
	for _, c := range []struct{ host, body string }{
		{"garbage.test", "does not begin with an HTTP/1.x status line"},
		{"silent.test", "no answer from silent.test:80"},
	} {
		resp := raw(t, f.p, "GET http://"+c.host+"/ HTTP/1.1\r\n\r\n")
		if resp.code != 502 || !strings.Contains(resp.body, c.body) {
			t.Errorf("%s: answered %q %q, want 502 with %q", c.host, resp.status, resp.body, c.body)
		}
	}
}

func TestMalformedRequests(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.HeadTimeout = 5 * time.Second })
	f.route("origin.test", 80, server(t, rawOrigin), true)
	f.route("origin.test", 443, server(t, echo), true)
	cases := []struct{ name, req, want string }{
		{"origin form", "GET / HTTP/1.1\r\nHost: origin.test\r\n\r\n", "a request to the proxy itself"},
		{"asterisk", "OPTIONS * HTTP/1.1\r\n\r\n", "a request to the proxy itself"},
		{"https absolute", "GET https://origin.test/ HTTP/1.1\r\n\r\n", "goes through CONNECT"},
		{"ftp absolute", "GET ftp://origin.test/ HTTP/1.1\r\n\r\n", "neither CONNECT host:port nor an absolute http:// URL"},
		{"garbage", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", "is not METHOD TARGET HTTP/1.x"},
		{"two spaces", "GET  http://origin.test/ HTTP/1.1\r\n\r\n", "is not METHOD TARGET HTTP/1.x"},
		{"HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "is not HTTP/1.0 or HTTP/1.1"},
		{"HTTP/0.9", "GET http://origin.test/\r\n\r\n", "is not METHOD TARGET HTTP/1.x"},
		{"method not a token", "G(T http://origin.test/ HTTP/1.1\r\n\r\n", "not a token"},
		{"CONNECT without port", "CONNECT origin.test HTTP/1.1\r\n\r\n", "names no port"},
		{"CONNECT empty port", "CONNECT origin.test: HTTP/1.1\r\n\r\n", "not a number from 1 to 65535"},
		{"CONNECT port 0", "CONNECT origin.test:0 HTTP/1.1\r\n\r\n", "not a number from 1 to 65535"},
		{"CONNECT port 65536", "CONNECT origin.test:65536 HTTP/1.1\r\n\r\n", "not a number from 1 to 65535"},
		{"CONNECT port sign", "CONNECT origin.test:+443 HTTP/1.1\r\n\r\n", "not a number from 1 to 65535"},
		{"CONNECT with a path", "CONNECT origin.test:443/x HTTP/1.1\r\n\r\n", "CONNECT takes host:port"},
		{"CONNECT with userinfo", "CONNECT user@origin.test:443 HTTP/1.1\r\n\r\n", "CONNECT takes host:port"},
		{"CONNECT empty host", "CONNECT :443 HTTP/1.1\r\n\r\n", "host name is empty"},
		{"CONNECT just a dot", "CONNECT .:443 HTTP/1.1\r\n\r\n", "host name is empty"},
		{"empty label", "CONNECT origin..test:443 HTTP/1.1\r\n\r\n", "empty label"},
		{"bad character", "CONNECT origin.test%2f:443 HTTP/1.1\r\n\r\n", "only letters, digits"},
		{"unicode", "CONNECT ørigin.test:443 HTTP/1.1\r\n\r\n", "only letters, digits"},
		{"IPv6 without brackets", "CONNECT ::1:443 HTTP/1.1\r\n\r\n", "only letters, digits"},
		{"IPv6 unclosed", "CONNECT [::1:443 HTTP/1.1\r\n\r\n", "does not close"},
		{"IPv6 zone", "CONNECT [fe80::1%25eth0]:443 HTTP/1.1\r\n\r\n", "is not an IPv6 address"},
		{"IPv4 in brackets", "CONNECT [127.0.0.1]:443 HTTP/1.1\r\n\r\n", "is not an IPv6 address"},
		{"text after bracket", "CONNECT [::1]x:443 HTTP/1.1\r\n\r\n", "text after its bracket"},
		{"short IPv4", "CONNECT 127.1:443 HTTP/1.1\r\n\r\n", "neither a host name nor a dotted-quad"},
		{"decimal IPv4", "GET http://2130706433/ HTTP/1.1\r\n\r\n", "neither a host name nor a dotted-quad"},
		{"hex IPv4", "GET http://0x7f.0.0.1/ HTTP/1.1\r\n\r\n", "neither a host name nor a dotted-quad"},
		{"hex last label", "GET http://a.0x7f/ HTTP/1.1\r\n\r\n", "neither a host name nor a dotted-quad"},
		{"octal IPv4", "GET http://0177.0.0.1/ HTTP/1.1\r\n\r\n", "neither a host name nor a dotted-quad"},
		{"unspecified IPv4", "CONNECT 0.0.0.0:443 HTTP/1.1\r\n\r\n", "unspecified address"},
		{"unspecified IPv6", "CONNECT [::]:443 HTTP/1.1\r\n\r\n", "unspecified address"},
		{"userinfo", "GET http://origin.test@evil.test/ HTTP/1.1\r\n\r\n", "user information"},
		{"userinfo colon", "GET http://origin.test:80@evil.test/ HTTP/1.1\r\n\r\n", "user information"},
		{"empty authority", "GET http:///x HTTP/1.1\r\n\r\n", "host name is empty"},
		{"backslash", "GET http://origin.test\\@evil.test/ HTTP/1.1\r\n\r\n", "user information"},
		{"two Hosts", "GET http://origin.test/ HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "2 Host headers"},
		{"length and chunked", "POST http://origin.test/ HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", "both Content-Length and Transfer-Encoding"},
		{"lengths disagree", "POST http://origin.test/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", "disagree"},
		{"folded header", "GET http://origin.test/ HTTP/1.1\r\nX-A: 1\r\n  2\r\n\r\n", "folded"},
		{"space before colon", "GET http://origin.test/ HTTP/1.1\r\nHost : evil.test\r\n\r\n", "is not NAME: VALUE"},
		{"no colon", "GET http://origin.test/ HTTP/1.1\r\nHost\r\n\r\n", "is not NAME: VALUE"},
		{"NUL in a value", "GET http://origin.test/ HTTP/1.1\r\nX-A: a\x00b\r\n\r\n", "control character"},
		{"bare CR in a value", "GET http://origin.test/ HTTP/1.1\r\nX-A: a\rInjected: 1\r\n\r\n", "control character"},
		{"tab in target", "GET http://origin.test/\tx HTTP/1.1\r\n\r\n", "control character"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f.mu.Lock()
			f.asked = nil
			f.mu.Unlock()
			resp := raw(t, f.p, c.req)
			if resp.code != 400 || !strings.Contains(resp.body, c.want) || !strings.HasPrefix(resp.body, "clada: ") {
				t.Errorf("answered %q %q, want 400 with %q", resp.status, resp.body, c.want)
			}
			if got := f.askedList(); len(got) != 0 {
				t.Errorf("a malformed request reached Allow: %q", got)
			}
		})
	}
	if d := f.dialedList(); len(d) != 0 {
		t.Errorf("malformed requests dialed %q", d)
	}
}

func TestAcceptedForms(t *testing.T) {
	// What must still work: leading empty lines, bare LF line ends,
	// HTTP/1.0, an upper-case scheme, an empty port, a fragment.
	f := newFixture(t)
	raw4 := server(t, rawOrigin)
	f.route("origin.test", 80, raw4, true)
	f.route("::1", 80, raw4, true)
	f.route("::1", 8080, raw4, true)
	cases := []struct{ name, req, want string }{
		{"IPv6", "GET http://[::1]/ HTTP/1.1\r\nHost: other\r\n\r\n", "GET / HTTP/1.1\r\nHost: [::1]\r\n"},
		{"IPv6 with port", "GET http://[0::1]:8080/ HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n"},
		{"leading empty line", "\r\nGET http://origin.test/ HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\n"},
		{"bare LF", "GET http://origin.test/a HTTP/1.1\nX-A: 1\n\n", "GET /a HTTP/1.1\r\nHost: origin.test\r\nX-A: 1\r\n"},
		{"HTTP/1.0", "GET http://origin.test/ HTTP/1.0\r\n\r\n", "GET / HTTP/1.0\r\n"},
		{"upper-case scheme", "GET HTTP://origin.test/ HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\n"},
		{"empty port", "GET http://origin.test:/ HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nHost: origin.test\r\n"},
		{"fragment", "GET http://origin.test/a?b#c HTTP/1.1\r\n\r\n", "GET /a?b HTTP/1.1\r\n"},
		{"no path", "GET http://origin.test HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\n"},
		{"explicit port 80", "GET http://origin.test:80/ HTTP/1.1\r\n\r\n", "Host: origin.test:80\r\n"},
	}
	for _, c := range cases {
		resp := raw(t, f.p, c.req)
		if resp.code != 200 || !strings.Contains(resp.body, c.want) {
			t.Errorf("%s: answered %q %q, want 200 with %q", c.name, resp.status, resp.body, c.want)
		}
	}
}

func TestOversizedHead(t *testing.T) {
	f := newFixture(t)
	f.route("origin.test", 80, server(t, rawOrigin), true)
	many := strings.Repeat("X-Filler: "+strings.Repeat("a", 990)+"\r\n", 66)
	cases := []struct{ name, req string }{
		{"one long header", "GET http://origin.test/ HTTP/1.1\r\nX-Big: " + strings.Repeat("a", 70<<10) + "\r\n\r\n"},
		{"many headers", "GET http://origin.test/ HTTP/1.1\r\n" + many + "\r\n"},
		{"long request line", "GET http://origin.test/" + strings.Repeat("a", 70<<10) + " HTTP/1.1\r\n\r\n"},
		{"endless empty lines", strings.Repeat("\r\n", 33<<10)},
	}
	for _, c := range cases {
		c2 := dialProxy(t, f.p)
		// The proxy may answer and close before reading everything: write
		// in the background and ignore the write error.
		go io.WriteString(c2, c.req)
		resp := readResponse(t, bufio.NewReader(c2))
		if resp.code != 431 || !strings.Contains(resp.body, "exceed 64 KiB") {
			t.Errorf("%s: answered %q %q, want 431", c.name, resp.status, resp.body)
		}
	}
	// Just under the bound is served.
	under := "GET http://origin.test/ HTTP/1.1\r\nX-Big: " + strings.Repeat("a", 60<<10) + "\r\n\r\n"
	if resp := raw(t, f.p, under); resp.code != 200 {
		t.Errorf("a 60 KiB head answered %q", resp.status)
	}
	if len(f.askedList()) != 1 {
		t.Errorf("Allow asked %q", f.askedList())
	}
}

func TestHeadTimeout(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.HeadTimeout = 300 * time.Millisecond })
	silent := dialProxy(t, f.p)
	if b, err := io.ReadAll(silent); err != nil || len(b) != 0 {
		t.Errorf("a silent client got %q, %v; want the connection closed", b, err)
	}
	partial := dialProxy(t, f.p)
	io.WriteString(partial, "GET http://origin.test/ HTTP/1.1\r\nX-A: 1\r\n")
	resp := readResponse(t, bufio.NewReader(partial))
	if resp.code != 408 {
		t.Errorf("a client that stopped mid-head got %q, want 408", resp.status)
	}
	// A slow client that trickles bytes is bounded by the same deadline.
	slow := dialProxy(t, f.p)
	go func() {
		for i := 0; i < 100; i++ {
			if _, err := io.WriteString(slow, "X"); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	if resp := readResponse(t, bufio.NewReader(slow)); resp.code != 408 {
		t.Errorf("a trickling client got %q, want 408", resp.status)
	}
}

func TestNoNetHTTP(t *testing.T) {
	// clada's main binary must not link net/http (.ci/run checks it for
	// cmd/clada); this package is linked into it.
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "net/http" || strings.HasPrefix(dep, "net/http/") {
			t.Errorf("netproxy depends on %s", dep)
		}
	}
}

func TestDialsOnlyWhatAllowApproved(t *testing.T) {
	// Whatever the client writes, the proxy asks Allow about one
	// destination, read as RFC 3986 reads the URL (the authority ends at
	// the first '/', '?' or '#'), and dials exactly that destination, or
	// nothing when Allow refuses. A Host header never counts.
	cases := []struct{ req, asked string }{
		{"GET http://evil.test#@good.test/ HTTP/1.1\r\nHost: good.test\r\n\r\n", "evil.test:80"},
		{"GET http://evil.test?@good.test/ HTTP/1.1\r\n\r\n", "evil.test:80"},
		{"GET http://good.test:80:90/ HTTP/1.1\r\n\r\n", ""},
		{"GET http://good.test:8080/http://evil.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n", "good.test:8080"},
		{"GET http://[::1]:8080/ HTTP/1.1\r\n\r\n", "[::1]:8080"},
		{"GET http://GOOD.test./ HTTP/1.1\r\n\r\n", "good.test:80"},
		{"GET http://good.test/ HTTP/1.1\r\nHost: evil.test\r\nX-Forwarded-Host: evil.test\r\n\r\n", "good.test:80"},
		{"CONNECT good.test:443@evil.test:80 HTTP/1.1\r\n\r\n", ""},
		{"CONNECT [::ffff:7f00:1]:22 HTTP/1.1\r\n\r\n", "127.0.0.1:22"},
		{"CONNECT good.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n\r\n", "good.test:443"},
	}
	for _, allow := range []bool{true, false} {
		f := newFixture(t)
		f.allowFn = func(string, int) bool { return allow }
		for _, c := range cases {
			f.mu.Lock()
			f.asked, f.dialed = nil, nil
			f.mu.Unlock()
			resp := raw(t, f.p, c.req)
			asked, dialed := f.askedList(), f.dialedList()
			var want []string
			if c.asked != "" {
				want = []string{c.asked}
			}
			if !slices.Equal(asked, want) {
				t.Errorf("%q: Allow asked %q, want %q", c.req, asked, want)
			}
			switch {
			case c.asked == "" && resp.code != 400:
				t.Errorf("%q: answered %q, want 400", c.req, resp.status)
			case allow && !slices.Equal(dialed, want):
				t.Errorf("%q: Allow approved %q, the proxy dialed %q", c.req, asked, dialed)
			case !allow && len(dialed) > 0:
				t.Errorf("%q: refused, yet dialed %q", c.req, dialed)
			case !allow && c.asked != "" && resp.code != 403:
				t.Errorf("%q: refused, answered %q", c.req, resp.status)
			}
		}
	}
}

func TestPipelinedRequestStaysWithItsDestination(t *testing.T) {
	// A second request sent on the same connection is relayed as bytes
	// to the first request's origin: it never reaches its own host, and
	// Allow is never asked about it.
	_, goodAddr := newOrigin(t)
	evil, evilAddr := newOrigin(t)
	f := newFixture(t)
	f.route("good.test", 80, goodAddr, true)
	f.route("evil.test", 80, evilAddr, true)
	c := dialProxy(t, f.p)
	io.WriteString(c, "POST http://good.test/a HTTP/1.1\r\nContent-Length: 2\r\n\r\nhiGET http://evil.test/b HTTP/1.1\r\nHost: evil.test\r\n\r\n")
	all, _ := io.ReadAll(c)
	if !strings.Contains(string(all), "POST /a host=good.test len=2") {
		t.Errorf("the answer %q", all)
	}
	if len(evil.requests()) != 0 {
		t.Errorf("evil.test got %d requests", len(evil.requests()))
	}
	if got := f.askedList(); !slices.Equal(got, []string{"good.test:80"}) {
		t.Errorf("Allow asked %q", got)
	}
}

func TestReasonPhrase(t *testing.T) {
	for _, c := range []struct {
		code       int
		body, want string
	}{
		{403, "clada: no\nsecond line", "clada: no"},
		{400, "clada: a\x00b\rc\td", "clada: a b c\td"},
		{502, "", "Bad Gateway"},
		{502, "\n", "Bad Gateway"},
		{400, strings.Repeat("x", 400), strings.Repeat("x", 300)},
	} {
		if got := reasonPhrase(c.code, c.body); got != c.want {
			t.Errorf("reasonPhrase(%d, %q) = %q, want %q", c.code, c.body, got, c.want)
		}
	}
}
