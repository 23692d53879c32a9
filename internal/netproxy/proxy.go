package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configure a Proxy.
type Options struct {
	// Allow decides a destination: host as the client named it (a DNS
	// name, lower-cased, no trailing dot; or an IP literal without
	// brackets, in its canonical form: "::ffff:127.0.0.1" is "127.0.0.1")
	// and port. Required. It is called from many goroutines at once (but
	// once for overlapping requests for the same destination, which share
	// its answer) and may block (to ask a person): the client waits, and
	// Close waits for calls in flight.
	Allow func(host string, port int) bool
	// Dial connects to the destination (default: a net.Dialer with a 30 s
	// timeout that refuses a DNS name resolving to a loopback, link-local
	// or unspecified address, unless the name is localhost or ends in
	// .localhost). Tests map names to 127.0.0.1 ports through it.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Log, when not nil, receives one line per refused or failed request
	// (for debugging); it is called from many goroutines at once.
	Log func(string)
	// Hint, when not nil, returns a sentence appended to the refusal of a
	// destination Allow refused: how the person grants it.
	Hint func(host string, port int) string
	// HeadTimeout bounds the time a client takes to send its request line
	// and headers (or SOCKS5 greeting and request); 0 means 30 s.
	HeadTimeout time.Duration
}

// Proxy is a running proxy. Its methods are safe for concurrent use.
type Proxy struct {
	opts   Options
	ln     net.Listener
	more   []net.Listener // given by ServeFile; closed by Close
	port   int
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	lnGone  bool // CloseLoopback closed ln
	conns   map[net.Conn]struct{}
	refused []string
	seen    map[string]bool
	omitted int
	// deciding holds the calls of Allow in flight, by "host:port".
	deciding map[string]*decision

	closeOnce sync.Once
	closeErr  error
}

// Start listens on 127.0.0.1 on a free port and serves until Close.
func Start(opts Options) (*Proxy, error) {
	if opts.Allow == nil {
		return nil, errors.New("netproxy: Options.Allow is required")
	}
	if opts.Dial == nil {
		opts.Dial = defaultDial
	}
	if opts.HeadTimeout <= 0 {
		opts.HeadTimeout = 30 * time.Second
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("netproxy: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{
		opts:   opts,
		ln:     ln,
		port:   ln.Addr().(*net.TCPAddr).Port,
		ctx:    ctx,
		cancel: cancel,
		conns:  map[net.Conn]struct{}{},
		seen:   map[string]bool{},

		deciding: map[string]*decision{},
	}
	p.wg.Add(1)
	go p.serve(ln)
	return p, nil
}

// ServeFile serves the proxy on one more listening socket, f, until
// Close: a listener clada's sandbox made on 127.0.0.1:Port() in a
// command's network namespace of its own, which that command reaches
// instead of this listener (a socket stays in the namespace it was made
// in, and any thread may accept on it). ServeFile takes f over: it is
// closed, here or by Close (its duplicate, which the proxy keeps, is
// closed by Close). It fails when f is not a listening socket or the
// proxy is closed.
func (p *Proxy) ServeFile(f *os.File) error {
	ln, err := net.FileListener(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("netproxy: %w", err)
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		ln.Close()
		return errors.New("netproxy: the proxy is closed")
	}
	p.more = append(p.more, ln)
	p.wg.Add(1)
	p.mu.Unlock()
	go p.serve(ln)
	return nil
}

// Addr is "127.0.0.1:PORT".
func (p *Proxy) Addr() string { return "127.0.0.1:" + strconv.Itoa(p.port) }

// Port is the port the proxy listens on.
func (p *Proxy) Port() int { return p.port }

// URL is "http://127.0.0.1:PORT", for HTTP_PROXY and HTTPS_PROXY.
func (p *Proxy) URL() string { return "http://" + p.Addr() }

// Env returns the variables a command needs to use the proxy, as
// "NAME=value": HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and their lower-case
// forms set to URL() (libcurl, and so git, reads only the lower-case
// http_proxy); NO_PROXY and no_proxy empty, so that no destination is
// exempted from it (a command that bypasses it reaches nothing under the
// sandbox anyway, and would fail in a less clear way); npm_config_proxy
// and npm_config_https_proxy, which npm (and pnpm) read instead;
// YARN_HTTP_PROXY and YARN_HTTPS_PROXY for Yarn 2 and later; and
// NODE_USE_ENV_PROXY=1, without which Node's own fetch and https modules
// (Node 24, 22.21 and later) ignore the proxy variables.
func (p *Proxy) Env() []string {
	u := p.URL()
	return []string{
		"HTTP_PROXY=" + u, "HTTPS_PROXY=" + u, "ALL_PROXY=" + u,
		"http_proxy=" + u, "https_proxy=" + u, "all_proxy=" + u,
		"NO_PROXY=", "no_proxy=",
		"npm_config_proxy=" + u, "npm_config_https_proxy=" + u,
		"YARN_HTTP_PROXY=" + u, "YARN_HTTPS_PROXY=" + u,
		"NODE_USE_ENV_PROXY=1",
	}
}

// maxRefused bounds the list of Refused: a command that tries a million
// names must not grow clada's memory or its report without end.
const maxRefused = 256

// Refused returns the destinations Allow refused, "host:port" (an IPv6
// literal in brackets), in the order first seen, each once; at most the
// first 256 (RefusedOmitted counts the refusals after those).
func (p *Proxy) Refused() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.refused...)
}

