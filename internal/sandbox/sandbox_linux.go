package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// platform is the Linux state of a Sandbox: the read layer, built once,
// and the launchers, one per set of grants.
type platform struct {
	mu        sync.Mutex
	readFD    int                  // the read layer's ruleset; 0 until built
	granted   map[string]bool      // paths the read layer was given after it was built
	nsFail    string               // why per-command mounts stopped working; "" while they work
	netFail   string               // why per-command network namespaces stopped working; "" while they work
	launchers map[string]*launcher // by launchKey
	tempRoot  string               // the commands' TMPDIRs are made in it; "" until made
}

func (p *platform) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, l := range p.launchers {
		l.retire()
		delete(p.launchers, k)
	}
	var err error
	if p.tempRoot != "" {
		err = os.RemoveAll(p.tempRoot)
		p.tempRoot = ""
	}
	if p.readFD > 0 {
		err = errors.Join(err, unix.Close(p.readFD))
		p.readFD = 0
	}
	return err
}

// maxLaunchers bounds the confined threads a Sandbox keeps: one per set
// of grants seen (network or not, repository or not, which caches).
const maxLaunchers = 8

// launcher is an OS thread, confined once for one set of grants, that
// starts every command with those grants: the goroutine that owns it is
// locked to it and never unlocked, does nothing but cmd.Start, and when it
// returns the runtime ends the thread, so no other goroutine ever runs
// confined. Starting a command from it costs a fork and exec, as starting
// it unconfined does, instead of a new thread, two Landlock layers, a
// seccomp filter and a mount namespace per command. It holds its mount
// namespace for its whole life, so it is retired when what it was built
// on changes (stamp).
type launcher struct {
	ns    bool   // .git and .clada are read-only mounts in its mount namespace
	stamp string // the identity of what it was built on; see Sandbox.stamp
	reqs  chan *exec.Cmd
	errs  chan error
}

// retire ends the launcher's goroutine, and with it the confined thread.
func (l *launcher) retire() { close(l.reqs) }

// TempRoot returns the directory in which the caller makes each
// command's private TMPDIR (runner.Config.TempRoot), so that one grant
// covers them all: the launchers, built once, could not grant each new
// one. It is made on first use (mode 0700, in os.TempDir()), made again
// when it has gone, and removed by Close. "" when commands are not
// confined here; the caller then uses the default.
func (s *Sandbox) TempRoot() string {
	if s.mode == ModeOff || !s.support.Confines() {
		return ""
	}
	s.plat.mu.Lock()
	defer s.plat.mu.Unlock()
	return s.tempRootLocked()
}

func (s *Sandbox) tempRootLocked() string {
	if p := s.plat.tempRoot; p != "" {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR &&
			int(st.Uid) == os.Geteuid() && st.Mode&0o077 == 0 {
			return p
		}
	}
	p, err := os.MkdirTemp("", "clada-sandbox-")
	if err != nil {
		s.plat.tempRoot = ""
		return ""
	}
	s.plat.tempRoot = p
	return p
}

func probePlatform(s *Support) {
	abi, err := landlockABI()
	if os.Getenv(testNoLandlock) != "" {
		abi, err = 0, errors.New("kernel has no Landlock (simulated: "+testNoLandlock+" is set)")
	}
	if err != nil {
		s.Reason = err.Error()
		return
	}
	if n, err := strconv.Atoi(os.Getenv(testLandlockABI)); err == nil && n > 0 && n < abi {
		abi = n
	}
	s.Landlock = abi
	if _, ok, _ := seccompProgram(false, false, os.Getpid(), os.Getpid()); ok {
		// PR_GET_SECCOMP fails with EINVAL on a kernel without seccomp.
		if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err == nil {
			s.Seccomp = true
		}
	}
	s.Namespaces = ns.inside
	s.NetNamespace = ns.inside
	switch {
	case ns.inside:
	case ns.reason != "":
		s.NamespaceReason = ns.reason
	default:
		s.NamespaceReason = "clada was not started in a user namespace of its own"
	}
}

