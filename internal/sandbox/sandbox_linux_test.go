package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// fixture is a project root, a home directory with credential stores, a
// private TMPDIR, a cache and a directory outside all of them.
type fixture struct {
	root, home, tmp, cache, outside string
	sb                              *Sandbox
}

func newFixture(t *testing.T, mode Mode) *fixture {
	t.Helper()
	base := t.TempDir()
	f := &fixture{root: filepath.Join(base, "proj"), home: filepath.Join(base, "home"),
		tmp: filepath.Join(base, "tmp"), cache: filepath.Join(base, "cache"), outside: filepath.Join(base, "outside")}
	files := map[string]string{
		"proj/top.txt":                      "top",
		"proj/src/a.txt":                    "a",
		"proj/src/b.txt":                    "b",
		"proj/src/sub/c.txt":                "c",
		"proj/.git/config":                  "[core]\n",
		"proj/.git/hooks/pre-commit.sample": "#!/bin/sh\n",
		"proj/.clada/config.toml":           "",
		"home/.bashrc":                      "# rc",
		"home/.ssh/id_ed25519":              "SECRET KEY",
		"home/.config/gh/hosts.yml":         "token: SECRET",
		"home/.config/other/settings":       "fine",
		"home/.docker/config.json":          "{\"auths\":{}}",
		"home/.docker/daemon.json":          "{}",
		"home/.netrc":                       "machine x password SECRET",
		"outside/keep.txt":                  "keep",
		"tmp/.keep":                         "",
		"cache/.keep":                       "",
	}
	for name, content := range files {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sb, err := New(Options{Mode: mode, Root: f.root, Home: f.home})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	f.sb = sb
	if mode != ModeOff && !sb.Support().Confines() {
		t.Skipf("this machine cannot confine commands: %s", sb.Support().Reason)
	}
	return f
}

// run starts the test binary confined with grants c to perform one action
// (see act) in the root, and returns what it printed and whether it
// succeeded.
func (f *fixture) run(t *testing.T, c Command, action ...string) (Outcome, string, bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], action...)
	// Under -race a test binary sleeps 1 s at exit unless told not to.
	cmd.Env = append(os.Environ(), actEnv+"=1", "GORACE=atexit_sleep_ms=0")
	cmd.Dir = f.root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	o, err := f.sb.Start(cmd, c)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	err = cmd.Wait()
	return o, strings.TrimSpace(out.String()), err == nil
}

// TestConfinedCommand runs each action confined, started from a thread
// of its own (a TMPDIR anywhere) and from a launcher (a TMPDIR in
// TempRoot, as clada's runner makes it): both must confine alike.
func TestConfinedCommand(t *testing.T) {
	t.Parallel()
	t.Run("thread", func(t *testing.T) { t.Parallel(); testConfined(t, false) })
	t.Run("launcher", func(t *testing.T) { t.Parallel(); testConfined(t, true) })
}