// RefusedOmitted is the number of refusals of destinations not in
// Refused because it was full (a destination refused twice counts twice).
func (p *Proxy) RefusedOmitted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.omitted
}

// CloseLoopback stops listening on 127.0.0.1:Port() of this machine, and
// goes on serving the listeners given to ServeFile: once a command
// reaches the proxy in a network namespace of its own, nothing else needs
// its listener here, where any local process could use the command's
// grants. Port() and Env() stay what they were.
func (p *Proxy) CloseLoopback() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lnGone || p.closed {
		return nil
	}
	p.lnGone = true
	return p.ln.Close()
}

// Close stops listening, closes every open client and tunnel connection
// and waits for the proxy's goroutines (and so for Allow calls in flight).
// Later calls return the first call's result.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() {
		p.cancel()
		p.mu.Lock()
		if !p.lnGone {
			p.closeErr = p.ln.Close()
		}
		p.closed = true
		for _, ln := range p.more {
			ln.Close()
		}
		for c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p.closeErr
}

// track registers an open connection for Close; false (and the connection
// closed) when the proxy is already closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

// release closes a connection and forgets it.
func (p *Proxy) release(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

func (p *Proxy) logf(format string, a ...any) {
	if p.opts.Log != nil {
		p.opts.Log(fmt.Sprintf(format, a...))
	}
}

// serve accepts on ln until it is closed.
func (p *Proxy) serve(ln net.Listener) {
	defer p.wg.Done()
	var delay time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if p.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			// A temporary failure (out of file descriptors): wait a little
			// and go on, as net/http's server does.
			if delay == 0 {
				delay = 5 * time.Millisecond
			} else if delay < time.Second {
				delay *= 2
			}
			p.logf("netproxy: accept: %v", err)
			select {
			case <-time.After(delay):
				continue
			case <-p.ctx.Done():
				return
			}
		}
		delay = 0
		if !p.track(c) {
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.release(c)
			p.handle(c)
		}()
	}
}