// start starts cmd confined: from the launcher of its grants when its
// TMPDIR lies in TempRoot (as clada's runner makes it), else from an OS
// thread of its own that first confines itself and then dies. Go cannot run code between fork and exec, but a new process
// inherits the Landlock domain, the seccomp filter, no_new_privs and the
// mount namespace of the thread that forks it, and execve keeps them:
// so the command is confined from its first instruction, while clada's
// other threads are not. The steps on that thread, in order: its own
// mount namespace with read-only .git and .clada (where clada runs in a
// user namespace, see RunInNamespace), for a command held to the proxy
// its own network namespace (see proxyNamespace), no ambient
// capabilities, no_new_privs, the seccomp filter, the two Landlock
// layers, then cmd.Start.
func (s *Sandbox) start(cmd *exec.Cmd, c Command) (Outcome, error) {
	c.Caches = s.usableCaches(c.Caches)
	s.plat.mu.Lock()
	root := s.plat.tempRoot
	s.plat.mu.Unlock()
	if root != "" && (c.TmpDir == "" || within(c.TmpDir, root)) {
		return s.launch(cmd, c)
	}
	readFD, err := s.readLayer(append([]string{c.TmpDir}, c.Caches...))
	if err != nil {
		return Outcome{}, fmt.Errorf("sandbox: %w", err)
	}
	s.plat.mu.Lock()
	tryNS := s.support.Namespaces && s.plat.nsFail == ""
	tryNet := s.netNamespaceLocked(c)
	s.plat.mu.Unlock()
	for {
		done := make(chan prepared)
		onDisposableThread(func() {
			r := s.prepareThread(readFD, c, tryNS, tryNet)
			if r.err == nil {
				if r.err = serveProxy(c, r.listener); r.err == nil {
					r.err = cmd.Start()
				}
			}
			done <- r
		})
		r := <-done
		s.plat.mu.Lock()
		if r.nsErr != nil {
			s.plat.nsFail = r.nsErr.Error()
		}
		if r.netErr != nil {
			s.plat.netFail = r.netErr.Error()
		}
		s.plat.mu.Unlock()
		if r.netErr != nil {
			// That thread is unusable (it may be in a network
			// namespace without the listener): once more without.
			tryNet = false
			continue
		}
		return s.outcome(c, r.ns, r.listener != nil), r.err
	}
}

// prepared is what prepareThread did on a command's thread.
type prepared struct {
	ns       bool     // .git and .clada are read-only mounts
	nsErr    error    // why they are not, when they were tried
	listener *os.File // the proxy's listener in the thread's network namespace; nil when it has none
	netErr   error    // why the network namespace failed: the thread must start nothing
	err      error    // confining failed: the thread must start nothing
}

// prepareThread confines the calling (locked) thread for grants c: its
// mount namespace when tryNS, its network namespace with the proxy's
// listener when tryNet, then confineThread. After netErr or err the
// thread must start nothing.
func (s *Sandbox) prepareThread(readFD int, c Command, tryNS, tryNet bool) prepared {
	var r prepared
	if tryNS {
		if r.nsErr = protectedMounts(s.root, c.Repository, s.dirs); r.nsErr == nil {
			r.ns = true
		}
	}
	if tryNet {
		if r.listener, r.netErr = proxyNamespace(c.Proxy); r.netErr != nil {
			return r
		}
	}
	// TCP sockets for the proxy where something holds them to it: the
	// namespace, or Landlock's port rule.
	proxy := c.Proxy > 0 && (r.listener != nil || s.support.Landlock >= 4)
	r.err = s.confineThread(readFD, s.writeLayer(c, r.ns), c.Network, proxy)
	if r.err != nil && r.listener != nil {
		r.listener.Close()
		r.listener = nil
	}
	return r
}