func testConfined(t *testing.T, launcher bool) {
	f := newFixture(t, ModeAuto)
	if launcher {
		tmp, err := os.MkdirTemp(f.sb.TempRoot(), "cmd-")
		if err != nil {
			t.Fatal(err)
		}
		f.tmp = tmp
	}
	listener := listenTCP(t)
	abi := f.sb.Support().Landlock
	grants := Command{TmpDir: f.tmp}
	withCache := Command{TmpDir: f.tmp, Caches: []string{f.cache}}
	withNet := Command{TmpDir: f.tmp, Network: true}
	proxy := listenTCP(t) // stands for clada's proxy
	proxyPort, _ := strconv.Atoi(proxy[strings.LastIndexByte(proxy, ':')+1:])
	withProxy := Command{TmpDir: f.tmp, Proxy: proxyPort}
	repo := Command{TmpDir: f.tmp, Repository: true}
	otherTmp := filepath.Join(os.TempDir(), fmt.Sprintf("clada-sandbox-test-%d-%t", os.Getpid(), launcher))
	// Cleanups run when the parallel subtests are done.
	t.Cleanup(func() {
		os.Remove(fmt.Sprintf("/dev/shm/clada-sandbox-test-%d-%t", os.Getpid(), launcher))
		if _, err := os.Stat(otherTmp); err == nil {
			t.Errorf("%s was created outside the TMPDIR", otherTmp)
			os.Remove(otherTmp)
		}
		if got, _ := os.ReadFile(filepath.Join(f.root, ".git", "config")); string(got) != "[core]\n" {
			t.Errorf(".git/config = %q", got)
		}
	})
	tests := []struct {
		name   string
		c      Command
		action []string
		want   bool
		minABI int
		reason string
	}{
		{name: "write in a subdirectory", action: []string{"write", "src/new.txt"}, want: true},
		{name: "make a directory below the top", action: []string{"mkdir", "src/d"}, want: true},
		{name: "delete a file below the top", action: []string{"remove", "src/a.txt"}, want: true},
		{name: "append to a top-level file", action: []string{"append", "top.txt"}, want: true},
		{name: "create at the top without namespaces", action: []string{"write", "new-top.txt"}, want: false,
			reason: "without a mount namespace the root itself is not writable, only its entries"},
		{name: "write a git hook", action: []string{"write", ".git/hooks/pre-commit"}, want: false},
		{name: "change .git/config", action: []string{"append", ".git/config"}, want: false},
		{name: "write .clada", action: []string{"write", ".clada/specs.toml"}, want: false},
		{name: "move a file into .git", action: []string{"rename", "src/b.txt", ".git/b.txt"}, want: false},
		{name: "write outside the root", action: []string{"write", "../outside/x"}, want: false},
		{name: "hard link a file from outside into the root", action: []string{"link", "../outside/keep.txt", "src/keep-link"}, want: false,
			reason: "Landlock checks paths, not inodes: writing the link would write the outside file; the write layer grants REFER only where the command may write"},
		{name: "hard link from outside with a cache granted", c: withCache, action: []string{"link", "../outside/keep.txt", "src/keep-link2"}, want: false},
		{name: "hard link from outside into a granted cache", c: withCache, action: []string{"link", "../outside/keep.txt", "../cache/keep-link"}, want: false},
		{name: "hard link from home into the root", action: []string{"link", "../home/.bashrc", "src/bashrc-link"}, want: false},
		{name: "hard link across directories inside the root", action: []string{"link", "src/sub/c.txt", "src/c-link"}, want: true,
			reason: "REFER is granted in the root"},
		{name: "write its TMPDIR", action: []string{"write", filepath.Join(f.tmp, "x")}, want: true},
		{name: "write /tmp outside its TMPDIR", action: []string{"write", otherTmp}, want: false},
		{name: "write /dev/null", action: []string{"append", "/dev/null"}, want: true},
		{name: "write /dev/shm (POSIX semaphores)", action: []string{"write", fmt.Sprintf("/dev/shm/clada-sandbox-test-%d-%t", os.Getpid(), launcher)}, want: true},
		{name: "write /dev elsewhere", action: []string{"write", "/dev/clada-sandbox-test"}, want: false},
		{name: "write a granted cache", c: withCache, action: []string{"write", "../cache/x"}, want: true},
		{name: "write the cache without the grant", action: []string{"write", "../cache/y"}, want: false},
		{name: "read ~/.ssh", action: []string{"read", "../home/.ssh/id_ed25519"}, want: false},
		{name: "read ~/.config/gh", action: []string{"read", "../home/.config/gh/hosts.yml"}, want: false},
		{name: "read ~/.docker/config.json", action: []string{"read", "../home/.docker/config.json"}, want: false},
		{name: "read ~/.netrc", action: []string{"read", "../home/.netrc"}, want: false},
		{name: "read another file of home", action: []string{"read", "../home/.bashrc"}, want: true},
		{name: "read beside ~/.config/gh", action: []string{"read", "../home/.config/other/settings"}, want: true},
		{name: "read beside ~/.docker/config.json", action: []string{"read", "../home/.docker/daemon.json"}, want: true},
		{name: "list home", action: []string{"list", "../home"}, want: true},
		{name: "read outside the root", action: []string{"read", "../outside/keep.txt"}, want: true},
		{name: "read /etc", action: []string{"read", "/etc/passwd"}, want: true},
		{name: "connect TCP without the network", action: []string{"connect", listener}, want: false},
		{name: "connect TCP with the network", c: withNet, action: []string{"connect", listener}, want: true},
		{name: "connect the proxy with only the proxy", c: withProxy, action: []string{"connect", proxy}, want: true, minABI: 4},
		{name: "connect elsewhere with only the proxy", c: withProxy, action: []string{"connect", listener}, want: false, minABI: 4,
			reason: "Landlock grants TCP connections to the proxy's port only"},
		{name: "connect the proxy without it", action: []string{"connect", proxy}, want: false},
		{name: "UDP with only the proxy", c: withProxy, action: []string{"udp", "-"}, want: false, minABI: 4,
			reason: "seccomp allows TCP stream sockets only, besides Unix ones"},
		{name: "UDP with the network", c: withNet, action: []string{"udp", "-"}, want: true},
		{name: "Unix socket of its own", action: []string{"unix", filepath.Join(f.tmp, "s.sock")}, want: true},
		{name: "repository: write in .git", c: repo, action: []string{"write", ".git/index"}, want: true,
			reason: "an approved git commit writes .git; without namespaces its config and hooks are left to the integrity check"},
		{name: "repository: write .clada", c: repo, action: []string{"write", ".clada/specs.toml"}, want: false},
		{name: "repository: write outside the root", c: repo, action: []string{"write", "../outside/y"}, want: false},
		{name: "ptrace clada's threads", action: []string{"ptrace-parent", "-"}, want: false,
			reason: "a launcher thread shares the command's Landlock domain; seccomp refuses PTRACE_ATTACH"},
		{name: "read clada's memory", action: []string{"vmread-parent", "-"}, want: false,
			reason: "process_vm_readv needs the same access as ptrace"},
		{name: "signal clada's threads", action: []string{"tkill-parent", "-"}, want: false,
			reason: "seccomp refuses signals to clada's process and to the thread that starts commands"},
		{name: "make a device node in the project", action: []string{"mknod", "src/dev"}, want: false,
			reason: "Landlock grants no device nodes (root could otherwise make one for a disk)"},
		{name: "keep CAP_SYS_MODULE", action: []string{"capbset", fmt.Sprint(unix.CAP_SYS_MODULE)}, want: false,
			reason: "the bounding set loses the capabilities a command run as root must not have"},
		{name: "keep CAP_SYS_ADMIN", action: []string{"capbset", fmt.Sprint(unix.CAP_SYS_ADMIN)}, want: false},
		{name: "keep CAP_DAC_OVERRIDE", action: []string{"capbset", fmt.Sprint(unix.CAP_DAC_OVERRIDE)}, want: os.Geteuid() == 0 || capInBoundingSet(unix.CAP_DAC_OVERRIDE),
			reason: "what builds of files need stays"},
		{name: "io_uring", action: []string{"uring", "-"}, want: false},
		{name: "signal a process outside", action: []string{"kill", fmt.Sprint(os.Getpid())}, want: false, minABI: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each action touches its own files
			if abi < tt.minABI {
				t.Skipf("Landlock ABI %d < %d", abi, tt.minABI)
			}
			c := tt.c
			if c.TmpDir == "" {
				c = grants
			}
			o, out, ok := f.run(t, c, tt.action...)
			if n := f.sb.launcherCount(); launcher != (n > 0) {
				t.Errorf("%d launchers, want some: %v", n, launcher)
			}
			if !o.Confined {
				t.Fatalf("not confined: %s", o.Text)
			}
			if ok != tt.want {
				t.Errorf("%v: succeeded = %v, want %v (%s); it printed %q", tt.action, ok, tt.want, tt.reason, out)
			}
			if !ok && !refusal(out) {
				t.Errorf("%v failed for another reason than a refusal: %q", tt.action, out)
			}
		})
	}
}

