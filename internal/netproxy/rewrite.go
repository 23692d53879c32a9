package netproxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// hopByHop are the request headers that concern only the connection to the
// proxy (RFC 9110, 7.6.1) and are never forwarded as sent.
var hopByHop = map[string]bool{
	"connection":          true,
	"proxy-connection":    true,
	"keep-alive":          true,
	"proxy-authorization": true,
	"proxy-authenticate":  true,
	"te":                  true,
	"trailer":             true,
	"upgrade":             true,
}

// framing are the headers that delimit the body. The proxy relays the body
// as the client sends it, so the origin must see them as the client sent
// them: a Connection header naming them does not remove them.
var framing = map[string]bool{"host": true, "content-length": true, "transfer-encoding": true}

// hasToken reports whether the comma-separated list v holds tok (ASCII
// case-insensitive).
func hasToken(v, tok string) bool {
	for _, t := range strings.Split(v, ",") {
		if strings.EqualFold(strings.TrimSpace(t), tok) {
			return true
		}
	}
	return false
}

// rewriteRequest builds the head sent to the origin of a plain HTTP
// request: the request line in origin form, Host set to the URI's
// authority (whatever Host the client sent), the hop-by-hop headers and
// those the client's Connection header names removed, and
// "Connection: close", or "Connection: Upgrade" with the Upgrade header
// kept for a WebSocket handshake (the relay carries the upgraded stream
// as it carries any other bytes). It reports whether the request is a
// WebSocket handshake.
func rewriteRequest(h *head, t target, path string) ([]byte, bool, error) {
	var connection []string
	hosts, lengths, chunked := 0, map[string]bool{}, false
	websocket := false
	for _, f := range h.fields {
		switch strings.ToLower(f.name) {
		case "connection", "proxy-connection":
			connection = append(connection, f.value)
		case "host":
			hosts++
		case "content-length":
			lengths[f.value] = true
		case "transfer-encoding":
			chunked = true
		case "upgrade":
			if hasToken(f.value, "websocket") {
				websocket = true
			}
		}
	}
	if hosts > 1 {
		return nil, false, badRequest("the request has %d Host headers; send one", hosts)
	}
	if len(lengths) > 1 {
		return nil, false, badRequest("the request has Content-Length headers that disagree")
	}
	if len(lengths) > 0 && chunked {
		return nil, false, badRequest("the request has both Content-Length and Transfer-Encoding; send one")
	}
	drop := map[string]bool{}
	for _, v := range connection {
		for _, tok := range strings.Split(v, ",") {
			if tok = strings.ToLower(strings.TrimSpace(tok)); tok != "" && !framing[tok] {
				drop[tok] = true
			}
		}
	}
	websocket = websocket && hasToken(strings.Join(connection, ","), "upgrade")

	var b strings.Builder
	b.WriteString(h.method + " " + path + " " + h.proto + "\r\n")
	b.WriteString("Host: " + t.hostHeader() + "\r\n")
	for _, f := range h.fields {
		name := strings.ToLower(f.name)
		if name == "host" || drop[name] && !(websocket && name == "upgrade") {
			continue
		}
		if hopByHop[name] && !(websocket && name == "upgrade") {
			continue
		}
		b.WriteString(f.name + ": " + f.value + "\r\n")
	}
	if websocket {
		b.WriteString("Connection: Upgrade\r\n\r\n")
	} else {
		b.WriteString("Connection: close\r\n\r\n")
	}
	return []byte(b.String()), websocket, nil
}

// relayResponseHead reads the origin's response heads up to the final one
// and writes them to the client: interim 1xx heads (100 Continue) at once
// and as sent, the final head with Connection, Proxy-Connection and
// Keep-Alive replaced by "Connection: close" (the proxy closes the
// client's connection after one response, so the client must not reuse
// it), except a 101 Switching Protocols, passed as sent. Each head is
// bounded as a request's is. An error before anything was written is a
// *statusError (502) or the read error; errWritten wraps a failure after.
func relayResponseHead(br *bufio.Reader, w io.Writer) error {
	for {
		head, final, err := readResponseHead(br)
		if err != nil {
			return err
		}
		if _, err := w.Write(head); err != nil {
			return errWritten
		}
		if final {
			return nil
		}
	}
}

// errWritten reports a failure after part of the answer reached the
// client: too late for an error answer.
var errWritten = errors.New("the answer to the client was cut")

// readResponseHead reads one response head and returns it as the client
// gets it, and whether it is the final one.
func readResponseHead(br *bufio.Reader) ([]byte, bool, error) {
	budget := maxHead
	status, err := readLine(br, &budget)
	if err != nil {
		return nil, false, unexpected(err)
	}
	code, ok := statusCode(status)
	if !ok {
		return nil, false, &statusError{code: 502, msg: "the origin's answer does not begin with an HTTP/1.x status line: " + clip(status)}
	}
	var fields []field
	for {
		line, err := readLine(br, &budget)
		if err != nil {
			if se, ok := err.(*statusError); ok && se == errHeadTooLarge {
				return nil, false, &statusError{code: 502, msg: fmt.Sprintf("the origin's answer has more than %d KiB of headers", maxHead>>10)}
			}
			return nil, false, unexpected(err)
		}
		if line == "" {
			break
		}
		f, err := parseField(line)
		if err != nil {
			return nil, false, &statusError{code: 502, msg: "the origin's answer has a malformed header: " + clip(line)}
		}
		fields = append(fields, f)
	}
	final := code >= 200 || code == 101
	closing := final && code != 101
	var b strings.Builder
	b.WriteString(status + "\r\n")
	for _, f := range fields {
		switch strings.ToLower(f.name) {
		case "connection", "proxy-connection", "keep-alive":
			if closing {
				continue
			}
		}
		b.WriteString(f.name + ": " + f.value + "\r\n")
	}
	if closing {
		b.WriteString("Connection: close\r\n")
	}
	b.WriteString("\r\n")
	return []byte(b.String()), final, nil
}

// statusCode parses "HTTP/1.x NNN reason".
func statusCode(line string) (int, bool) {
	if len(line) < 12 || !strings.HasPrefix(line, "HTTP/1.") || line[8] != ' ' || (len(line) > 12 && line[12] != ' ') {
		return 0, false
	}
	p, ok := parsePort(line[9:12])
	return p, ok && p >= 100 && p <= 999
}
