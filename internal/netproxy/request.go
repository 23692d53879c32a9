package netproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
)

// maxHead bounds the request line and headers of a request (and the
// status line and headers of an origin's response) together.
const maxHead = 64 << 10

// statusError is a refusal of a malformed request: the status the client
// gets and the sentence of its body.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string { return fmt.Sprintf("%d %s: %s", e.code, reason(e.code), e.msg) }

func badRequest(format string, a ...any) error {
	return &statusError{code: 400, msg: fmt.Sprintf(format, a...)}
}

var errHeadTooLarge = &statusError{code: 431, msg: fmt.Sprintf("the request line and headers exceed %d KiB", maxHead>>10)}

// reason is the reason phrase of the statuses the proxy sends.
func reason(code int) string {
	switch code {
	case 200:
		return "Connection established"
	case 400:
		return "Bad Request"
	case 403:
		return "Forbidden"
	case 408:
		return "Request Timeout"
	case 431:
		return "Request Header Fields Too Large"
	case 501:
		return "Not Implemented"
	case 502:
		return "Bad Gateway"
	}
	return "Error"
}

// field is one header line as the client sent it.
type field struct{ name, value string }

// head is a parsed request line and its headers.
type head struct {
	method, target, proto string
	fields                []field
}

// readLine reads one line ending in LF (an optional CR before it is
// dropped), charging its length to *budget; errHeadTooLarge when the
// budget runs out.
func readLine(br *bufio.Reader, budget *int) (string, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		*budget -= len(chunk)
		if *budget < 0 {
			return "", errHeadTooLarge
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return "", err
		}
		break
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return string(line), nil
}

// readHead reads a request line and its headers, at most maxHead bytes,
// leaving br at the first byte of the body. A head cut short by the end of
// the stream is an error wrapping io.EOF or io.ErrUnexpectedEOF.
func readHead(br *bufio.Reader) (*head, error) {
	budget := maxHead
	var line string
	var err error
	// RFC 9112, 2.2: ignore empty lines before the request line.
	for {
		line, err = readLine(br, &budget)
		if err != nil {
			return nil, err
		}
		if line != "" {
			break
		}
	}
	h, err := parseRequestLine(line)
	if err != nil {
		return nil, err
	}
	for {
		line, err = readLine(br, &budget)
		if err != nil {
			return nil, unexpected(err)
		}
		if line == "" {
			return h, nil
		}
		f, err := parseField(line)
		if err != nil {
			return nil, err
		}
		h.fields = append(h.fields, f)
	}
}

// unexpected turns the end of the stream inside a head into
// io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func parseRequestLine(line string) (*head, error) {
	parts := strings.Split(line, " ")
	if len(parts) != 3 {
		return nil, badRequest("the request line %q is not METHOD TARGET HTTP/1.x", clip(line))
	}
	h := &head{method: parts[0], target: parts[1], proto: parts[2]}
	if !isToken(h.method) {
		return nil, badRequest("the method %q is not a token", clip(h.method))
	}
	if h.proto != "HTTP/1.1" && h.proto != "HTTP/1.0" {
		return nil, badRequest("the protocol %q is not HTTP/1.0 or HTTP/1.1", clip(h.proto))
	}
	if h.target == "" {
		return nil, badRequest("the request target is empty")
	}
	for i := 0; i < len(h.target); i++ {
		if c := h.target[i]; c <= ' ' || c == 0x7f {
			return nil, badRequest("the request target holds the control character %q", c)
		}
	}
	return h, nil
}

func parseField(line string) (field, error) {
	if line[0] == ' ' || line[0] == '\t' {
		return field{}, badRequest("a header is folded over lines (obsolete line folding)")
	}
	name, value, ok := strings.Cut(line, ":")
	if !ok || !isToken(name) {
		return field{}, badRequest("the header line %q is not NAME: VALUE", clip(line))
	}
	value = strings.Trim(value, " \t")
	for i := 0; i < len(value); i++ {
		if c := value[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return field{}, badRequest("the header %s holds the control character %q", name, c)
		}
	}
	return field{name: name, value: value}, nil
}

// clip shortens what a refusal quotes of the client's bytes.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// isToken reports whether s is an HTTP token (RFC 9110, 5.6.2).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// target is a destination: a normalised host and a port.
type target struct {
	host string // lower-case DNS name without trailing dot, or canonical IP literal without brackets
	port int
	// explicitPort records that the client wrote the port.
	explicitPort bool
}

// String is host:port, with brackets around an IPv6 literal.
func (t target) String() string { return net.JoinHostPort(t.host, strconv.Itoa(t.port)) }

// hostHeader is the Host header for the destination: the port only when
// the client wrote it.
func (t target) hostHeader() string {
	if t.explicitPort {
		return t.String()
	}
	if strings.IndexByte(t.host, ':') >= 0 {
		return "[" + t.host + "]"
	}
	return t.host
}

