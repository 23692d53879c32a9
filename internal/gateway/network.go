package gateway

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/netproxy"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/runner"
	"github.com/clada/clada/internal/sandbox"
	"github.com/clada/clada/internal/specs"
)

// netSession is how one command reaches the network: not at all, the
// whole network, or through a proxy of its own that lets it reach the
// hosts granted to it and nothing else (docs/rules.md, "The network").
type netSession struct {
	open   bool
	proxy  *netproxy.Proxy
	cancel context.CancelFunc // ends the questions open; nil without a proxy

	mu    sync.Mutex
	asked []string // "host:port answer", for each question the person was asked
	never []string // "host:port" refused for a never remembered for the pattern
}

// note appends s to *list (asked or never) once, at most maxNoted.
func (ns *netSession) note(list *[]string, s string) {
	if ns == nil {
		return
	}
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if len(*list) < maxNoted && !slices.Contains(*list, s) {
		*list = append(*list, s)
	}
}

// maxNoted bounds the questions and never-refusals a session notes for
// the report.
const maxNoted = 64

// HostAsker asks the person whether a running command may reach a host
// that its grants do not include; *approve.Prompter is one. Cancelling
// ctx ends the question at once, as a No.
type HostAsker interface {
	AskHost(ctx context.Context, q approve.HostQuestion, timeout time.Duration) (approve.Answer, approve.NoReason, error)
}

// HostQuestions is how clada asks about a host while a command runs
// (clada run with a person at the terminal; [ExecOptions.Hosts]). nil,
// or a nil Asker, asks nobody: a host not granted is refused, as in CI,
// hooks and MCP.
type HostQuestions struct {
	Asker HostAsker
	// Timeout bounds each question (the approval timeout; 0: 60 s).
	Timeout time.Duration
	// Hold, when not nil, is called as a question opens, and what it
	// returns as it closes: clada run stops showing the command's live
	// output meanwhile, so that nothing the command prints garbles or
	// follows the question.
	Hold func() (release func())
	// Remember writes the person's always (allow) or never for host and
	// pattern, and returns the line to show ("added …"); nil remembers
	// nothing. [Gateway.Execute] sets it.
	Remember func(pattern, host string, allow bool) string
	// Diag receives the Remember lines; nil discards them.
	Diag io.Writer
}

func (hq *HostQuestions) asking() bool { return hq != nil && hq.Asker != nil }

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
//     where the machine can hold it to them, and, when hq can ask the
//     person, the proxy even with no host; otherwise no network;
//   - any other command, and one with no host to reach, gets none.
//
// When hq can ask, a host that the proxy would refuse (not granted, and
// not one the person answered never for) is put to the person while the
// proxy holds the connection: yes lets it for the rest of this run of
// the command, always also remembers it for v.HostPattern, never
// remembers the refusal. Each host is asked once per run of the command,
// however many connections it opens. While a question is open the
// command's timeout stands still (pause, which the caller gives the
// runner): the time the person takes never makes the command time out.
// ctx ends open questions; so does closing the session.
func startNetwork(ctx context.Context, v Verdict, sb *sandbox.Sandbox, hq *HostQuestions, pause *runner.Pause) (*netSession, error) {
	ns := &netSession{}
	open, proxied := netPlan(v, sb, v.Decision == Ask || v.Rule == rules.AllowedPattern, hq.asking())
	if !proxied {
		ns.open = open
		return ns, nil
	}
	var askCtx context.Context
	askCtx, ns.cancel = context.WithCancel(ctx)
	gate := &hostGate{ctx: askCtx, v: v, hq: hq, pause: pause, ns: ns, answers: map[string]bool{}}
	p, err := netproxy.Start(netproxy.Options{
		Allow: gate.allow,
		Dial:  proxyDial(os.Getenv(testHostsEnv)),
		Hint:  gate.hint,
	})
	if err != nil {
		ns.cancel()
		return nil, err
	}
	ns.proxy = p
	return ns, nil
}

// hostGate decides, for the proxy of one command, which hosts it may
// reach (see startNetwork).
type hostGate struct {
	ctx   context.Context // ends the questions
	v     Verdict
	hq    *HostQuestions
	pause *runner.Pause // nil: no timeout to stop
	ns    *netSession   // where the questions asked are noted

	asking  sync.Mutex      // held while asking: one question at a time, each host once
	mu      sync.Mutex      // guards answers
	answers map[string]bool // host → the person's answer in this run
}

// allow is the proxy's Allow.
func (g *hostGate) allow(host string, port int) bool {
	// A never answered for the command's pattern beats every grant, as
	// a blocked pattern beats an allowed one.
	if matchHost(g.v.Grants.DeniedHosts, host) {
		g.ns.note(&g.ns.never, net.JoinHostPort(host, strconv.Itoa(port)))
		return false
	}
	if matchHost(g.v.Grants.Hosts, host) {
		return true
	}
	if !g.hq.asking() {
		return false
	}
	g.asking.Lock()
	defer g.asking.Unlock()
	if ok, seen := g.answer(host); seen {
		return ok
	}
	ok := g.ask(host, port)
	g.mu.Lock()
	g.answers[host] = ok
	g.mu.Unlock()
	return ok
}