// serveProxy hands the listener of a command's network namespace to
// c.ProxyServe, which owns it from then on; nil when there is none.
func serveProxy(c Command, listener *os.File) error {
	if listener == nil {
		return nil
	}
	if err := c.ProxyServe(listener); err != nil {
		return fmt.Errorf("sandbox: serving clada's proxy in the command's network namespace: %w", err)
	}
	return nil
}

// netNamespaceFor reports whether a command with grants c would now run in
// a network namespace of its own.
func (s *Sandbox) netNamespaceFor(c Command) bool {
	s.plat.mu.Lock()
	defer s.plat.mu.Unlock()
	return s.netNamespaceLocked(c)
}

// netNamespaceLocked is netNamespaceFor with s.plat.mu held.
func (s *Sandbox) netNamespaceLocked(c Command) bool {
	return !c.Network && c.Proxy > 0 && c.ProxyServe != nil && s.support.NetNamespace && s.plat.netFail == ""
}

// launch starts cmd from the launcher of c's grants, building it first
// when there is none or what it was built on has changed. A command in a
// network namespace of its own gets a launcher of its own, retired once
// the command has started: the namespace holds that command's proxy
// listener alone.
func (s *Sandbox) launch(cmd *exec.Cmd, c Command) (Outcome, error) {
	s.plat.mu.Lock()
	defer s.plat.mu.Unlock()
	tmp := s.tempRootLocked()
	if tmp == "" {
		return Outcome{}, errors.New("sandbox: no directory for the commands' TMPDIRs")
	}
	if c.TmpDir != "" && !within(c.TmpDir, tmp) {
		return Outcome{}, fmt.Errorf("sandbox: TMPDIR %s is not in %s", c.TmpDir, tmp)
	}
	tryNS := s.support.Namespaces && s.plat.nsFail == ""
	if s.netNamespaceLocked(c) {
		l, listener, err := s.newLauncher(c, tmp, tryNS, true, "")
		switch {
		case err == nil:
			defer l.retire()
			if err := serveProxy(c, listener); err != nil {
				return Outcome{}, err
			}
			l.reqs <- cmd
			return s.outcome(c, l.ns, true), <-l.errs
		case s.plat.netFail == "":
			return Outcome{}, err
		}
		// No network namespace here after all: the port rule alone,
		// from the shared launcher below.
	}
	key := launchKey(c)
	stamp := s.stamp(c, tmp, tryNS)
	l := s.plat.launchers[key]
	if l != nil && l.stamp != stamp {
		l.retire()
		delete(s.plat.launchers, key)
		l = nil
	}
	if l == nil {
		if len(s.plat.launchers) >= maxLaunchers {
			for k, old := range s.plat.launchers {
				old.retire()
				delete(s.plat.launchers, k)
			}
		}
		var err error
		if l, _, err = s.newLauncher(c, tmp, tryNS, false, stamp); err != nil {
			return Outcome{}, err
		}
		if s.plat.launchers == nil {
			s.plat.launchers = map[string]*launcher{}
		}
		s.plat.launchers[key] = l
	}
	l.reqs <- cmd
	return s.outcome(c, l.ns, false), <-l.errs
}