// parseAuthority parses host[:port] or [IPv6][:port]. defaultPort 0 means
// the port is required.
func parseAuthority(a string, defaultPort int) (target, error) {
	var rawHost, rawPort string
	hasPort := false
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return target{}, badRequest("the address %q opens a bracket it does not close", clip(a))
		}
		rawHost, rest := a[1:end], a[end+1:]
		if rest != "" {
			if rest[0] != ':' {
				return target{}, badRequest("the address %q has text after its bracket", clip(a))
			}
			rawPort, hasPort = rest[1:], true
		}
		ip := net.ParseIP(rawHost)
		if ip == nil || !strings.Contains(rawHost, ":") {
			return target{}, badRequest("%q in brackets is not an IPv6 address", clip(rawHost))
		}
		return finishTarget(a, ip.String(), rawPort, hasPort, defaultPort, ip)
	}
	rawHost = a
	if i := strings.LastIndexByte(a, ':'); i >= 0 {
		rawHost, rawPort, hasPort = a[:i], a[i+1:], true
	}
	host, err := normaliseName(rawHost)
	if err != nil {
		return target{}, err
	}
	return finishTarget(a, host, rawPort, hasPort, defaultPort, net.ParseIP(host))
}

func finishTarget(a, host, rawPort string, hasPort bool, defaultPort int, ip net.IP) (target, error) {
	t := target{host: host, port: defaultPort}
	if ip != nil && ip.IsUnspecified() {
		return target{}, badRequest("%s is the unspecified address, not a destination", host)
	}
	switch {
	case hasPort && rawPort == "" && defaultPort > 0:
		// "http://host:/" means the default port (RFC 3986, 3.2.3).
	case hasPort:
		p, ok := parsePort(rawPort)
		if !ok {
			return target{}, badRequest("the port %q of %q is not a number from 1 to 65535", clip(rawPort), clip(a))
		}
		t.port, t.explicitPort = p, true
	case defaultPort == 0:
		return target{}, badRequest("CONNECT %q names no port: write host:port", clip(a))
	}
	return t, nil
}

func parsePort(s string) (int, bool) {
	if s == "" || len(s) > 5 {
		return 0, false
	}
	p := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		p = p*10 + int(s[i]-'0')
	}
	return p, p >= 1 && p <= 65535
}

// normaliseName lower-cases a host name or IPv4 literal, strips one
// trailing dot and checks it: letters, digits, '.', '-' and '_' only,
// no empty label, labels of at most 63 bytes and 253 bytes in all. A name
// whose last label is numeric (or hexadecimal 0x…) must be a dotted-quad
// IPv4 address: "127.1", "2130706433" or "0x7f.1" would otherwise reach a
// resolver that reads them as IPv4 addresses the caller's Allow never saw.
func normaliseName(raw string) (string, error) {
	h := strings.ToLower(raw)
	h = strings.TrimSuffix(h, ".")
	if h == "" {
		return "", badRequest("the host name is empty")
	}
	if len(h) > 253 {
		return "", badRequest("the host name %q is longer than 253 bytes", clip(h))
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return "", badRequest("the host name %q holds %q: only letters, digits, '.', '-' and '_' (IPv6 in brackets)", clip(raw), c)
		}
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return "", badRequest("the host name %q has an empty label or one longer than 63 bytes", clip(raw))
		}
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.String(), nil
	}
	last := labels[len(labels)-1]
	if strings.HasPrefix(last, "0x") || strings.Trim(last, "0123456789") == "" {
		return "", badRequest("%q is neither a host name nor a dotted-quad IPv4 address", clip(raw))
	}
	return h, nil
}

// parseTarget decides the destination of a request: the authority of
// CONNECT, or the host of an absolute http:// URI, whose path (with its
// query, without a fragment) it returns in origin form.
func parseTarget(h *head) (t target, path string, err error) {
	if h.method == "CONNECT" {
		if strings.ContainsAny(h.target, "/@?#") {
			return target{}, "", badRequest("CONNECT takes host:port, not %q", clip(h.target))
		}
		t, err = parseAuthority(h.target, 0)
		return t, "", err
	}
	const scheme = "http://"
	if len(h.target) < len(scheme) || !strings.EqualFold(h.target[:len(scheme)], scheme) {
		switch {
		case len(h.target) >= 8 && strings.EqualFold(h.target[:8], "https://"):
			return target{}, "", badRequest("an https:// URL goes through CONNECT: set HTTPS_PROXY to this proxy, not a GET of the https:// URL")
		case strings.HasPrefix(h.target, "/") || h.target == "*":
			return target{}, "", badRequest("%s %s is a request to the proxy itself; it carries only CONNECT host:port and absolute http:// URLs (set HTTP_PROXY and HTTPS_PROXY)", clip(h.method), clip(h.target))
		}
		return target{}, "", badRequest("the target %q is neither CONNECT host:port nor an absolute http:// URL", clip(h.target))
	}
	rest := h.target[len(scheme):]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, path := rest[:end], rest[end:]
	if strings.IndexByte(authority, '@') >= 0 {
		return target{}, "", badRequest("the URL %q holds user information before its host; send credentials in a header instead", clip(h.target))
	}
	if i := strings.IndexByte(path, '#'); i >= 0 {
		path = path[:i]
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	t, err = parseAuthority(authority, 80)
	return t, path, err
}
