package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// TestNetNamespace runs TestNetNamespaceInner in this test binary started
// again as RunInNamespace starts clada: only there may a command's thread
// make a network namespace (as an ordinary user too).
func TestNetNamespace(t *testing.T) {
	if os.Getenv(innerEnv) != "" {
		t.Skip("the outer half of TestNetNamespace")
	}
	if _, err := landlockABI(); err != nil {
		t.Skip(err)
	}
	var out bytes.Buffer
	env := append(os.Environ(), innerEnv+"=1", "GORACE=atexit_sleep_ms=0")
	code, started := runInNamespace([]string{"-test.run=^TestNetNamespaceInner$", "-test.v"}, env, nil, &out, &out)
	if !started {
		t.Skipf("no user namespaces here: %s", ns.reason)
	}
	if code != 0 || !strings.Contains(out.String(), "--- PASS: TestNetNamespaceInner") {
		t.Fatalf("inside the namespace (exit %d):\n%s", code, out.String())
	}
}

// hostServices are what a command held to the proxy must not reach: TCP
// listeners of this (host) network namespace on the proxy's port number
// at 127.0.0.1, 127.0.0.2 and ::1 (where the machine has IPv6), and an
// abstract Unix socket. Each answers "host ADDR".
type hostServices struct {
	port     int    // the proxy's port number, which every listener shares
	ipv6     bool   // [::1]:port listens too
	abstract string // the abstract socket's name, without the @
}

func listenHostServices(t *testing.T) hostServices {
	t.Helper()
	h := hostServices{abstract: fmt.Sprintf("clada-sandbox-netns-test-%d", os.Getpid())}
	fd := listenOn(t, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}, "host 127.0.0.1")
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	h.port = sa.(*unix.SockaddrInet4).Port
	listenOn(t, &unix.SockaddrInet4{Port: h.port, Addr: [4]byte{127, 0, 0, 2}}, "host 127.0.0.2")
	if tryListen(t, &unix.SockaddrInet6{Port: h.port, Addr: [16]byte{15: 1}}, "host ::1") {
		h.ipv6 = true
	}
	listenOn(t, &unix.SockaddrUnix{Name: "@" + h.abstract}, "host abstract")
	return h
}

// listenOn listens at sa, answering each connection with greeting and
// closing it, until the test ends; it returns the socket.
func listenOn(t *testing.T, sa unix.Sockaddr, greeting string) int {
	t.Helper()
	fd, err := listenSocket(sa)
	if err != nil {
		t.Fatalf("listening at %v: %v", sa, err)
	}
	serveGreeting(t, fd, greeting)
	return fd
}

// tryListen is listenOn for an address this machine may lack (IPv6).
func tryListen(t *testing.T, sa unix.Sockaddr, greeting string) bool {
	fd, err := listenSocket(sa)
	if err != nil {
		return false
	}
	serveGreeting(t, fd, greeting)
	return true
}

func listenSocket(sa unix.Sockaddr) (int, error) {
	family := unix.AF_INET
	switch sa.(type) {
	case *unix.SockaddrInet6:
		family = unix.AF_INET6
	case *unix.SockaddrUnix:
		family = unix.AF_UNIX
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := unix.Listen(fd, 16); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// serveGreeting accepts on the listening socket fd until the test ends,
// answering each connection with greeting; it closes fd then.
func serveGreeting(t *testing.T, fd int, greeting string) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, _, err := unix.Accept(fd)
			if err == unix.EINTR || err == unix.ECONNABORTED {
				continue
			}
			if err != nil {
				return
			}
			unix.Write(c, []byte(greeting+"\n"))
			unix.Close(c)
		}
	}()
	t.Cleanup(func() {
		unix.Shutdown(fd, unix.SHUT_RDWR)
		<-done
		unix.Close(fd)
	})
}

// inThread runs f on a thread of its own that dies after it (f may leave
// it in namespaces of its own).
func inThread(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		f()
	}()
	<-done
}

func TestNetNamespaceInner(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("run by TestNetNamespace inside namespaces")
	}
	if !ns.inside {
		t.Fatalf("Main did not set up the namespace: %s", ns.reason)
	}
	host := listenHostServices(t)
	t.Run("setup", func(t *testing.T) { testNetNamespaceSetup(t, host) })
	f := newFixture(t, ModeAuto)
	if !f.sb.Support().NetNamespace {
		t.Fatal("Support.NetNamespace is false inside clada's namespace")
	}
	t.Run("thread", func(t *testing.T) { testNetNamespaceCommands(t, f, f.tmp, host) })
	tmp, err := os.MkdirTemp(f.sb.TempRoot(), "cmd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("launcher", func(t *testing.T) { testNetNamespaceCommands(t, f, tmp, host) })
	t.Run("before Landlock ABI 4", func(t *testing.T) { testNetNamespaceOldLandlock(t, host) })
}