// newLauncher confines a new thread for grants c, with tmp as the
// writable temporary directory, and leaves it waiting for commands; with
// net, in a network namespace of its own, whose proxy listener it
// returns (when making the namespace fails, s.plat.netFail says why).
// The caller holds s.plat.mu.
func (s *Sandbox) newLauncher(c Command, tmp string, tryNS, net bool, stamp string) (*launcher, *os.File, error) {
	readFD, err := s.readLayerLocked(append([]string{tmp}, c.Caches...))
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	c.TmpDir = tmp
	l := &launcher{stamp: stamp, reqs: make(chan *exec.Cmd), errs: make(chan error)}
	ready := make(chan prepared)
	go func() {
		// Never unlocked: when this goroutine returns, the runtime
		// ends the thread with it, and no other goroutine ever runs
		// confined.
		runtime.LockOSThread()
		r := s.prepareThread(readFD, c, tryNS, net)
		ready <- r
		if r.err != nil || r.netErr != nil {
			return
		}
		for cmd := range l.reqs {
			l.errs <- cmd.Start()
		}
	}()
	r := <-ready
	if r.nsErr != nil {
		s.plat.nsFail = r.nsErr.Error()
	}
	if r.netErr != nil {
		s.plat.netFail = r.netErr.Error()
		return nil, nil, fmt.Errorf("sandbox: %w", r.netErr)
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	l.ns = r.ns
	return l, r.listener, nil
}

// launchKey names a set of grants: commands with the same one share a
// launcher.
func launchKey(c Command) string {
	return fmt.Sprintf("%t\x00%t\x00%q\x00%q\x00%d", c.Network, c.Repository, c.Caches, c.Files, c.Proxy)
}

// stamp is the identity of what a launcher for grants c is built on: the
// files its mounts cover (or, without mounts, the root's entries, through
// the root's modification time), its temporary directory and caches. A
// launcher whose stamp no longer matches is retired: its mounts or rules
// would name files that are not there any more.
func (s *Sandbox) stamp(c Command, tmp string, ns bool) string {
	paths := append(protectedPaths(s.root, c.Repository), tmp)
	for _, d := range s.dirs {
		paths = append(paths, filepath.Join(d, ".git"), filepath.Join(d, ".clada"))
	}
	paths = append(paths, c.Caches...)
	paths = append(paths, c.Files...)
	if !ns {
		paths = append(paths, s.root)
	}
	// A granted directory is granted entry by entry: a new entry there
	// needs a new launcher.
	paths = append(paths, s.dirs...)
	var b strings.Builder
	for _, p := range paths {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			b.WriteString("-;")
			continue
		}
		fmt.Fprintf(&b, "%d:%d:%o", st.Dev, st.Ino, st.Mode)
		if p == s.root || slices.Contains(s.dirs, p) {
			fmt.Fprintf(&b, ":%d.%d", st.Mtim.Sec, st.Mtim.Nsec)
		}
		b.WriteByte(';')
	}
	return b.String()
}

// confineThread confines the calling (locked) thread.
func (s *Sandbox) confineThread(readFD int, write ruleset, network, proxy bool) error {
	writeFD, err := write.create()
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	defer unix.Close(writeFD)
	// A command clada runs never needs capabilities it was not started
	// with; clada in its user namespace keeps CAP_SYS_ADMIN as an
	// ambient capability, which exec would pass on.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("sandbox: clearing ambient capabilities: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: no_new_privs: %w", err)
	}
	if s.support.Seccomp {
		// The filter names this process and thread, which its
		// commands may not trace or stop (see seccompProgram).
		prog, ok, err := seccompProgram(network, proxy, unix.Getpid(), unix.Gettid())
		if err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		if ok {
			if err := installSeccomp(prog); err != nil {
				return fmt.Errorf("sandbox: %w", err)
			}
		}
	}
	if err := restrictThread(readFD); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if err := restrictThread(writeFD); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	return nil
}

