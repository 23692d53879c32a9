package netproxy

import (
	"context"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"
)

// defaultDial connects with a 30 s timeout. A DNS name must not resolve to
// a loopback, link-local or unspecified address (unless the name is
// localhost or under .localhost): Allow judged the name, and a name whose
// DNS record points at this machine (or at a cloud's metadata service)
// would otherwise let a confined command reach local services that Allow
// refuses when asked by address. An IP literal is dialed as Allow saw it.
func defaultDial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: 30 * time.Second}
	if net.ParseIP(host) == nil && host != "localhost" && !strings.HasSuffix(host, ".localhost") {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			return checkResolved(host, address)
		}
	}
	return d.DialContext(ctx, network, addr)
}

// checkResolved refuses an address that a DNS name must not resolve to.
func checkResolved(name, address string) error {
	h, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(h)
	if ip == nil {
		return fmt.Errorf("%s resolved to %q, not an IP address", name, h)
	}
	if ip.IsLoopback() || ip.IsUnspecified() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() {
		return fmt.Errorf("%s resolves to %s, an address of this machine or its link; the proxy reaches such an address only when the grant names it as an IP literal", name, ip)
	}
	return nil
}