// answer is the person's answer about host in this run, if any.
func (g *hostGate) answer(host string) (ok, asked bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	ok, asked = g.answers[host]
	return ok, asked
}

// hint is the proxy's Hint: how the person grants host.
func (g *hostGate) hint(host string, _ int) string {
	if matchHost(g.v.Grants.DeniedHosts, host) {
		return fmt.Sprintf("Do not try to work around it: the person answered never for %s with `%s`; only the person can take it out of [[network]] in .clada/commands.toml", host, g.v.HostPattern)
	}
	if ok, asked := g.answer(host); asked && !ok {
		return fmt.Sprintf("Do not try to work around it: the person was asked and did not let it; if %s is needed, the person adds it to hosts = [...] in .clada/config.toml", host)
	}
	return fmt.Sprintf("Do not try to work around it; if %s is needed, the person adds it to hosts = [...] in .clada/config.toml", host)
}

// ask puts host:port to the person and applies the answer; g.asking is
// held.
func (g *hostGate) ask(host string, port int) bool {
	hq := g.hq
	if hq.Hold != nil {
		defer hq.Hold()()
	}
	if g.pause != nil {
		defer g.pause.Hold()()
	}
	dest := net.JoinHostPort(host, strconv.Itoa(port))
	ans, _, err := hq.Asker.AskHost(g.ctx, approve.HostQuestion{Command: g.v.HostCommand, Host: dest, Pattern: g.v.HostPattern}, hq.Timeout)
	if err != nil {
		return false
	}
	g.ns.note(&g.ns.asked, dest+" "+ans.String())
	if (ans == approve.Always || ans == approve.Never) && hq.Remember != nil && g.v.HostPattern != "" {
		if line := hq.Remember(g.v.HostPattern, host, ans == approve.Always); line != "" && hq.Diag != nil {
			fmt.Fprintln(hq.Diag, line)
		}
	}
	return ans == approve.Yes || ans == approve.Always
}

// matchHost reports whether host matches one of patterns.
func matchHost(patterns []string, host string) bool {
	for _, h := range patterns {
		if specs.HostMatch(h, host) {
			return true
		}
	}
	return false
}

// netPlan says how v reaches the network under sb (see startNetwork):
// the whole network (open), through a proxy for v.Grants.Hosts (proxied),
// or neither. chosen says that the person chose the command (asked and
// approved, or allowed by a pattern); asking, that a person can be asked
// about a host while it runs. Unconfined, the network is the command's
// anyway, and neither is set.
func netPlan(v Verdict, sb *sandbox.Sandbox, chosen, asking bool) (open, proxied bool) {
	if sb == nil || sb.Mode() == sandbox.ModeOff || !sb.Support().Confines() {
		return false, false
	}
	filters := sb.Support().FiltersNetwork()
	switch {
	case v.Grants.Network && (v.Grants.OpenNetwork || !filters):
		return true, false
	case !filters, !v.Grants.Network && (!chosen || len(v.Grants.Hosts) == 0 && !asking):
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
// port; where the sandbox can, in a network namespace of the command's
// own whose one listener, on 127.0.0.1 at that port, the proxy serves
// too (sandbox.Command.ProxyServe), so that the command reaches nothing
// else: not another machine or loopback address on that port number.
func (ns *netSession) apply(c *sandbox.Command) {
	if ns == nil {
		return
	}
	if ns.open {
		c.Network = true
	}
	if ns.proxy != nil {
		p := ns.proxy
		c.Proxy = p.Port()
		c.ProxyServe = func(f *os.File) error {
			if err := p.ServeFile(f); err != nil {
				return err
			}
			// The command reaches the proxy in its namespace only:
			// no other process on this machine may use its grants.
			return p.CloseLoopback()
		}
	}
}

// env adds the proxy's variables to cmd's environment.
func (ns *netSession) env(cmd *exec.Cmd) {
	if ns == nil || ns.proxy == nil {
		return
	}
	cmd.Env = append(cmd.Env, ns.proxy.Env()...)
}

// close ends the questions still open (the command is over: nobody
// waits for the answer), stops the proxy and returns what it refused.
func (ns *netSession) close() []string {
	if ns == nil || ns.proxy == nil {
		return nil
	}
	ns.cancel()
	ns.proxy.Close()
	return ns.proxy.Refused()
}

// questions are the questions the person was asked about hosts while
// the command ran, "host:port answer" ("evil.example:443 no"), and the
// destinations refused for a never remembered for its pattern.
func (ns *netSession) questions() (asked, never []string) {
	if ns == nil {
		return nil, nil
	}
	ns.mu.Lock()
	defer ns.mu.Unlock()
	return slices.Clone(ns.asked), slices.Clone(ns.never)
}