// refusal reports whether an action failed because it was refused: EACCES
// and EPERM from Landlock, seccomp's EACCES and ENOSYS, EROFS from a
// read-only mount, EXDEV from a rename across mounts, EBUSY from renaming
// a mount point.
func refusal(out string) bool {
	for _, s := range []string{"permission denied", "operation not permitted", "function not implemented",
		"read-only file system", "invalid cross-device link", "device or resource busy"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

func TestOutcomeText(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ModeAuto)
	sup := f.sb.Support()
	want := fmt.Sprintf("confined: landlock v%d", sup.Landlock)
	if sup.Seccomp {
		want += " + seccomp"
	}
	o, _, _ := f.run(t, Command{}, "read", "top.txt")
	if o.Text != want+", network off" || o.Network || o.Namespace {
		t.Errorf("outcome %+v, want text %q", o, want+", network off")
	}
	o, _, _ = f.run(t, Command{Network: true}, "read", "top.txt")
	if o.Text != want+", network on" || !o.Network {
		t.Errorf("outcome %+v, want text %q", o, want+", network on")
	}
}

func TestModeOff(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ModeOff)
	o, out, ok := f.run(t, Command{}, "read", "../home/.ssh/id_ed25519")
	if o.Confined || o.Text != "unconfined: sandbox = off" {
		t.Errorf("outcome %+v", o)
	}
	if !ok {
		t.Errorf("unconfined read failed: %s", out)
	}
}

