package netproxy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"syscall"
	"time"
)

// SOCKS5 (RFC 1928) on the same port: a connection whose first byte is 5.
// Only the CONNECT command, without authentication, with IPv4, IPv6 and
// domain-name destinations, judged by Allow as CONNECT's are. A SOCKS5
// reply has no room for text, so a refusal is reply code 2 (connection not
// allowed by ruleset), and the destination appears in Refused and Log.
const socksVersion = 5

// SOCKS5 reply codes.
const (
	socksOK          = 0
	socksFailure     = 1
	socksNotAllowed  = 2
	socksUnreachable = 4
	socksRefused     = 5
	socksNoCommand   = 7
	socksNoAddress   = 8
)

func (p *Proxy) handleSOCKS(c net.Conn, br *bufio.Reader) {
	var hdr [2]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return
	}
	noAuth := false
	for _, m := range methods {
		noAuth = noAuth || m == 0
	}
	if !noAuth {
		p.logf("netproxy: SOCKS5 %s: the client offers no method without authentication", c.RemoteAddr())
		c.Write([]byte{socksVersion, 0xff})
		return
	}
	if _, err := c.Write([]byte{socksVersion, 0}); err != nil {
		return
	}
	var req [4]byte
	if _, err := io.ReadFull(br, req[:]); err != nil {
		return
	}
	if req[0] != socksVersion {
		return
	}
	t, err := readSOCKSTarget(br, req[3])
	if err != nil {
		code := byte(socksFailure)
		var se *statusError
		switch {
		case errors.As(err, &se):
			p.logf("netproxy: SOCKS5 %s: %s", c.RemoteAddr(), se.msg)
		case err == errSOCKSAddressType:
			code = socksNoAddress
		default:
			return
		}
		p.socksReply(c, code)
		return
	}
	// Allow may take its time (a person is asked).
	c.SetReadDeadline(time.Time{})
	if req[1] != 1 {
		p.logf("netproxy: SOCKS5 %s: only CONNECT is carried, not command %d", t, req[1])
		p.socksReply(c, socksNoCommand)
		return
	}
	if p.self(t) {
		p.logf("netproxy: SOCKS5 %s: this proxy itself", t)
		p.socksReply(c, socksFailure)
		return
	}
	if !p.allow(t) {
		p.logf("netproxy: SOCKS5 %s: refused: %s is not granted", t, t)
		p.socksReply(c, socksNotAllowed)
		return
	}
	up, err := p.dial(t)
	if err != nil {
		p.logf("netproxy: SOCKS5 %s: %v", t, err)
		code := byte(socksUnreachable)
		if errors.Is(err, syscall.ECONNREFUSED) {
			code = socksRefused
		}
		p.socksReply(c, code)
		return
	}
	defer p.release(up)
	if err := p.socksReply(c, socksOK); err != nil {
		return
	}
	p.relay(c, br, up, up, nil)
}

var errSOCKSAddressType = errors.New("unknown SOCKS5 address type")

// readSOCKSTarget reads DST.ADDR and DST.PORT of a request.
func readSOCKSTarget(br *bufio.Reader, atyp byte) (target, error) {
	var host string
	switch atyp {
	case 1, 4:
		ip := make(net.IP, 4)
		if atyp == 4 {
			ip = make(net.IP, 16)
		}
		if _, err := io.ReadFull(br, ip); err != nil {
			return target{}, err
		}
		if ip.IsUnspecified() {
			return target{}, badRequest("%s is the unspecified address, not a destination", ip)
		}
		host = ip.String()
	case 3:
		n, err := br.ReadByte()
		if err != nil {
			return target{}, err
		}
		name := make([]byte, n)
		if _, err := io.ReadFull(br, name); err != nil {
			return target{}, err
		}
		// A bracketed IPv6 literal or a name, as in CONNECT's authority.
		t, err := parseAuthority(string(name)+":1", 0)
		if err != nil {
			return target{}, err
		}
		host = t.host
	default:
		return target{}, errSOCKSAddressType
	}
	var port [2]byte
	if _, err := io.ReadFull(br, port[:]); err != nil {
		return target{}, err
	}
	t := target{host: host, port: int(binary.BigEndian.Uint16(port[:])), explicitPort: true}
	if t.port == 0 {
		return target{}, badRequest("port 0 is not a destination")
	}
	return t, nil
}

// socksReply answers a request with a reply code and a zero bound address.
func (p *Proxy) socksReply(c net.Conn, code byte) error {
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := c.Write([]byte{socksVersion, code, 0, 1, 0, 0, 0, 0, 0, 0})
	c.SetWriteDeadline(time.Time{})
	return err
}
