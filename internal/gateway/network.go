package gateway

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"

	"github.com/clada/clada/internal/netproxy"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/sandbox"
	"github.com/clada/clada/internal/specs"
)

// netSession is how one command reaches the network: not at all, the
// whole network, or through a proxy of its own that lets it reach the
// hosts granted to it and nothing else (docs/rules.md, "The network").
type netSession struct {
	open  bool
	proxy *netproxy.Proxy
}

// startNetwork decides how v reaches the network under sb and starts its
// proxy when it has one:
//
//   - a command whose spec grants the network (npm install, go mod
//     download) gets its program's registries and the person's hosts
//     through the proxy; with network = "open", or on a machine that
//     cannot hold a command to the proxy (Landlock before ABI 4), the
//     whole network, as before the proxy; so does a git command that
//     contacts a remote, which a person approved (git speaks ssh too,
//     which no HTTP proxy carries: the question says "with network");
//   - a command that runs code the person chose (asked and approved, or
//     allowed by a pattern) gets the person's hosts through the proxy,
//     where the machine can hold it to them; otherwise no network;
//   - any other command, and one with no host to reach, gets none.
func startNetwork(v Verdict, sb *sandbox.Sandbox) (*netSession, error) {
	ns := &netSession{}
	open, proxied := netPlan(v, sb, v.Decision == Ask || v.Rule == rules.AllowedPattern)
	if !proxied {
		ns.open = open
		return ns, nil
	}
	hosts := v.Grants.Hosts
	p, err := netproxy.Start(netproxy.Options{
		Allow: func(host string, _ int) bool {
			for _, h := range hosts {
				if specs.HostMatch(h, host) {
					return true
				}
			}
			return false
		},
		Dial: proxyDial(os.Getenv(testHostsEnv)),
		Hint: func(host string, _ int) string {
			return fmt.Sprintf("Do not try to work around it; if %s is needed, the person adds it to hosts = [...] in .clada/config.toml", host)
		},
	})
	if err != nil {
		return nil, err
	}
	ns.proxy = p
	return ns, nil
}

// netPlan says how v reaches the network under sb (see startNetwork):
// the whole network (open), through a proxy for v.Grants.Hosts (proxied),
// or neither. chosen says that the person chose the command (asked and
// approved, or allowed by a pattern). Unconfined, the network is the
// command's anyway, and neither is set.
func netPlan(v Verdict, sb *sandbox.Sandbox, chosen bool) (open, proxied bool) {
	if sb == nil || sb.Mode() == sandbox.ModeOff || !sb.Support().Confines() {
		return false, false
	}
	filters := sb.Support().FiltersNetwork()
	switch {
	case v.Grants.Network && (v.Grants.OpenNetwork || !filters):
		return true, false
	case !filters, !v.Grants.Network && (!chosen || len(v.Grants.Hosts) == 0):
		return false, false
	}
	// A command the network is granted to gets the proxy even with no
	// host, so that what it tried is reported by name.
	return false, true
}

// testHostsEnv maps host names to addresses for the proxy, as /etc/hosts
// would ("registry.test=127.0.0.1:4873,other.test=127.0.0.1:9"): the
// end-to-end tests reach a fake registry on loopback by a name. It
// grants nothing (the name must still be among the command's hosts), and
// only clada's own environment sets it, never a command's.
const testHostsEnv = "CLADA_PROXY_TEST_HOSTS"

// proxyDial is the proxy's dialer: a net.Dialer, with the names of
// mapping (testHostsEnv's syntax) sent to their addresses.
func proxyDial(mapping string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if mapping == "" {
		return nil // netproxy's own dialer, which refuses names that lead to loopback
	}
	var d net.Dialer
	to := map[string]string{}
	for _, pair := range strings.Split(mapping, ",") {
		if name, addr, ok := strings.Cut(pair, "="); ok && name != "" && addr != "" {
			to[strings.ToLower(name)] = addr
		}
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, _, err := net.SplitHostPort(addr); err == nil {
			if a, ok := to[strings.ToLower(host)]; ok {
				addr = a
			}
		}
		return d.DialContext(ctx, network, addr)
	}
}

// apply gives c the session's network: the whole network, or the proxy's
// port.
func (ns *netSession) apply(c *sandbox.Command) {
	if ns == nil {
		return
	}
	if ns.open {
		c.Network = true
	}
	if ns.proxy != nil {
		c.Proxy = ns.proxy.Port()
	}
}

// env adds the proxy's variables to cmd's environment.
func (ns *netSession) env(cmd *exec.Cmd) {
	if ns == nil || ns.proxy == nil {
		return
	}
	cmd.Env = append(cmd.Env, ns.proxy.Env()...)
}

// close stops the proxy and returns what it refused.
func (ns *netSession) close() []string {
	if ns == nil || ns.proxy == nil {
		return nil
	}
	refused := ns.proxy.Refused()
	ns.proxy.Close()
	return refused
}