func TestUnsupportedMachine(t *testing.T) {
	t.Parallel()
	for _, mode := range []Mode{ModeAuto, ModeRequired} {
		sb := &Sandbox{mode: mode, root: t.TempDir(), support: Support{Reason: "kernel has no Landlock"}}
		cmd := exec.Command("true")
		o, err := sb.Start(cmd, Command{})
		if o.Confined || o.Text != "unconfined: kernel has no Landlock" {
			t.Errorf("%s: outcome %+v", mode, o)
		}
		switch mode {
		case ModeAuto:
			if err != nil {
				t.Errorf("auto: %v", err)
			} else if err := cmd.Wait(); err != nil {
				t.Errorf("auto: the command failed: %v", err)
			}
		case ModeRequired:
			if !errors.Is(err, ErrUnconfined) {
				t.Errorf("required: err = %v, want ErrUnconfined", err)
			}
			if cmd.Process != nil {
				t.Error("required: the command was started")
			}
		}
	}
}

func (s *Sandbox) launcherCount() int {
	s.plat.mu.Lock()
	defer s.plat.mu.Unlock()
	return len(s.plat.launchers)
}

// A launcher serves every command with its grants, and is built again
// when what it was built on changes: here a top-level entry made after
// it, which (without namespaces) only a new launcher can grant.
func TestLauncherReuse(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ModeAuto)
	newTmp := func() string {
		tmp, err := os.MkdirTemp(f.sb.TempRoot(), "cmd-")
		if err != nil {
			t.Fatal(err)
		}
		return tmp
	}
	for i := range 3 {
		if _, out, ok := f.run(t, Command{TmpDir: newTmp()}, "write", fmt.Sprintf("src/n%d.txt", i)); !ok {
			t.Fatalf("command %d: %s", i, out)
		}
	}
	if n := f.sb.launcherCount(); n != 1 {
		t.Errorf("%d launchers after three commands with the same grants, want 1", n)
	}
	if _, out, ok := f.run(t, Command{TmpDir: newTmp(), Network: true}, "write", "src/net.txt"); !ok {
		t.Fatalf("with the network: %s", out)
	}
	if n := f.sb.launcherCount(); n != 2 {
		t.Errorf("%d launchers after other grants, want 2", n)
	}
	if err := os.Mkdir(filepath.Join(f.root, "late"), 0o755); err != nil {
		t.Fatal(err)
	}
	o, out, ok := f.run(t, Command{TmpDir: newTmp()}, "write", "late/x")
	if !ok {
		t.Errorf("a top-level directory made after the launcher is not writable (%s): %s", o.Text, out)
	}
	if _, out, ok := f.run(t, Command{TmpDir: newTmp()}, "write", ".git/hooks/pre-commit"); ok {
		t.Errorf("a rebuilt launcher let a command write a git hook: %s", out)
	}
	// The TMPDIRs' directory goes with the Sandbox.
	root := f.sb.TempRoot()
	f.sb.Close()
	if _, err := os.Stat(root); err == nil {
		t.Errorf("Close left %s", root)
	}
}

func capInBoundingSet(c uintptr) bool {
	in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, c, 0, 0, 0)
	return err == nil && in == 1
}