// outcome says how a command with grants c was confined: with mounts
// (namespace), in a network namespace of its own (netns).
func (s *Sandbox) outcome(c Command, namespace, netns bool) Outcome {
	sup := s.support
	var b strings.Builder
	b.WriteString("confined: landlock v")
	b.WriteString(strconv.Itoa(sup.Landlock))
	if sup.Seccomp {
		b.WriteString(" + seccomp")
	}
	if namespace {
		b.WriteString(" + mount namespace")
	}
	if c.Repository {
		b.WriteString(", repository writable")
	}
	network, proxied := c.Network, false
	switch {
	case c.Network:
		b.WriteString(", network on")
	case c.Proxy > 0 && netns:
		b.WriteString(", network through clada's proxy only (network namespace)")
		proxied = true
	case c.Proxy > 0 && sup.Landlock >= 4:
		// Landlock knows ports, not addresses.
		b.WriteString(", network through clada's proxy only (Landlock port rule: other hosts on its port stay reachable)")
		proxied = true
	case c.Proxy > 0 && sup.Seccomp:
		// Before Landlock ABI 4, only a network namespace holds a
		// command to the proxy; without one, no TCP socket at all.
		b.WriteString(", network off (no network namespace to hold it to clada's proxy)")
	case sup.Seccomp || sup.Landlock >= 4:
		b.WriteString(", network off")
	default:
		// Neither a socket filter nor Landlock's TCP rules: the
		// network cannot be taken away here.
		b.WriteString(", network open (the kernel cannot close it)")
		network = true
	}
	return Outcome{Confined: true, Namespace: namespace, Network: network, NetNamespace: netns && proxied, Proxied: proxied, Text: b.String()}
}

// readLayer returns the first Landlock layer, which handles reading: every
// file may be read and run, except the credential stores of the home
// directory and the raw memory and disk devices. It is built once per
// Sandbox; later commands add rules to it for their own places (extra: a
// TMPDIR, a cache created since), which a ruleset allows until it is
// enforced again. It
// also grants REFER everywhere, as the kernel denies moving files between
// directories in any layer that does not grant it; the write layer
// decides where (see writeLayer).
func (s *Sandbox) readLayer(extra []string) (int, error) {
	s.plat.mu.Lock()
	defer s.plat.mu.Unlock()
	return s.readLayerLocked(extra)
}

// readLayerLocked is readLayer with s.plat.mu held.
func (s *Sandbox) readLayerLocked(extra []string) (int, error) {
	abi := s.support.Landlock
	if s.plat.readFD == 0 {
		rs := ruleset{handledFS: llReadRights}
		if abi >= 2 {
			rs.handledFS |= llRefer
		}
		t := &tree{excluded: s.creds, filter: devFilter, open: []string{"/dev"}}
		rs.rules = grantTree(nil, "/", llReadRights, llReadDir, t)
		if abi >= 2 {
			rs.rules = append(rs.rules, rule{"/", llRefer})
		}
		// The project, even where it lies under a credential store
		// (the user put it there), minus the stores inside it.
		rs.rules = grantTree(rs.rules, s.root, llReadRights, llReadDir, &tree{excluded: t.excluded})
		fd, err := rs.create()
		if err != nil {
			return 0, err
		}
		s.plat.readFD = fd
		s.plat.granted = map[string]bool{}
	}
	for _, p := range extra {
		if p == "" || s.plat.granted[p] {
			continue
		}
		if err := addPathRule(s.plat.readFD, rule{p, llReadRights}); err != nil {
			return 0, err
		}
		s.plat.granted[p] = true
	}
	return s.plat.readFD, nil
}

