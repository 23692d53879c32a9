package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// interruptedExit is clada's exit code when Ctrl-C or SIGTERM stopped it
// (project.ExitInterrupted, which this package cannot import).
const interruptedExit = 130

// The hidden first arguments with which clada starts itself. Nobody types
// them; Main takes them off before anything else reads os.Args.
const (
	namespaceArg = "__clada-sandbox-namespace"
	probeArg     = "__clada-sandbox-probe"
)

// ns is what Main learnt about this process: whether it runs in a user
// and mount namespace of its own, in which each command gets read-only
// .git and .clada mounts. It is written once, by Main at the start of
// the process, and by RunInNamespace before anything else runs.
var ns struct {
	inside bool   // started by RunInNamespace, and mounts work here
	reason string // why commands get no mount namespace; "" when inside
}

// Main handles the hidden arguments with which clada starts itself, and
// must be called first in main, before anything reads os.Args:
//
//   - started by [RunInNamespace], it removes its argument and returns,
//     and the process goes on as the clada the user started, inside a
//     user and mount namespace of its own;
//   - started by the probe of `clada sandbox`, it reports whether a
//     mount namespace works here and exits.
//
// Otherwise it does nothing.
func Main() {
	if len(os.Args) < 2 {
		return
	}
	switch os.Args[1] {
	case namespaceArg:
		os.Args = append(os.Args[:1:1], os.Args[2:]...)
		if err := setupNamespace(); err != nil {
			ns.reason = err.Error()
			return
		}
		ns.inside = true
	case probeArg:
		if err := setupNamespace(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		// Mounts work; a network namespace is reported on stdout
		// when it does not.
		if err := probeNetNamespace(); err != nil {
			fmt.Println(err)
		}
		os.Exit(0)
	}
}

// setupNamespace checks, in the namespace RunInNamespace made, that a
// command's thread can get a mount namespace with a read-only bind mount
// (AppArmor on Ubuntu 24.04 lets the user namespace be made and then
// denies every capability in it), after making the mounts of this
// namespace receive no propagation back to the host.
func setupNamespace() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("mounts in the user namespace are not allowed: %w", err)
	}
	dir, err := os.MkdirTemp("", "clada-sandbox-probe-")
	if err != nil {
		return err
	}
	defer os.Remove(dir)
	return onThreadOfItsOwn(func() error {
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			return fmt.Errorf("a mount namespace per command is not allowed: %w", err)
		}
		return bindReadOnly(dir)
	})
}

// onThreadOfItsOwn runs f on a thread that dies after it
// ([onDisposableThread]), so that the namespace f moves that thread into
// never reaches another goroutine, and returns f's error.
func onThreadOfItsOwn(f func() error) error {
	errc := make(chan error, 1)
	onDisposableThread(func() { errc <- f() })
	return <-errc
}

// probeNetNamespace makes, on a thread that then dies, the network
// namespace a proxied command gets (see proxyNamespace).
func probeNetNamespace() error {
	return onThreadOfItsOwn(func() error {
		f, err := proxyNamespace(probePort)
		if err == nil {
			f.Close()
		}
		return err
	})
}

// probePort is the port probeNetNamespace listens on, in a namespace of
// its own where every port is free.
const probePort = 49152

// RunInNamespace starts this program again, with the same arguments,
// environment and standard streams, in a new user namespace (mapping the
// user to itself) and mount namespace, and returns the exit code it
// ended with. This costs one start of clada per run, instead of one
// helper process per command: inside, each command's thread gets a mount
// namespace of its own with .git and .clada bind-mounted read-only, while
// clada itself keeps writing .clada/.
//
// started is false, with nothing run, when this process already runs in
// such a namespace, or when the kernel refuses the namespaces (the
// reason is kept for [Support.NamespaceReason]); the caller then goes on
// in this process. SIGINT, SIGTERM and SIGHUP that this process receives
// meanwhile are passed on; the new process dies with this one.
func RunInNamespace(stdin io.Reader, stdout, stderr io.Writer) (code int, started bool) {
	return runInNamespace(os.Args[1:], nil, stdin, stdout, stderr)
}