// testNetNamespaceOldLandlock: with Landlock before ABI 4 (no TCP rules),
// the network namespace alone holds a command to the proxy; should it
// fail, the command gets no TCP socket at all.
func testNetNamespaceOldLandlock(t *testing.T, host hostServices) {
	f := newFixture(t, ModeAuto)
	f.sb.support.Landlock = 3
	if !f.sb.Support().Seccomp {
		t.Skip("without seccomp nothing but the namespace closes the network before ABI 4")
	}
	if !f.sb.Support().FiltersNetwork() {
		t.Fatal("FiltersNetwork is false with network namespaces")
	}
	serve := func(l *os.File) error {
		fd, err := unix.FcntlInt(l.Fd(), unix.F_DUPFD_CLOEXEC, 0)
		l.Close()
		if err != nil {
			return err
		}
		serveGreeting(t, fd, "proxy")
		return nil
	}
	c := Command{TmpDir: f.tmp, Proxy: host.port, ProxyServe: serve}
	at := func(addr string) []string { return []string{"greet", fmt.Sprintf("%s:%d", addr, host.port)} }
	o, out, ok := f.run(t, c, at("127.0.0.1")...)
	if !ok || !strings.HasPrefix(out, "proxy\n") || !o.NetNamespace || !strings.Contains(o.Text, "landlock v3") {
		t.Errorf("the proxy: ok %v, %q, outcome %+v", ok, out, o)
	}
	if _, out, ok := f.run(t, c, at("127.0.0.2")...); ok {
		t.Errorf("127.0.0.2 on the proxy's port: %q", out)
	}
	if _, out, ok := f.run(t, c, "greet", fmt.Sprintf("192.0.2.1:%d", host.port+1)); ok {
		t.Errorf("another machine: %q", out)
	}
	// No namespace after all: no TCP socket.
	f.sb.plat.mu.Lock()
	f.sb.plat.netFail = "simulated"
	f.sb.plat.mu.Unlock()
	o, out, ok = f.run(t, c, at("127.0.0.2")...)
	if ok || !strings.Contains(out, "permission denied") || o.NetNamespace || o.Proxied || o.Network ||
		!strings.Contains(o.Text, "network off (no network namespace to hold it to clada's proxy)") {
		t.Errorf("without the namespace: ok %v, %q, outcome %+v", ok, out, o)
	}
}

// testNetNamespaceSetup checks proxyNamespace itself, on a thread that is
// not otherwise confined: the namespace has nothing but lo and the
// listener, which a goroutine on another thread (in the host's
// namespace) accepts on.
func testNetNamespaceSetup(t *testing.T, host hostServices) {
	var (
		listener *os.File
		setupErr error
		results  = map[string]string{}
		ifaces   string
		cloexec  bool
	)
	inThread(func() {
		listener, setupErr = proxyNamespace(host.port)
		if setupErr != nil {
			return
		}
		flags, err := unix.FcntlInt(listener.Fd(), unix.F_GETFD, 0)
		cloexec = err == nil && flags&unix.FD_CLOEXEC != 0
		// Another thread serves the namespace's listener, as clada's
		// proxy does.
		fd, err := unix.FcntlInt(listener.Fd(), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			setupErr = err
			return
		}
		serveGreeting(t, fd, "proxy")
		for _, addr := range []string{fmt.Sprintf("127.0.0.1:%d", host.port), fmt.Sprintf("127.0.0.2:%d", host.port),
			fmt.Sprintf("[::1]:%d", host.port), fmt.Sprintf("192.0.2.1:%d", host.port)} {
			got, err := greetTCP(addr)
			if err != nil {
				got = "error: " + err.Error()
			}
			results[addr] = got
		}
		if fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err == nil {
			err = unix.Connect(fd, &unix.SockaddrUnix{Name: "@" + host.abstract})
			results["abstract"] = fmt.Sprint(err)
			unix.Close(fd)
		}
		if fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0); err == nil {
			err = unix.Sendto(fd, []byte("x"), 0, &unix.SockaddrInet4{Port: 53, Addr: [4]byte{192, 0, 2, 1}})
			results["udp"] = fmt.Sprint(err)
			unix.Close(fd)
		}
		data, _ := os.ReadFile("/proc/thread-self/net/dev")
		for _, line := range strings.Split(string(data), "\n")[2:] {
			if name, _, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
				ifaces += name + " "
			}
		}
	})
	if setupErr != nil {
		t.Fatalf("proxyNamespace: %v", setupErr)
	}
	defer listener.Close()
	if !cloexec {
		t.Error("the listener is not close-on-exec: every command would inherit it")
	}
	if got := strings.TrimSpace(ifaces); got != "lo" {
		t.Errorf("interfaces in the namespace: %q, want only lo", got)
	}
	want := map[string]string{
		fmt.Sprintf("127.0.0.1:%d", host.port): "proxy",
		fmt.Sprintf("127.0.0.2:%d", host.port): "error: connection refused",
		fmt.Sprintf("[::1]:%d", host.port):     "error: connection refused",
		fmt.Sprintf("192.0.2.1:%d", host.port): "error: network is unreachable",
		"abstract":                             "connection refused",
		"udp":                                  "network is unreachable",
	}
	for k, w := range want {
		if results[k] != w {
			t.Errorf("from the namespace, %s: %q, want %q", k, results[k], w)
		}
	}
	// The host's services are there for a thread outside it.
	if got, err := greetTCP(fmt.Sprintf("127.0.0.2:%d", host.port)); got != "host 127.0.0.2" {
		t.Errorf("outside the namespace, 127.0.0.2: %q, %v", got, err)
	}
}