// writeLayer is the second Landlock layer, which handles writing (and,
// without the network, TCP and UDP ports and pathname Unix sockets), and
// scopes abstract Unix sockets and signals to the command's own
// processes. It grants writing in the root, c.TmpDir, c.Caches, c.Files
// and /dev/null. With per-command mounts (namespace) the root is granted
// whole and .git and .clada are read-only mounts; without, each top-level
// entry but .git and .clada is granted, so nothing can be created or
// removed at the top of the root. REFER (linking or moving a file into
// another directory) is one of the write rights, so it is granted only
// where writing is: Landlock checks paths, not inodes, and a hard link
// from a file outside into the root would let every later command write
// that file; Landlock refuses it (EXDEV), both because the outside
// directory has no REFER here and because the file would gain the
// root's rights. A link from a TMPDIR or cache names a file the command
// may write anyway.
func (s *Sandbox) writeLayer(c Command, namespace bool) ruleset {
	abi := s.support.Landlock
	// Device nodes are handled but granted nowhere: a command clada runs
	// as root could otherwise make one for a disk in the project and read
	// every file through it.
	rs := ruleset{handledFS: llWriteRights(abi)}
	write := rs.handledFS &^ (llMakeChar | llMakeBlock)
	if abi >= 5 {
		rs.handledFS |= llIoctlDev
	}
	local := uint64(0) // connecting to Unix sockets by path, where the ABI restricts it
	if !c.Network {
		if abi >= 4 {
			rs.handledNet = llBindTCP | llConnectTCP
			if c.Proxy > 0 {
				// Connections to clada's proxy only (on any address:
				// Landlock knows ports, not addresses).
				rs.connectPorts = []int{c.Proxy}
			}
		}
		if abi >= 10 {
			rs.handledNet |= llBindUDP | llSendUDP
		}
		if abi >= 9 {
			rs.handledFS |= llResolveUnix
			local = llResolveUnix
		}
	}
	if abi >= 6 {
		rs.scoped = llScopeUnix | llScopeSig
	}
	creds := s.creds
	excluded := creds
	if !namespace {
		excluded = append(slicesClone(creds), filepath.Join(s.root, ".clada"))
		if !c.Repository {
			excluded = append(excluded, filepath.Join(s.root, ".git"))
		}
	}
	t := &tree{excluded: excluded}
	rs.rules = grantTree(nil, s.root, write|local, 0, t)
	if c.Repository {
		// A worktree's or submodule's repository lies outside the root.
		if gitDir, common := gitDirs(s.root); gitDir != "" && !within(gitDir, s.root) {
			rs.rules = append(rs.rules, rule{gitDir, write}, rule{common, write})
		}
	}
	// The directories the person granted for writing, but their .git
	// and .clada (and any credential store beneath), entry by entry.
	// With mounts, their .git and .clada are read-only mounts and the
	// directory is granted whole; without, entry by entry (no new entry
	// at its top, as for the root).
	for _, d := range s.dirs {
		dt := &tree{excluded: creds}
		if !namespace {
			dt.excluded = append(slicesClone(creds), filepath.Join(d, ".git"), filepath.Join(d, ".clada"))
		}
		rs.rules = grantTree(rs.rules, d, write, 0, dt)
	}
	if c.TmpDir != "" {
		rs.rules = append(rs.rules, rule{c.TmpDir, write | local})
	}
	for _, d := range c.Caches {
		rs.rules = append(rs.rules, rule{d, write})
	}
	// POSIX shared memory and semaphores (sem_open, shm_open) live in
	// /dev/shm: Python's multiprocessing, test runners and browsers need
	// them, as macOS's profile allows ipc-posix-sem.
	rs.rules = append(rs.rules, rule{sharedMemory, write})
	for _, f := range append([]string{os.DevNull}, c.Files...) {
		rs.rules = append(rs.rules, rule{f, (llWriteFile | llTruncate | llIoctlDev) & rs.handledFS})
	}
	return rs
}

// usableCaches keeps the caches that are absolute, outside the credential
// stores and do not hold the root (a cache of "/" would make .git
// writable), creating the missing ones (the tool would create its cache
// itself, and a directory that does not exist cannot be granted).
func (s *Sandbox) usableCaches(caches []string) []string {
	var out []string
	creds := s.creds
next:
	for _, d := range caches {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if err := os.MkdirAll(d, 0o755); err != nil {
			continue
		}
		if r, err := filepath.EvalSymlinks(d); err == nil {
			d = r
		}
		if within(s.root, d) {
			continue
		}
		for _, c := range creds {
			if within(d, c) || within(c, d) {
				continue next
			}
		}
		out = append(out, d)
	}
	return out
}