// runInNamespace is RunInNamespace with the arguments and environment
// (nil: this process's) given.
func runInNamespace(args, env []string, stdin io.Reader, stdout, stderr io.Writer) (code int, started bool) {
	if ns.inside || ns.reason != "" {
		return 0, false
	}
	if os.Getenv(testNoNamespaces) != "" {
		ns.reason = "user namespaces are not allowed here (simulated: " + testNoNamespaces + " is set)"
		return 0, false
	}
	if _, err := landlockABI(); err != nil || os.Getenv(testNoLandlock) != "" {
		ns.reason = "Landlock is missing, so commands are not confined"
		return 0, false
	}
	cmd := exec.Command("/proc/self/exe", append([]string{namespaceArg}, args...)...)
	cmd.Args[0] = os.Args[0]
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.SysProcAttr = namespaceAttr()
	// Pdeathsig is sent when the thread that started the child exits:
	// keep this goroutine on its thread until the child is gone.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, unix.SIGINT, unix.SIGTERM, unix.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		ns.reason = "user namespaces are not allowed here: " + errText(err)
		return 0, false
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	if err == nil {
		return 0, true
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			switch ws.Signal() {
			case unix.SIGINT, unix.SIGTERM, unix.SIGHUP:
				// Ctrl-C reaches both processes, and the one passed on
				// may arrive after clada inside stopped handling it:
				// it was interrupted, as clada reports it (130).
				return interruptedExit, true
			}
			fmt.Fprintf(stderr, "clada: error: clada in its namespace was killed by %v\n", ws.Signal())
			return 1, true
		}
		return ee.ExitCode(), true
	}
	fmt.Fprintf(stderr, "clada: error: waiting for clada in its namespace: %v\n", err)
	return 1, true
}

// namespaceAttr is how RunInNamespace starts clada: new user and mount
// namespaces mapping the user to itself (root maps every id below 2^31, so it keeps
// reaching files of every owner), and CAP_SYS_ADMIN and CAP_NET_ADMIN
// kept across exec so that an ordinary user's clada may make the
// per-command mounts and network namespaces (and bring their loopback
// up). Both are capabilities in clada's user namespace only, which owns
// no device and no network but the namespaces it makes; a command never
// keeps them (confineThread clears the ambient set and drops them from
// the bounding set).
func namespaceAttr() *syscall.SysProcAttr {
	uid, gid := os.Getuid(), os.Getgid()
	attr := &syscall.SysProcAttr{
		Cloneflags:  unix.CLONE_NEWUSER | unix.CLONE_NEWNS,
		Pdeathsig:   unix.SIGKILL,
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN},
	}
	if uid == 0 {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: math.MaxInt32}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: math.MaxInt32}}
		attr.GidMappingsEnableSetgroups = true
	} else {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	}
	return attr
}

// probeNamespaces starts the probe in new namespaces, as RunInNamespace
// would start clada, for `clada sandbox`: "" when mounts work there.
func probeNamespaces() string {
	mounts, _ := probeOnceNS()
	return mounts
}

// probeNetNamespaces says, as probeNamespaces, whether a proxied command
// would get a network namespace of its own: "" when it would, else why
// not (also when mounts do not work, as then clada runs outside its
// namespace).
func probeNetNamespaces() string {
	mounts, net := probeOnceNS()
	if mounts != "" {
		return mounts
	}
	return net
}