// TestNoSetID makes each system call that can set the setuid or setgid
// bit, confined, with and without those bits in its mode: the seccomp
// filter must refuse the first with EPERM and let the second through, and
// afterwards no file may carry either bit. The tests run as root, for whom
// the kernel would keep both.
func TestNoSetID(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ModeAuto)
	if !f.sb.Support().Seccomp {
		t.Skip("no seccomp filter on this machine")
	}
	// 40000004755 is 04755 with a bit of the high 32-bit half set, which
	// the kernel ignores (it reads a umode_t).
	setid := []string{"4755", "2755", "6755", "40000004755"}
	plain := []string{"755", "1755", "644"}
	type tc struct {
		call, mode string
		existing   bool // the file exists before the call
		want       bool
	}
	var tests []tc
	chmods := []string{"fchmod", "fchmodat", "fchmodat2"}
	creates := []string{"openat", "openat-tmpfile", "mknodat"}
	dirs := []string{"mkdirat"}
	for _, legacy := range []string{"chmod", "open", "creat", "mknod", "mkdir"} {
		if _, ok := legacyModeCalls[legacy]; !ok {
			continue
		}
		switch legacy {
		case "chmod":
			chmods = append(chmods, legacy)
		case "mkdir":
			dirs = append(dirs, legacy)
		default:
			creates = append(creates, legacy)
		}
	}
	for _, call := range chmods {
		for _, m := range setid {
			tests = append(tests, tc{call, m, true, false})
		}
		for _, m := range plain {
			tests = append(tests, tc{call, m, true, true})
		}
	}
	for _, call := range creates {
		for _, m := range setid {
			tests = append(tests, tc{call, m, false, false})
		}
		for _, m := range plain {
			tests = append(tests, tc{call, m, false, true})
		}
	}
	for _, call := range dirs {
		// mkdir refuses S_ISUID only: Linux keeps neither bit on a new
		// directory (checked below), and setgid trees ask for 02775.
		tests = append(tests, tc{call, "4755", false, false}, tc{call, "6755", false, false},
			tc{call, "2755", false, true}, tc{call, "755", false, true})
	}
	// Without O_CREAT the mode is ignored, and programs pass anything.
	tests = append(tests, tc{"openat-read", "6755", true, true})
	for _, tt := range tests {
		t.Run(tt.call+" "+tt.mode, func(t *testing.T) {
			t.Parallel()
			rel := filepath.Join("src", "m-"+tt.call+"-"+tt.mode)
			path := filepath.Join(f.root, rel)
			if tt.existing {
				if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, out, ok := f.run(t, Command{TmpDir: f.tmp}, "modecall", tt.call, rel, tt.mode)
			if ok != tt.want {
				t.Errorf("succeeded = %v, want %v; it printed %q", ok, tt.want, out)
			}
			if !ok && out != "operation not permitted" {
				t.Errorf("failed with %q, want EPERM from the seccomp filter", out)
			}
			fi, err := os.Lstat(path)
			switch {
			case err == nil && fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0:
				t.Errorf("%s has mode %v", rel, fi.Mode())
			case err == nil && !tt.existing && !ok:
				t.Errorf("the refused call created %s (mode %v)", rel, fi.Mode())
			case err != nil && (tt.existing || ok):
				t.Errorf("%s: %v", rel, err)
			}
		})
	}
	t.Run("openat2", func(t *testing.T) {
		t.Parallel()
		// The mode lies in a struct the filter cannot read: ENOSYS,
		// from which programs fall back to openat.
		rel := filepath.Join("src", "m-openat2")
		_, out, ok := f.run(t, Command{TmpDir: f.tmp}, "modecall", "openat2", rel, "644")
		if ok || out != "function not implemented" {
			t.Errorf("openat2: succeeded = %v, printed %q; want ENOSYS", ok, out)
		}
		if _, err := os.Lstat(filepath.Join(f.root, rel)); err == nil {
			t.Errorf("openat2 created %s", rel)
		}
	})
}

