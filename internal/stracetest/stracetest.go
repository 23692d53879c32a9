package stracetest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// Find returns the strace program, or "" and why the tests that need it
// skip: -short, not asked for, not installed, or no permission to trace.
//
// The differential tests trace some 2,700 command lines, about 25 s of
// CPU, which would triple the time of `go test ./...`; so they run when
// CLADA_STRACE or CI is set (.ci/run sets CI and installs strace). Under
// CI a missing or unusable strace is an error (failf), never a skip: the
// gate must not pass by not running.
func Find(short bool, failf func(format string, args ...any)) (strace, skip string) {
	ci := os.Getenv("CI") != ""
	switch {
	case short:
		return "", "-short: the strace differential tests run hundreds of programs"
	case !ci && os.Getenv("CLADA_STRACE") == "":
		return "", "the strace differential tests run with CLADA_STRACE=1 or in CI (they take ~25 s of CPU)"
	}
	p, err := exec.LookPath("strace")
	if err != nil {
		why := "strace is not installed, so the differential test cannot run here (apt-get install strace; .ci/run installs it)"
		if ci {
			failf("%s", why)
		}
		return "", why
	}
	if out, err := exec.Command(p, "-f", "-qq", "-o", os.DevNull, "--", "/bin/true").CombinedOutput(); err != nil {
		why := fmt.Sprintf("strace cannot trace here (no ptrace permission?): %v: %s", err, out)
		if ci {
			failf("%s", why)
		}
		return "", why
	}
	return p, ""
}

// Sandbox is where a traced command runs and what it may touch.
type Sandbox struct {
	Root string   // the project root, the working directory
	Base string   // a scratch directory outside the root: HOME and the private TMPDIR go there
	Env  []string // added to PATH, LANG, HOME and TMPDIR
	// Exec reports whether the command may exec path after its own
	// first exec (git runs git); nil allows none.
	Exec func(path string) bool
	// System adds files outside the project the command may look at
	// (prefixes, as in [System]).
	System []string
}

// System are the files outside the project that the traced programs may
// look at, each for a reason that holds for any command line:
var System = []string{
	"/etc/ld.so.cache", "/etc/ld.so.preload", // the dynamic loader
	"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", // shared libraries, compiled locales, gconv modules
	"/usr/share/locale/", "/etc/locale.alias", // message catalogs
	"/etc/localtime", "/usr/share/zoneinfo/", // the local time zone (date, ls -l, find -newer)
	"/etc/nsswitch.conf", "/etc/passwd", "/etc/group", // user and group names (ls -l, find -user)
	"/etc/selinux/config", "/sys/fs/selinux", "/selinux", // libselinux probing (ls, cp, mkdir)
	"/proc/filesystems", "/proc/self/", "/proc/thread-self/", "/proc/mounts", "/proc/meminfo", "/proc/sys/", "/etc/mtab", // the process's own view; df's mount table; sort's memory size
	"/sys/devices/system/cpu/", "/sys/fs/cgroup/", // CPU count (sort, rg)
	"/usr/share/misc/magic", "/usr/share/file/", "/etc/magic", // file's magic database
	"/usr/share/finfo/",         // tree --info's global .info file
	"/dev/null", "/dev/urandom", // stdin is /dev/null; sort -R seeds from /dev/urandom
	"/run/systemd/userdb/", "/run/userdb/", "/run/host/", "/etc/userdb/", "/usr/local/lib/userdb/", // user names through systemd's NSS module
	"/usr/bin/", "/bin/", // PATH: which looks programs up there (and its interpreter reads the which script)
}

// Also allowed, outside the project, and never written: an ancestor
// directory of the root or of a system entry above (realpath and pwd -P
// walk up; the NSS module opens /, /etc, /run on its way), a mount point
// (df looks at every one; /proc/self/mountinfo lists them for anyone),
// the process's own /proc/PID/, the person's HOME (file's ~/.magic, rg's
// global gitignore), and the ignore files of the directories above the
// root (see ancestorIgnoreFile):
// none of them can a model write, and none is named by the command line.

