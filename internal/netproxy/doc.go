// Package netproxy is the network of a confined command: a small proxy on
// 127.0.0.1 that clada runs for the life of a run, and the only place on
// the network such a command can reach (the sandbox lets it connect to the
// proxy's port and nothing else; where Landlock's port rule is the only
// wall, that port number on any address, since Landlock knows no
// addresses). The person grants host names — a spec's
// network list, the registries of the ecosystem packs, the project's own
// list — and the proxy connects a command to a destination only when
// [Options.Allow] says that host and port are granted; anything else gets
// a refusal that names the destination, and [Proxy.Refused] lists it for
// the report.
//
// It speaks what package managers and most tools speak through
// HTTP_PROXY and HTTPS_PROXY ([Proxy.Env]):
//
//   - HTTP/1.x CONNECT host:port, the tunnel that https:// (and any TLS or
//     other TCP protocol) goes through: the proxy answers 200, then relays
//     bytes both ways until both sides have ended, passing a half close
//     (the end of one direction) on to the other side.
//   - Plain HTTP requests in absolute form (GET http://host/path
//     HTTP/1.1): the proxy sends the request on in origin form to the host
//     of the URL, with Host set to that host whatever Host the client sent,
//     without the hop-by-hop headers, and with "Connection: close"; then it
//     relays the rest of the client's stream (the body, whatever its
//     framing) and the origin's answer, whose head it rewrites to
//     "Connection: close". A WebSocket handshake keeps its Upgrade header
//     and the relay carries the upgraded stream.
//   - SOCKS5 (RFC 1928) on the same port, told apart by its first byte:
//     CONNECT only, no authentication, IPv4, IPv6 and domain names, judged
//     as CONNECT is. Its replies carry no text, so a refusal is reply code
//     2 ("not allowed by ruleset").
//
// A refusal is an HTTP answer whose reason phrase is the refusal itself
// (403 clada: the network grant of this command does not include
// host:443), since most clients never print the body of a refused
// CONNECT while Go, Python and npm print the reason phrase; curl and git
// print only the code, so [Proxy.Refused] is what the report names.
//
// The proxy itself runs unconfined, so it must never become a way around
// Allow. It connects only to the host and port Allow approved: the
// CONNECT authority or the absolute URL's host, never a Host header; a
// host is lower-cased, stripped of one trailing dot and of IPv6 brackets
// before Allow sees it; an IP literal is passed in its canonical form
// (so ::ffff:127.0.0.1 is 127.0.0.1) and refused when unspecified
// (0.0.0.0, ::); a host with characters other than letters, digits, '.',
// '-' and '_', a URL with user information and a numeric name that is not
// a dotted-quad address (127.1, 2130706433, 0x7f.1, which resolvers read
// as 127.0.0.1) are malformed (400); and the default dialer refuses a DNS
// name that resolves to a loopback, link-local or unspecified address, so
// that a name granted by the person cannot be pointed by its DNS record at
// this machine's own services. A request for the proxy's own address is
// refused (it would loop).
//
// Limits:
//
//   - No TLS interception: of an https:// request the proxy sees only the
//     host name and port of CONNECT, never the path, so a grant is for a
//     whole host. (A client may send a different name inside TLS, SNI;
//     the connection still goes only to the granted host.)
//   - One request per plain-HTTP connection: the proxy closes the client's
//     connection after the answer, and clients open a new one for the next
//     request. Keep-alive between client and proxy is not kept. Bytes a
//     client sends after its request (a pipelined second request) reach
//     the first request's origin as part of its stream, never the host
//     they name.
//   - Only HTTP/1.0 and HTTP/1.1 toward the proxy; HTTP/2 goes inside
//     CONNECT tunnels, where the proxy does not look.
//   - A request line and headers are bounded to 64 KiB together (431
//     beyond), and a client must send them within [Options.HeadTimeout]
//     (30 s): a client that sends nothing is dropped, one that sends part
//     of a head gets 408. Once a tunnel or request is under way there is
//     no idle timeout: a long poll or a quiet tunnel stays open until
//     either side ends it or [Proxy.Close].
//   - [Options.Allow] may block (to ask a person while the client waits);
//     overlapping requests for the same destination share one call and
//     its answer. Close waits for the calls in flight, so Allow must
//     return when the caller shuts down. Allow does not learn which
//     command connects: grants that differ between commands need a proxy
//     per command (Start and Close cost about 0.1 ms).
//
// The package does not import net/http (clada's main binary must not
// link it); it parses the little HTTP it needs itself.
package netproxy