// TestNoSetIDPrograms runs the programs that set modes, confined: those
// asked for the setuid or setgid bit fail, and leave no file with it;
// the same programs without it, and the ordinary ones (which must not
// need openat2), work.
func TestNoSetIDPrograms(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ModeAuto)
	if !f.sb.Support().Seccomp {
		t.Skip("no seccomp filter on this machine")
	}
	suid := filepath.Join(f.root, "src", "suid")
	if err := os.WriteFile(suid, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(suid, 0o755|os.ModeSetuid|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(f.root, "src", "shared")
	if err := os.Mkdir(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o755|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		argv  []string
		check string // a path that must not carry either bit afterwards ("" none)
		want  bool
	}{
		// The cost (README, Limits): GNU chmod keeps a directory's
		// setgid with a numeric mode, and the filter cannot tell a
		// directory from a file.
		{[]string{"chmod", "755", "src/shared"}, "", false},
		{[]string{"chmod", "u+s", "src/a.txt"}, "src/a.txt", false},
		{[]string{"chmod", "g+s", "src"}, "src", false},
		{[]string{"chmod", "4755", "src/a.txt"}, "src/a.txt", false},
		{[]string{"chmod", "--reference=src/suid", "src/b.txt"}, "src/b.txt", false},
		{[]string{"mkdir", "-m", "6755", "src/m1"}, "src/m1", false},
		{[]string{"mkdir", "-m", "2755", "src/m2"}, "src/m2", false},
		{[]string{"install", "-m", "4755", "src/a.txt", "src/i1"}, "src/i1", false},
		{[]string{"cp", "-p", "src/suid", "src/c1"}, "src/c1", false},
		{[]string{"cp", "-a", "src/suid", "src/c2"}, "src/c2", false},
		{[]string{"chmod", "755", "src/a.txt"}, "src/a.txt", true},
		{[]string{"mkdir", "-m", "755", "src/m3"}, "src/m3", true},
		{[]string{"install", "-m", "755", "src/a.txt", "src/i2"}, "src/i2", true},
		{[]string{"cp", "-p", "src/a.txt", "src/c3"}, "src/c3", true},
		{[]string{"mkfifo", "-m", "644", "src/f2"}, "src/f2", true},
		{[]string{"touch", "src/t"}, "src/t", true},
		{[]string{"cat", "src/b.txt"}, "src/b.txt", true},
		{[]string{"ls", "-l", "src"}, "src", true},
	}
	for _, tt := range tests {
		name := strings.Join(tt.argv, " ")
		if _, err := exec.LookPath(tt.argv[0]); err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		// One at a time: several change the same files.
		cmd := exec.Command(tt.argv[0], tt.argv[1:]...)
		cmd.Dir = f.root
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if _, err := f.sb.Start(cmd, Command{TmpDir: f.tmp}); err != nil {
			t.Fatalf("%s: Start: %v", name, err)
		}
		ok := cmd.Wait() == nil
		if ok != tt.want {
			t.Errorf("%s: succeeded = %v, want %v; it printed %q", name, ok, tt.want, out.String())
		}
		if !ok && !strings.Contains(out.String(), "Operation not permitted") {
			t.Errorf("%s failed for another reason than EPERM: %q", name, out.String())
		}
		if tt.check == "" {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(f.root, tt.check)); err == nil && fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
			t.Errorf("%s: %s has mode %v", name, tt.check, fi.Mode())
		} else if err != nil && tt.want {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestReferOnlyWhereWritable checks the write layer's rules: it handles
// LANDLOCK_ACCESS_FS_REFER (linking or moving a file to another
// directory) and grants it only where it grants writing too, in the root,
// the TMPDIR, the caches and /dev/shm. Landlock then refuses a hard link
// from anywhere else into the root (EXDEV): the file would gain rights
// there, and its directory has no REFER. The link itself is tried in
// testConfined and TestNamespaceInner.
func TestReferOnlyWhereWritable(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ModeAuto)
	abi := f.sb.Support().Landlock
	if abi < 2 {
		t.Skipf("Landlock ABI %d refuses every link across directories", abi)
	}
	for _, c := range []Command{{TmpDir: f.tmp}, {TmpDir: f.tmp, Caches: []string{f.cache}, Repository: true, Network: true}} {
		for _, namespace := range []bool{false, true} {
			rs := f.sb.writeLayer(c, namespace)
			if rs.handledFS&llRefer == 0 {
				t.Errorf("%+v, namespace %v: the write layer does not handle REFER", c, namespace)
			}
			places := append([]string{f.root, c.TmpDir, sharedMemory}, c.Caches...)
			for _, r := range rs.rules {
				if r.access&llRefer == 0 {
					continue
				}
				if r.access&llWriteFile == 0 || r.access&llMakeReg == 0 {
					t.Errorf("%+v, namespace %v: %s is granted REFER without writing", c, namespace, r.path)
				}
				if !slices.ContainsFunc(places, func(p string) bool { return within(r.path, p) }) {
					t.Errorf("%+v, namespace %v: %s is granted REFER, outside the places a command writes", c, namespace, r.path)
				}
			}
		}
	}
}