// Run runs argv under strace in sb and returns what broke the rules
// (none: nil).
func Run(strace string, argv []string, sb Sandbox) ([]string, error) {
	tmp, err := os.MkdirTemp(sb.Base, "tmp")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	home := filepath.Join(sb.Base, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	log := filepath.Join(tmp, "strace.log")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	args := append([]string{"-f", "-qq", "-y", "-s", "4096", "-o", log,
		"-e", "trace=%file,%process,fchmod,fchown,ftruncate,fsetxattr,fremovexattr", "--"}, argv...)
	cmd := exec.CommandContext(ctx, strace, args...)
	cmd.Dir = sb.Root
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "LANG=C", "HOME=" + home, "TMPDIR=" + tmp}, sb.Env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("did not end within 10 s: %s", out)
	}
	_ = err // the program may fail (a missing file); what it touched counts
	f, err := os.Open(log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	j := judge{root: sb.Root, tmp: tmp, home: home, pids: map[string]bool{}, system: append(append([]string{}, System...), sb.System...)}
	var bad []string
	execs := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		call, ok := parseStrace(sc.Text(), sb.Root)
		if !ok {
			continue
		}
		j.pids[call.pid] = true
		if call.name == "execve" || call.name == "execveat" {
			execs++
			if execs > 1 && (sb.Exec == nil || !sb.Exec(call.exec)) {
				bad = append(bad, "runs another program: "+call.line)
			}
			continue
		}
		for _, p := range call.paths {
			if why := j.path(p, call.write); why != "" {
				bad = append(bad, why+": "+call.line)
			}
		}
	}
	return bad, sc.Err()
}

// Line is a command line of a differential test that clada allows: Show
// names it in a failure, Argv runs under strace in Sandbox.
type Line struct {
	Show    string
	Argv    []string
	Sandbox Sandbox
}

// RunAll traces the command lines of a differential test on GOMAXPROCS
// workers. allowed turns a job into the line clada allows, or returns
// false when clada denies or asks it: then it is counted in denied and
// not run. allowed is called from several goroutines at once. failures
// are sorted: each traced line that broke the rules, with what [Run]
// found, or with Run's error.
func RunAll[J any](strace string, jobs []J, allowed func(J) (Line, bool)) (ran, denied int, failures []string) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		work = make(chan J)
	)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				l, ok := allowed(j)
				if !ok {
					mu.Lock()
					denied++
					mu.Unlock()
					continue
				}
				bad, err := Run(strace, l.Argv, l.Sandbox)
				mu.Lock()
				ran++
				switch {
				case err != nil:
					failures = append(failures, fmt.Sprintf("%s: %v", l.Show, err))
				case len(bad) > 0:
					failures = append(failures, fmt.Sprintf("%s (allowed by clada):\n\t%s", l.Show, strings.Join(bad, "\n\t")))
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	sort.Strings(failures)
	return ran, denied, failures
}

type judge struct {
	root, tmp, home string
	pids            map[string]bool // the traced processes
	system          []string
}