// probeOnceNS starts the probe once per process: `clada sandbox` asks
// for both answers.
var probeOnceNS = sync.OnceValues(func() (mounts, net string) {
	if os.Getenv(testNoNamespaces) != "" {
		return "user namespaces are not allowed here (simulated: " + testNoNamespaces + " is set)", ""
	}
	cmd := exec.Command("/proc/self/exe", probeArg)
	cmd.Args[0] = os.Args[0]
	cmd.SysProcAttr = namespaceAttr()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if stderr.Len() > 0 {
			return string(trimNewline(stderr.Bytes())), ""
		}
		return "user namespaces are not allowed here: " + errText(err), ""
	}
	return "", string(trimNewline(stdout.Bytes()))
})

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// bindReadOnly bind-mounts path onto itself, read-only, with everything
// mounted below it, in the calling thread's mount namespace.
func bindReadOnly(path string) error {
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind-mounting %s: %w", path, err)
	}
	err := unix.MountSetattr(unix.AT_FDCWD, path, unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	if !errors.Is(err, unix.ENOSYS) {
		if err != nil {
			return fmt.Errorf("making %s read-only: %w", path, err)
		}
		return nil
	}
	// Before Linux 5.12: remount the bind read-only, keeping the flags
	// the kernel locks in a user namespace (nosuid, nodev, noexec, atime).
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return fmt.Errorf("making %s read-only: %w", path, err)
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range [][2]uintptr{{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME}} {
		if uintptr(st.Flags)&f[0] != 0 {
			flags |= f[1]
		}
	}
	if err := unix.Mount("", path, "", flags, ""); err != nil {
		return fmt.Errorf("making %s read-only: %w", path, err)
	}
	return nil
}

// protectedMounts bind-mounts the protected paths (see protectedPaths)
// read-only in the calling thread's new mount namespace. An absent one is
// left out (the integrity check reports one that appears); a symbolic
// link is left out too (it is not the repository, and Landlock keeps its
// target read-only unless it lies in the root).
//
// dirs are the directories granted for writing: their .git and .clada are
// mounted read-only too.
func protectedMounts(root string, repository bool, dirs []string) error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("mount namespace: %w", err)
	}
	paths := protectedPaths(root, repository)
	for _, d := range dirs {
		paths = append(paths, filepath.Join(d, ".git"), filepath.Join(d, ".clada"))
	}
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			continue
		}
		if err := bindReadOnly(p); err != nil {
			return err
		}
	}
	return nil
}

// proxyNamespace moves the calling (locked) thread into a network
// namespace of its own, brings its loopback interface up, and returns a
// TCP socket listening on 127.0.0.1:port inside it: the only thing a
// command started from this thread can reach on the network. Its
// namespace has no other interface, so no route to any other address;
// the host's loopback services (on every port, the proxy's too), its
// abstract Unix sockets and its IPv6 ::1 are not there. A socket stays in
// the namespace it was made in, but its descriptor is the process's:
// clada's proxy accepts on it from any thread (see [Command.ProxyServe]),
// with no forwarder process and no socket file.
//
// The descriptor is close-on-exec, so no command inherits the listener.
// It needs CAP_SYS_ADMIN and CAP_NET_ADMIN in clada's user namespace
// (see namespaceAttr). On an error the thread may already be in the new
// namespace: it must start nothing (the caller retires it).
func proxyNamespace(port int) (*os.File, error) {
	if port <= 0 || port > 65535 {
		return nil, fmt.Errorf("network namespace: bad proxy port %d", port)
	}
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("network namespace: %w", err)
	}
	if err := loopbackUp(); err != nil {
		return nil, fmt.Errorf("network namespace: bringing lo up: %w", err)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("network namespace: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("network namespace: listening on 127.0.0.1:%d: %w", port, err)
	}
	if err := unix.Listen(fd, unix.SOMAXCONN); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("network namespace: listening on 127.0.0.1:%d: %w", port, err)
	}
	return os.NewFile(uintptr(fd), fmt.Sprintf("clada-proxy-netns:127.0.0.1:%d", port)), nil
}

// loopbackUp sets IFF_UP on lo in the calling thread's network
// namespace (a new one has lo down, and 127.0.0.1 unreachable).
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