// allow asks Allow and records a refusal.
//
// Calls for the same destination that overlap share one call of Allow:
// a package manager that opens a dozen connections to a new host at once
// makes a person answer once, not a dozen times. Calls that do not
// overlap each ask Allow (remembering an answer is the caller's choice).
func (p *Proxy) allow(t target) bool {
	s := t.String()
	p.mu.Lock()
	if d, ok := p.deciding[s]; ok {
		d.waiters++
		p.mu.Unlock()
		<-d.done
		return d.ok
	}
	d := &decision{done: make(chan struct{})}
	p.deciding[s] = d
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.deciding, s)
		p.mu.Unlock()
		close(d.done)
	}()
	d.ok = p.opts.Allow(t.host, t.port)
	if d.ok {
		return true
	}
	p.mu.Lock()
	switch {
	case p.seen[s]:
	case len(p.refused) < maxRefused:
		p.seen[s] = true
		p.refused = append(p.refused, s)
	default:
		p.omitted++
	}
	p.mu.Unlock()
	return false
}

// decision is a call of Allow in flight; ok is set before done closes.
type decision struct {
	done    chan struct{}
	ok      bool
	waiters int // the requests that wait for it besides the first
}

// refusal is the body of the answer to a destination Allow refused.
func (p *Proxy) refusal(t target) string {
	msg := "clada: the network grant of this command does not include " + t.String()
	if p.opts.Hint != nil {
		if h := p.opts.Hint(t.host, t.port); h != "" {
			msg += "\n" + h
		}
	}
	return msg
}

// self reports whether t is the proxy's own address: a request to it
// would loop.
func (p *Proxy) self(t target) bool {
	if t.port != p.port {
		return false
	}
	if t.host == "localhost" {
		return true
	}
	ip := net.ParseIP(t.host)
	return ip != nil && ip.IsLoopback()
}

// handle serves one client connection: one CONNECT tunnel, one plain HTTP
// request or one SOCKS5 connection.
func (p *Proxy) handle(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(p.opts.HeadTimeout))
	br := bufio.NewReaderSize(c, 4096)
	first, err := br.Peek(1)
	if err != nil {
		return
	}
	if first[0] == socksVersion {
		p.handleSOCKS(c, br)
		return
	}
	h, err := readHead(br)
	if err != nil {
		var se *statusError
		switch {
		case errors.As(err, &se):
			p.logf("netproxy: %s: %s", c.RemoteAddr(), se.msg)
			p.answer(c, se.code, "clada: "+se.msg)
		case isTimeout(err):
			p.logf("netproxy: %s: no complete request within %v", c.RemoteAddr(), p.opts.HeadTimeout)
			p.answer(c, 408, fmt.Sprintf("clada: no complete request within %v", p.opts.HeadTimeout))
		}
		return
	}
	c.SetReadDeadline(time.Time{})
	t, path, err := parseTarget(h)
	var fwd []byte
	if err == nil && h.method != "CONNECT" {
		fwd, _, err = rewriteRequest(h, t, path)
	}
	if err == nil && p.self(t) {
		err = badRequest("%s is this proxy itself", t)
	}
	if err != nil {
		se := err.(*statusError)
		p.logf("netproxy: %s %s: %s", h.method, clip(h.target), se.msg)
		p.answer(c, se.code, "clada: "+se.msg)
		return
	}
	if !p.allow(t) {
		p.logf("netproxy: %s %s: refused: %s is not granted", h.method, clip(h.target), t)
		p.answer(c, 403, p.refusal(t))
		return
	}
	up, err := p.dial(t)
	if err != nil {
		p.logf("netproxy: %s %s: %v", h.method, clip(h.target), err)
		p.answer(c, 502, fmt.Sprintf("clada: cannot reach %s: %v", t, err))
		return
	}
	defer p.release(up)
	if h.method == "CONNECT" {
		if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			return
		}
		p.relay(c, br, up, up, nil)
		return
	}
	if _, err := up.Write(fwd); err != nil {
		p.logf("netproxy: %s %s: %v", h.method, clip(h.target), err)
		p.answer(c, 502, fmt.Sprintf("clada: cannot send the request to %s: %v", t, err))
		return
	}
	upR := bufio.NewReaderSize(up, 4096)
	p.relay(c, br, up, upR, func() error {
		err := relayResponseHead(upR, c)
		if err != nil && err != errWritten {
			p.logf("netproxy: %s %s: %v", h.method, clip(h.target), err)
			// The other direction still reads the client: no lingering.
			if se, ok := err.(*statusError); ok {
				p.reply(c, se.code, "clada: "+se.msg)
			} else {
				p.reply(c, 502, fmt.Sprintf("clada: no answer from %s: %v", t, err))
			}
		}
		return err
	})
}