// testNetNamespaceCommands starts commands held to the proxy, with tmp
// as their TMPDIR (in TempRoot: from a launcher; elsewhere: from a thread
// of their own).
func testNetNamespaceCommands(t *testing.T, f *fixture, tmp string, host hostServices) {
	var served atomic.Int32
	var mu sync.Mutex
	serve := func(l *os.File) error {
		served.Add(1)
		fd, err := unix.FcntlInt(l.Fd(), unix.F_DUPFD_CLOEXEC, 0)
		l.Close()
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		serveGreeting(t, fd, "proxy")
		return nil
	}
	proxied := Command{TmpDir: tmp, Proxy: host.port, ProxyServe: serve}
	portRule := Command{TmpDir: tmp, Proxy: host.port}
	at := func(addr string) string { return fmt.Sprintf("%s:%d", addr, host.port) }
	tests := []struct {
		name   string
		c      Command
		action []string
		want   bool
		out    string
	}{
		{"the proxy", proxied, []string{"greet", at("127.0.0.1")}, true, "proxy"},
		{"another loopback address on the proxy's port", proxied, []string{"greet", at("127.0.0.2")}, false, "connection refused"},
		{"the same, the proxy's port held by Landlock alone", portRule, []string{"greet", at("127.0.0.2")}, true, "host 127.0.0.2"},
		{"the host's 127.0.0.1 by Landlock alone: the proxy's stand-in", portRule, []string{"greet", at("127.0.0.1")}, true, "host 127.0.0.1"},
		{"another machine on the proxy's port", proxied, []string{"greet", at("192.0.2.1")}, false, "network is unreachable"},
		{"the host's abstract socket", proxied, []string{"abstract", host.abstract}, false, ""},
		{"UDP", proxied, []string{"udp", "-"}, false, "permission denied"},
		{"the proxy's listener is not inherited", proxied, []string{"listening-fd", "-"}, true, "ok"},
		{"a Unix socket of its own", proxied, []string{"unix", filepath.Join(tmp, "s.sock")}, true, "ok"},
		{"join clada's network namespace", proxied, []string{"setns-parent", "-"}, false, ""},
	}
	if host.ipv6 {
		tests = append(tests,
			struct {
				name   string
				c      Command
				action []string
				want   bool
				out    string
			}{"::1 on the proxy's port", proxied, []string{"greet", fmt.Sprintf("[::1]:%d", host.port)}, false, "connection refused"})
	}
	for _, tt := range tests {
		before := served.Load()
		o, out, ok := f.run(t, tt.c, tt.action...)
		if ok != tt.want || !strings.Contains(out, tt.out) {
			t.Errorf("%s: %v succeeded = %v, printed %q; want %v, %q", tt.name, tt.action, ok, out, tt.want, tt.out)
		}
		inNS := tt.c.ProxyServe != nil
		if !o.Proxied || o.NetNamespace != inNS || strings.Contains(o.Text, "(network namespace)") != inNS ||
			strings.Contains(o.Text, "(Landlock port rule") == inNS {
			t.Errorf("%s: outcome %+v", tt.name, o)
		}
		// Each command gets a namespace and listener of its own, the
		// same port or not.
		if got := served.Load() - before; (got == 1) != inNS {
			t.Errorf("%s: ProxyServe called %d times", tt.name, got)
		}
	}
	if e := f.sb.Expect(proxied); !e.NetNamespace || !strings.Contains(e.Text, "(network namespace)") {
		t.Errorf("Expect(proxied) = %+v", e)
	}
	if e := f.sb.Expect(portRule); e.NetNamespace || !strings.Contains(e.Text, "(Landlock port rule") {
		t.Errorf("Expect(without ProxyServe) = %+v", e)
	}
	// A proxy that cannot serve the listener: nothing starts.
	failing := proxied
	failing.ProxyServe = func(l *os.File) error { l.Close(); return errors.New("no proxy") }
	cmd := newActCmd(f, "write", "never.txt")
	if _, err := f.sb.Start(cmd, failing); err == nil || cmd.Process != nil {
		t.Errorf("Start with a failing ProxyServe: %v, process %v", err, cmd.Process)
		if cmd.Process != nil {
			cmd.Wait()
		}
	}
	if _, err := os.Stat(filepath.Join(f.root, "never.txt")); err == nil {
		t.Error("the command ran although its proxy could not be served")
	}
}