// droppedCaps are the capabilities a command clada runs as root (or in
// clada's user namespace) never gets: loading kernel modules, raw I/O,
// mounts and the rest of CAP_SYS_ADMIN, tracing, network administration
// and raw sockets, device nodes, file capabilities, the clock, reboot,
// BPF, perf, audit, the kernel log, immutable files. What builds and tests
// of files need stays (CAP_DAC_OVERRIDE, CAP_CHOWN, CAP_FOWNER …), and
// Landlock still decides which files.
var droppedCaps = []uintptr{
	unix.CAP_SYS_MODULE, unix.CAP_SYS_RAWIO, unix.CAP_SYS_ADMIN, unix.CAP_SYS_PTRACE,
	unix.CAP_SYS_BOOT, unix.CAP_NET_ADMIN, unix.CAP_NET_RAW, unix.CAP_SYS_TIME,
	unix.CAP_MAC_ADMIN, unix.CAP_MAC_OVERRIDE, unix.CAP_BPF, unix.CAP_PERFMON,
	unix.CAP_SYSLOG, unix.CAP_MKNOD, unix.CAP_SETFCAP,
	unix.CAP_LINUX_IMMUTABLE, unix.CAP_SYS_PACCT, unix.CAP_SYS_TTY_CONFIG,
	unix.CAP_AUDIT_CONTROL, unix.CAP_AUDIT_READ, unix.CAP_AUDIT_WRITE,
	unix.CAP_WAKE_ALARM, unix.CAP_BLOCK_SUSPEND, unix.CAP_CHECKPOINT_RESTORE,
	unix.CAP_SYS_CHROOT, unix.CAP_IPC_OWNER, unix.CAP_LEASE,
}

// dropCapabilities removes droppedCaps, then CAP_SETPCAP (which dropping
// needs), from the calling thread's bounding set, so that no command it
// starts gains them at exec, root or not. Without CAP_SETPCAP nothing can
// be dropped (EPERM): an ordinary user's commands gain no capabilities at
// exec anyway (no_new_privs keeps file capabilities and set-user-ID bits
// from working), but root's would, so for root that is an error and
// nothing is started.
func dropCapabilities() error {
	for _, c := range append(droppedCaps[:len(droppedCaps):len(droppedCaps)], unix.CAP_SETPCAP) {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0)
		switch {
		case err == nil, errors.Is(err, unix.EINVAL): // EINVAL: unknown to this kernel
		case errors.Is(err, unix.EPERM) && os.Geteuid() != 0:
			return nil
		default:
			return fmt.Errorf("dropping capability %d from the commands' bounding set: %w", c, err)
		}
	}
	return nil
}

// sharedMemory is where POSIX shared memory and named semaphores live.
const sharedMemory = "/dev/shm"

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// onDisposableThread runs f in a new goroutine locked to an OS thread that
// ends when f returns, so that no other goroutine ever runs on a thread f
// confined. The main thread is the exception the runtime makes: a
// goroutine locked to it that returns wedges it rather than ending it, and
// a confined main thread would put clada's own process in the command's
// Landlock domain (a confined command could then signal clada). So when
// the goroutine lands on the main thread, it keeps that thread locked, and
// therefore out of reach, while a second goroutine, which must then run
// on another thread, runs f.
func onDisposableThread(f func()) {
	go func() {
		// Never unlocked: when this goroutine returns, the runtime ends
		// the thread with it, and no other goroutine ever runs confined.
		runtime.LockOSThread()
		if unix.Gettid() != unix.Getpid() {
			f()
			return
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			runtime.LockOSThread()
			f()
		}()
		<-done
		runtime.UnlockOSThread()
	}()
}

// protectedPaths are what a command may not change in the project, as
// per-command mounts keep it: .git and .clada; for a command that may
// write the repository, .clada and the repository's config and hooks.
func protectedPaths(root string, repository bool) []string {
	if !repository {
		return []string{filepath.Join(root, ".git"), filepath.Join(root, ".clada")}
	}
	out := []string{filepath.Join(root, ".clada")}
	if gitDir, common := gitDirs(root); gitDir != "" {
		out = append(out, filepath.Join(common, "config"), filepath.Join(common, "hooks"),
			filepath.Join(gitDir, "config.worktree"))
	}
	return out
}
