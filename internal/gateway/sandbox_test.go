package gateway

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clada/clada/internal/sandbox"
	"github.com/clada/clada/internal/specs"
)

// The sandbox grants a verdict carries: the network and repository only
// for git commands a person approves that need them, caches for the
// programs clada knows, and nothing for a program given as a path (a
// project's own "go" must not name what it may write outside).
func TestVerdictGrants(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t)
	if err := os.WriteFile(filepath.Join(root, "go"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	goGrants := specs.Grants{CacheQuery: []string{"env", "GOCACHE", "GOMODCACHE"}}
	tests := []struct {
		cmd        []string
		decision   Decision
		grants     specs.Grants
		repository bool
	}{
		{[]string{"cat", "a.txt"}, Allow, specs.Grants{}, false},
		{[]string{"git", "status"}, Allow, specs.Grants{}, false},
		{[]string{"git", "commit", "-m", "x"}, Ask, specs.Grants{}, true},
		{[]string{"git", "fetch", "origin"}, Ask, specs.Grants{Network: true}, true},
		{[]string{"git", "push"}, Ask, specs.Grants{Network: true}, true},
		{[]string{"git", "remote", "show", "origin"}, Ask, specs.Grants{Network: true}, true},
		{[]string{"go", "build", "./..."}, Ask, goGrants, false},
		{[]string{"env", "CGO_ENABLED=0", "go", "build"}, Ask, goGrants, false},
		{[]string{"./go", "build"}, Ask, specs.Grants{}, false},
		{[]string{"go", "mod", "download"}, Ask, specs.Grants{Network: true, CacheQuery: goGrants.CacheQuery}, false},
		{[]string{"npm", "install"}, Ask, specs.Grants{Network: true, Caches: []string{"~/.npm"}}, false},
		{[]string{"npm", "test"}, Ask, specs.Grants{Caches: []string{"~/.npm"}}, false},
		{[]string{"python3", "-c", "print(1)"}, Ask, specs.Grants{}, false},
	}
	for _, tt := range tests {
		v := g.Decide(tt.cmd, "")
		if v.Decision != tt.decision {
			t.Errorf("%q: decision %s, want %s (%s)", tt.cmd, v.Decision, tt.decision, v.Reason)
			continue
		}
		if v.Grants.Network != tt.grants.Network || !slices.Equal(v.Grants.Caches, tt.grants.Caches) ||
			!slices.Equal(v.Grants.CacheQuery, tt.grants.CacheQuery) || v.Repository != tt.repository {
			t.Errorf("%q: grants %+v repository %v, want %+v repository %v", tt.cmd, v.Grants, v.Repository, tt.grants, tt.repository)
		}
	}
}

func TestExpandCache(t *testing.T) {
	t.Parallel()
	env := map[string]string{"CARGO_HOME": "/opt/cargo", "REL": "relative/dir"}
	getenv := func(k string) string { return env[k] }
	tests := []struct{ in, home, want string }{
		{"~/.npm", "/home/u", "/home/u/.npm"},
		{"~/.npm", "", ""},
		{"$CARGO_HOME/registry", "/home/u", "/opt/cargo/registry"},
		{"$CARGO_HOME", "/home/u", "/opt/cargo"},
		{"$UNSET/registry", "/home/u", ""},
		{"$REL/x", "/home/u", ""}, // a relative value would be relative to the command's directory
		{"/var/cache/x/../y", "/home/u", "/var/cache/y"},
		{"cache", "/home/u", ""},
	}
	for _, tt := range tests {
		if got := expandCache(tt.in, tt.home, getenv); got != tt.want {
			t.Errorf("expandCache(%q, %q) = %q, want %q", tt.in, tt.home, got, tt.want)
		}
	}
}

// A cache query runs the program of the command with the query's
// arguments, once per process, and takes the absolute directories it
// prints; a program inside the project is never asked.
func TestCacheQuery(t *testing.T) {
	t.Parallel()
	root, elsewhere := t.TempDir(), t.TempDir()
	script := "#!/bin/sh\necho \"$@\" >> " + filepath.Join(elsewhere, "ran") + "\necho /var/cache/granted\necho relative/ignored\n"
	for _, dir := range []string{root, elsewhere} {
		if err := os.WriteFile(filepath.Join(dir, "tool"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sb, err := sandbox.New(sandbox.Options{Mode: sandbox.ModeOff, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	grants := specs.Grants{CacheQuery: []string{"cache-dirs", t.Name()}}
	inProject := Verdict{Exec: []string{filepath.Join(root, "tool"), "build"}, Dir: root, Grants: grants}
	if got := cacheDirs(context.Background(), inProject, sb); got != nil {
		t.Errorf("a program inside the project named caches: %q", got)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "ran")); err == nil {
		t.Error("a program inside the project was run for its caches")
	}
	outside := Verdict{Exec: []string{filepath.Join(elsewhere, "tool"), "build"}, Dir: root, Grants: grants}
	for range 2 {
		if got := cacheDirs(context.Background(), outside, sb); !slices.Equal(got, []string{"/var/cache/granted"}) {
			t.Errorf("cacheDirs = %q, want [/var/cache/granted]", got)
		}
	}
	ran, _ := os.ReadFile(filepath.Join(elsewhere, "ran"))
	if string(ran) != "cache-dirs "+t.Name()+"\n" {
		t.Errorf("the query ran with %q, want once with its arguments", ran)
	}
}

// The person asked about a command is told whether it gets the network.
func TestAskSaysSandbox(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t)
	doc := "<---RUN--->\ngit fetch origin\n<---END--->\n<---RUN--->\ntrue\n<---END--->\n"
	for _, mode := range []sandbox.Mode{sandbox.ModeAuto, sandbox.ModeOff} {
		sb, err := sandbox.New(sandbox.Options{Mode: mode, Root: root})
		if err != nil {
			t.Fatal(err)
		}
		defer sb.Close()
		want := []string{"sandboxed, with network", "sandboxed, no network"}
		if !sb.Support().Confines() || mode == sandbox.ModeOff {
			want = []string{"unconfined", "unconfined"}
		}
		asker := &fakeAsker{}
		g.Execute(context.Background(), plan(t, g, doc), ExecOptions{Asker: asker, Sandbox: sb}, nil)
		var got []string
		for _, q := range asker.asked {
			got = append(got, q.Sandbox)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the questions said %q, want %q", mode, got, want)
		}
	}
}

// checkProxyServe hands c.ProxyServe a listener, as the sandbox does from
// the command's network namespace: the proxy then answers there, and no
// longer on this machine's 127.0.0.1 at its port.
func checkProxyServe(t *testing.T, name string, c sandbox.Command) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ln.(*net.TCPListener).File()
	ln.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ProxyServe(f); err != nil {
		t.Fatalf("%s: ProxyServe: %v", name, err)
	}
	if conn, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", c.Proxy)); err == nil {
		conn.Close()
		t.Errorf("%s: the proxy still listens on the host's 127.0.0.1:%d", name, c.Proxy)
	}
	conn, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatalf("%s: the given listener: %v", name, err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "CONNECT evil.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n\r\n")
	status, _ := bufio.NewReader(conn).ReadString('\n')
	if !strings.HasPrefix(status, "HTTP/1.1 403") {
		t.Errorf("%s: the proxy on the given listener answered %q", name, status)
	}
}

// TestNetworkSessionGrants: what each command's network session gives the
// sandbox. A command that reaches the network through clada's proxy is
// given its port and ProxyServe (the sandbox then puts it in a network
// namespace of its own where it can); a git command that contacts a
// remote, and a spec's network grant under network = "open", keep clada's
// own network: no proxy, so no namespace.
func TestNetworkSessionGrants(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t)
	sb, err := sandbox.New(sandbox.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if !sb.Support().FiltersNetwork() {
		t.Skip("this machine cannot hold a command to clada's proxy")
	}
	tests := []struct {
		name    string
		cmd     []string
		open    bool // network = "open"
		network bool // the whole network
		proxied bool
	}{
		{"git fetch", []string{"git", "fetch", "origin"}, false, true, false},
		{"git push", []string{"git", "push"}, false, true, false},
		{"go mod download", []string{"go", "mod", "download"}, false, false, true},
		{"go mod download, network = open", []string{"go", "mod", "download"}, true, true, false},
		{"npm install", []string{"npm", "install"}, false, false, true},
		{"cat", []string{"cat", "a.txt"}, false, false, false},
	}
	for _, tt := range tests {
		v := g.Decide(tt.cmd, "")
		v.Grants.OpenNetwork = v.Grants.OpenNetwork || tt.open
		ns, err := startNetwork(context.Background(), v, sb, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var c sandbox.Command
		ns.apply(&c)
		if c.ProxyServe != nil {
			checkProxyServe(t, tt.name, c)
		}
		ns.close()
		if c.Network != tt.network || (c.Proxy > 0) != tt.proxied || (c.ProxyServe != nil) != tt.proxied {
			t.Errorf("%s: network %v, proxy port %d, ProxyServe set %v; want network %v, proxied %v",
				tt.name, c.Network, c.Proxy, c.ProxyServe != nil, tt.network, tt.proxied)
		}
	}
}