// path returns why touching p (absolute, as the kernel resolved its
// directory) breaks the rules, or "".
func (j judge) path(p string, write bool) string {
	root, tmp, home := j.root, j.tmp, j.home
	if !filepath.IsAbs(p) {
		return "" // a descriptor that is no file: pipe:[…], socket:[…], anon_inode:…
	}
	p = realDir(p)
	if within(tmp, p) {
		return "" // the private TMPDIR clada gives every command
	}
	if within(root, p) {
		if !write {
			return ""
		}
		rel, _ := filepath.Rel(root, p)
		for _, c := range strings.Split(rel, string(filepath.Separator)) {
			if strings.EqualFold(c, ".git") || strings.EqualFold(c, ".clada") {
				return "writes inside " + c + "/ (" + p + ")"
			}
		}
		return ""
	}
	if write && p != "/dev/null" {
		return "writes outside the project (" + p + ")"
	}
	if within(p, root) || within(home, p) || mountPoints()[p] || ancestorIgnoreFile(p, root) {
		return ""
	}
	if rest, ok := strings.CutPrefix(p, "/proc/"); ok {
		pid, _, _ := strings.Cut(rest, "/")
		if j.pids[pid] {
			return ""
		}
	}
	for _, s := range j.system {
		if p == strings.TrimSuffix(s, "/") || strings.HasPrefix(p, s) || within(p, strings.TrimSuffix(s, "/")) {
			return ""
		}
	}
	return "opens a file outside the project that clada did not check (" + p + ")"
}

// ancestorIgnoreFile reports whether p is an ignore file of a directory
// above the root (.gitignore, .ignore, .rgignore, .git, .git/info/exclude):
// rg opens them even with --no-ignore-parent, which its spec always adds,
// and then does not apply them, so they change nothing it prints.
func ancestorIgnoreFile(p, root string) bool {
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	if base == "exclude" && strings.HasSuffix(dir, "/.git/info") {
		dir, base = filepath.Dir(filepath.Dir(dir)), ".git"
	}
	switch base {
	case ".gitignore", ".ignore", ".rgignore", ".git":
		return dir != root && within(dir, root)
	}
	return false
}

// mountPoints are the mount points /proc/self/mountinfo lists.
var mountPoints = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return m
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) > 4 {
			m[strings.ReplaceAll(f[4], `\040`, " ")] = true
		}
	}
	return m
})

// realDir resolves the directory of p, as the kernel does for any
// lookup; the last component stays as written (lstat does not follow it,
// and a followed final link shows in the file descriptor strace prints).
func realDir(p string) string {
	d, b := filepath.Split(filepath.Clean(p))
	if rd, err := filepath.EvalSymlinks(d); err == nil {
		return filepath.Join(rd, b)
	}
	return filepath.Clean(p)
}

// straceCall is one traced system call.
type straceCall struct {
	line  string
	pid   string
	exec  string // execve: the program
	name  string
	paths []string // absolute
	write bool
}