// newActCmd is the command f.run starts: this test binary acting.
func newActCmd(f *fixture, action ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], action...)
	cmd.Env = append(os.Environ(), actEnv+"=1", "GORACE=atexit_sleep_ms=0")
	cmd.Dir = f.root
	return cmd
}

// TestProxyWithoutNetNamespace: outside clada's namespace (as where user
// namespaces are refused) a command given ProxyServe shares the host's
// network, held to the proxy's port by Landlock alone, and says so;
// ProxyServe is never called.
func TestProxyWithoutNetNamespace(t *testing.T) {
	if os.Getenv(innerEnv) != "" || ns.inside {
		t.Skip("outside clada's namespace only")
	}
	f := newFixture(t, ModeAuto)
	if f.sb.Support().Landlock < 4 {
		t.Skip("Landlock before ABI 4 cannot hold a command to the proxy")
	}
	if f.sb.Support().NetNamespace {
		t.Fatal("Support.NetNamespace outside clada's namespace")
	}
	host := listenHostServices(t)
	served := 0
	c := Command{TmpDir: f.tmp, Proxy: host.port, ProxyServe: func(l *os.File) error { served++; l.Close(); return nil }}
	o, out, ok := f.run(t, c, "greet", fmt.Sprintf("127.0.0.2:%d", host.port))
	if !ok || !strings.HasPrefix(out, "host 127.0.0.2\n") {
		t.Errorf("127.0.0.2 on the proxy's port: ok %v, %q; Landlock's port rule lets it through", ok, out)
	}
	if served != 0 || o.NetNamespace || !strings.Contains(o.Text, "(Landlock port rule: other hosts on its port stay reachable)") {
		t.Errorf("ProxyServe called %d times; outcome %+v", served, o)
	}
	_, out, ok = f.run(t, c, "greet", fmt.Sprintf("127.0.0.3:%d", host.port+1))
	if ok {
		t.Errorf("another port: %q", out)
	}
}

// netnsBenchable skips a benchmark where this process may not make
// network namespaces: outside clada's namespace, only root may.
func netnsBenchable(b *testing.B) {
	if !ns.inside && os.Geteuid() != 0 {
		b.Skip("network namespaces need root, or clada's user namespace")
	}
}

// BenchmarkProxyNamespace is the network namespace's own cost per
// command: a thread that unshares one, brings lo up, listens on
// 127.0.0.1 there, closes the listener and dies.
func BenchmarkProxyNamespace(b *testing.B) {
	netnsBenchable(b)
	before := cpuTime()
	for b.Loop() {
		var err error
		inThread(func() {
			var l *os.File
			if l, err = proxyNamespace(40000); err == nil {
				l.Close()
			}
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-before).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkProxyStart starts and waits for /bin/true held to a proxy, as
// clada starts a proxied command: each with a port of its own (clada
// starts a proxy per command), so a launcher is built per command, by
// Landlock's port rule alone (portrule) or in a network namespace of the
// command's own (netns). The difference is what the namespace costs a
// proxied command; outside clada's user namespace (as root) neither has
// the mount namespace.
func BenchmarkProxyStart(b *testing.B) {
	netnsBenchable(b)
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip(err)
	}
	for _, variant := range []string{"portrule", "netns"} {
		b.Run(variant, func(b *testing.B) {
			sb, err := New(Options{Root: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer sb.Close()
			if !sb.Support().FiltersNetwork() {
				b.Skip("this machine cannot hold a command to the proxy")
			}
			sb.support.NetNamespace = true // as inside clada's namespace
			tmp := filepath.Join(sb.TempRoot(), "cmd")
			if err := os.MkdirAll(tmp, 0o700); err != nil {
				b.Fatal(err)
			}
			var serve func(*os.File) error
			if variant == "netns" {
				serve = func(l *os.File) error { return l.Close() }
			}
			port := 40000
			before := cpuTime()
			for b.Loop() {
				port++
				cmd := exec.Command(truePath)
				o, err := sb.Start(cmd, Command{TmpDir: tmp, Proxy: port, ProxyServe: serve})
				if err != nil {
					b.Fatal(err)
				}
				if o.NetNamespace != (serve != nil) {
					b.Fatalf("outcome %+v", o)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-before).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