// dial connects to an allowed destination.
func (p *Proxy) dial(t target) (net.Conn, error) {
	if p.ctx.Err() != nil {
		return nil, errors.New("the proxy is closing")
	}
	up, err := p.opts.Dial(p.ctx, "tcp", t.String())
	if err != nil {
		return nil, err
	}
	if !p.track(up) {
		return nil, errors.New("the proxy is closing")
	}
	return up, nil
}

// answer sends a short text answer, then ends the connection gently: it
// closes its writing half and reads (for at most half a second and 256
// KiB) what the client still sends, such as the body of a refused POST.
// Closing with unread bytes would reset the connection, and a reset can
// destroy the answer before the client reads it.
func (p *Proxy) answer(c net.Conn, code int, body string) {
	if err := p.reply(c, code, body); err != nil {
		return
	}
	if cw, ok := c.(closeWriter); ok {
		cw.CloseWrite()
		c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		io.CopyN(io.Discard, c, 256<<10)
	}
}

// reply sends a short text answer.
//
// The reason phrase of the status line is the body's first line, not
// "Forbidden": most clients never show the body of a refused CONNECT, but
// Go's and Python's show the reason phrase ("Get …: clada: the network
// grant of this command does not include host:443", "Tunnel connection
// failed: 403 clada: …"), so the command's own error names the host.
func (p *Proxy) reply(c net.Conn, code int, body string) error {
	body += "\n"
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		code, reasonPhrase(code, body), len(body), body)
	return err
}

// reasonPhrase is the first line of body made fit for a status line
// (RFC 9112, 4: tabs, spaces and visible characters), at most 300 bytes;
// the standard phrase when nothing is left.
func reasonPhrase(code int, body string) string {
	line, _, _ := strings.Cut(body, "\n")
	b := []byte(line)
	for i, c := range b {
		if c < ' ' && c != '\t' || c == 0x7f {
			b[i] = ' '
		}
	}
	line = strings.TrimSpace(string(b))
	if len(line) > 300 {
		line = line[:300]
	}
	if line == "" {
		return reason(code)
	}
	return line
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// closeWriter is a connection that can end one direction (TCP, Unix).
type closeWriter interface{ CloseWrite() error }

// relay copies client→up and up→client until both directions end. When
// one direction ends cleanly, the other side's writing half is closed
// (CloseWrite), so the peer sees the end of the stream while the other
// direction goes on; when one fails, both connections are closed. prelude,
// when not nil, runs first in the up→client direction (the response head
// of a plain HTTP request); its failure ends the relay.
func (p *Proxy) relay(c net.Conn, clientR io.Reader, up net.Conn, upR io.Reader, prelude func() error) {
	done := make(chan struct{})
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(done)
		if prelude != nil {
			if err := prelude(); err != nil {
				c.Close()
				up.Close()
				return
			}
		}
		finish(c, up, copyStream(c, upR))
	}()
	finish(up, c, copyStream(up, clientR))
	<-done
}

// finish ends a direction whose copy into dst returned err.
func finish(dst, src net.Conn, err error) {
	if err == nil {
		if cw, ok := dst.(closeWriter); ok {
			cw.CloseWrite()
			return
		}
		// Without a half close the peer would never see the end: close.
	}
	dst.Close()
	src.Close()
}

// copyStream copies until the end of src; nil at a clean end.
func copyStream(dst io.Writer, src io.Reader) error {
	_, err := io.Copy(dst, src)
	return err
}