// parseStrace reads one line of `strace -f -y` output: "PID
// name(args) = result". A call interrupted by another process's
// ("<unfinished ...>") holds its arguments; the "resumed" half is
// skipped. A relative path without a directory descriptor is taken
// relative to cwd, where the command started.
func parseStrace(line, cwd string) (straceCall, bool) {
	c := straceCall{line: line}
	pid, rest, ok := strings.Cut(line, " ")
	if !ok {
		return c, false
	}
	c.pid = pid
	rest = strings.TrimLeft(rest, " ")
	open := strings.IndexByte(rest, '(')
	if open <= 0 || strings.HasPrefix(rest, "<...") || strings.HasPrefix(rest, "+++") || strings.HasPrefix(rest, "---") {
		return c, false
	}
	c.name = rest[:open]
	args := splitStraceArgs(rest[open+1:])
	result := ""
	if i := strings.LastIndex(rest, ") = "); i >= 0 {
		result = rest[i+4:]
	}
	cwdOf := func(a string) string { // AT_FDCWD</dir> or 3</dir>
		if i := strings.IndexByte(a, '<'); i >= 0 && strings.HasSuffix(a, ">") {
			return a[i+1 : len(a)-1]
		}
		return ""
	}
	str := func(a string) (string, bool) {
		if len(a) >= 2 && a[0] == '"' {
			if j := strings.LastIndexByte(a, '"'); j > 0 {
				return a[1:j], true
			}
		}
		return "", false
	}
	// add records the path of args[i], relative to the directory
	// descriptor in args[d] (-1: none, relative to cwd).
	add := func(d, i int) {
		if i >= len(args) {
			return
		}
		p, ok := str(args[i])
		if !ok {
			return
		}
		dir := ""
		if d >= 0 && d < len(args) {
			dir = cwdOf(args[d])
		}
		switch {
		case p == "" && dir != "":
			p = dir // AT_EMPTY_PATH: the descriptor itself
		case filepath.IsAbs(p):
		case dir != "":
			p = filepath.Join(dir, p)
		default:
			p = filepath.Join(cwd, p)
		}
		c.paths = append(c.paths, p)
	}
	switch c.name {
	case "execve":
		if len(args) > 0 {
			c.exec, _ = str(args[0])
		}
		return c, true
	case "execveat":
		return c, true
	case "openat", "openat2", "open", "creat":
		i, d := 1, 0
		if c.name == "open" || c.name == "creat" {
			i, d = 0, -1
		}
		flags := ""
		if i+1 < len(args) {
			flags = args[i+1]
		}
		c.write = c.name == "creat" || strings.Contains(flags, "O_WRONLY") || strings.Contains(flags, "O_RDWR") ||
			strings.Contains(flags, "O_CREAT") || strings.Contains(flags, "O_TRUNC")
		if fd := cwdOf(result); fd != "" {
			c.paths = append(c.paths, fd) // what the kernel opened, links followed
		} else {
			add(d, i)
		}
	case "newfstatat", "fstatat64", "statx", "faccessat", "faccessat2", "readlinkat", "name_to_handle_at",
		"getxattrat", "listxattrat", "inotify_add_watch":
		add(0, 1)
	case "stat", "lstat", "stat64", "lstat64", "access", "readlink", "statfs", "statfs64", "chdir",
		"getxattr", "lgetxattr", "listxattr", "llistxattr", "chroot":
		add(-1, 0)
	case "mkdirat", "unlinkat", "fchmodat", "fchmodat2", "fchownat", "utimensat", "futimesat", "mknodat", "setxattrat", "removexattrat":
		c.write = true
		if len(args) > 1 && args[1] == "NULL" {
			// futimens(fd): the descriptor's own file
			if p := cwdOf(args[0]); p != "" {
				c.paths = append(c.paths, p)
			}
			break
		}
		add(0, 1)
	case "mkdir", "rmdir", "unlink", "chmod", "chown", "lchown", "utime", "utimes", "truncate", "mknod",
		"setxattr", "lsetxattr", "removexattr", "lremovexattr":
		c.write = true
		add(-1, 0)
	case "fchmod", "fchown", "ftruncate", "fsetxattr", "fremovexattr":
		c.write = true
		if len(args) > 0 {
			if p := cwdOf(args[0]); p != "" {
				c.paths = append(c.paths, p)
			}
		}
	case "renameat", "renameat2", "linkat":
		c.write = true
		add(0, 1)
		add(2, 3)
	case "rename", "link":
		c.write = true
		add(-1, 0)
		add(-1, 1)
	case "symlinkat":
		c.write = true
		add(1, 2)
	case "symlink":
		c.write = true
		add(-1, 1)
	}
	return c, true
}

// splitStraceArgs splits the argument list of a call at its top-level
// commas, up to the closing parenthesis.
func splitStraceArgs(s string) []string {
	var (
		args  []string
		depth int
		start int
		inStr bool
	)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if inStr {
			switch ch {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch ch {
		case '"':
			inStr = true
		case '[', '{', '<', '(':
			depth++
		case ']', '}', '>':
			depth--
		case ')':
			if depth == 0 {
				return append(args, strings.TrimSpace(s[start:i]))
			}
			depth--
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(args, strings.TrimSpace(s[start:]))
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	if p == root {
		return true
	}
	if root == "/" {
		return strings.HasPrefix(p, root)
	}
	return strings.HasPrefix(p, root) && len(p) > len(root) && p[len(root)] == '/'
}
