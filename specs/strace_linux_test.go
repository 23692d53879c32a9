package specs

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
	"testing"
	"time"
)

// TestSpecsUnderStrace is the differential test of the default specs
// (issue 16 §1): command lines generated from every spec (each flag with
// a value of its type, and string values naming a file outside the
// project or in .git/, operands inside, in .git/ and outside) are decided
// by clada, and those it allows run for real under strace. Every file
// the program opened, looked up or wrote must be inside the project (and
// never written in .git/ or .clada/), or one of the system files below;
// and the program may exec nothing. A failure is a bug in a spec: a value
// typed string that the program opens, an option that writes or runs a
// program.
//
// It needs strace and ptrace permission, and skips with the reason
// elsewhere; CI installs strace (.ci/run).
// TestStraceSeesEscapes runs, without asking clada, command lines that
// break the rules, so that the differential test below is known to see
// an exec, a write into .git/ and a read outside the project.
func TestStraceSeesEscapes(t *testing.T) {
	strace := straceOrSkip(t)
	r, base := straceFixture(t)
	outside := filepath.Join(base, "outside", "secret")
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"diff", "-l", "a.txt", "b.txt"}, "runs another program"},
		{[]string{"file", "-p", ".git/config"}, "writes inside .git/"},
		{[]string{"cat", outside}, "opens a file outside the project"},
		{[]string{"touch", "-r", outside, "a.txt"}, "opens a file outside the project"},
	} {
		prog, err := exec.LookPath(c.argv[0])
		if err != nil {
			t.Logf("%s is not installed here", c.argv[0])
			continue
		}
		bad, err := traceOne(strace, append([]string{prog}, c.argv[1:]...), r.Root(), base)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(bad, "\n"), c.want) {
			t.Errorf("%q under strace: %q, want a finding %q", c.argv, bad, c.want)
		}
	}
}

// straceFixture is newFixture with b.txt unlike a.txt, so that diff a.txt
// b.txt has something to show (diff -l starts pr only then).
func straceFixture(t *testing.T) (*Resolver, string) {
	r, base := newFixture(t)
	if err := os.WriteFile(filepath.Join(r.Root(), "b.txt"), []byte("y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return r, base
}

func straceOrSkip(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the strace differential test runs a few hundred programs")
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed, so the differential test of the specs cannot run here (apt-get install strace; .ci/run installs it)")
	}
	if out, err := exec.Command(strace, "-f", "-qq", "-o", os.DevNull, "--", "/bin/true").CombinedOutput(); err != nil {
		t.Skipf("strace cannot trace here (no ptrace permission?): %v: %s", err, out)
	}
	return strace
}

func TestSpecsUnderStrace(t *testing.T) {
	strace := straceOrSkip(t)
	def, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	set := newSet(nil, def.base)
	set.dialect = DialectGNU

	type job struct {
		name string
		argv []string
	}
	var jobs []job
	for _, name := range set.Names() {
		sp, err := set.spec(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := set.LookPath(name); err != nil {
			t.Logf("%s is not installed here: its command lines are not traced", name)
			continue
		}
		for _, argv := range straceLines(sp, "OUTSIDE") {
			jobs = append(jobs, job{name, argv})
		}
	}
	var (
		mu               sync.Mutex
		ran, denied      int
		failures         []string
		wg               sync.WaitGroup
		work             = make(chan job)
		workers          = runtime.GOMAXPROCS(0)
		shared, sharedAt = straceFixture(t)
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				sp, _ := set.spec(j.name)
				r, base := shared, sharedAt
				if sp.writes != WritesNone || len(sp.editFlags) > 0 {
					r, base = straceFixture(t) // a command that writes gets its own project
				}
				outside := filepath.Join(base, "outside", "secret")
				argv := make([]string, len(j.argv))
				for i, a := range j.argv {
					argv[i] = strings.ReplaceAll(a, "OUTSIDE", outside)
				}
				v := set.Check(argv, r.Root(), r)
				if v.Outcome != Allow {
					mu.Lock()
					denied++
					mu.Unlock()
					continue
				}
				bad, err := traceOne(strace, v.Exec, r.Root(), base)
				mu.Lock()
				ran++
				switch {
				case err != nil:
					failures = append(failures, fmt.Sprintf("%s: %v", strings.Join(argv, " "), err))
				case len(bad) > 0:
					failures = append(failures, fmt.Sprintf("%s (allowed by clada):\n\t%s", strings.Join(argv, " "), strings.Join(bad, "\n\t")))
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
	for _, f := range failures {
		t.Error(f)
	}
	t.Logf("%d command lines: %d allowed and traced, %d denied (not run)", len(jobs), ran, denied)
	if ran < 100 {
		t.Errorf("only %d allowed command lines ran; the generator no longer covers the specs", ran)
	}
}

// straceLines generates the command lines of sp: its allow examples, each
// flag with values of its type (a string value also naming a file outside
// the project, and one in .git/), and operands inside, in .git/ and
// outside. outside stands for a file outside the project.
func straceLines(sp *spec, outside string) [][]string {
	var lines [][]string
	for _, ex := range sp.allow {
		if argv, err := splitExample(ex); err == nil {
			lines = append(lines, argv)
		}
	}
	var lead []string // leading operands that are not paths
	switch {
	case sp.positionals < 0:
		lead = []string{"x"}
	case sp.positionals > 0:
		w := "x"
		if sp.positionalPrefix != "" {
			w = sp.positionalPrefix + "%F"
		}
		for i := 0; i < sp.positionals; i++ {
			lead = append(lead, w)
		}
	}
	operands := [][]string{{"a.txt"}, {".git/config"}, {outside}, {"dir"}, {"a.txt", "b.txt"}, {"a.txt", "new.txt"}, {}}
	if sp.positionals < 0 {
		operands = [][]string{{"x"}, {outside}, {".git/config"}, {}}
		lead = nil
	}
	for _, ops := range operands {
		lines = append(lines, append(append([]string{sp.name}, lead...), ops...))
	}
	// A flag's line reads .git/config, so that a flag that writes what
	// it reads (file -p rewrites times) is seen writing into .git/.
	first := []string{".git/config"}
	switch {
	case sp.exactPaths == 2:
		first = []string{".git/config", "b.txt"}
	case sp.maxPaths == 0 || sp.positionals < 0:
		first = nil
	case sp.writes != WritesNone:
		first = []string{"new.txt"}
		if sp.writes == WritesLast {
			first = []string{"a.txt", "new.txt"}
		}
	}
	if sp.tests != nil {
		lead, first = nil, []string{"."}
	}
	values := func(flag string, t ValueType) [][]string {
		switch t {
		case TypeBool:
			return [][]string{{flag}}
		case TypeOpt:
			if strings.HasPrefix(flag, "--") {
				return [][]string{{flag}, {flag + "=" + outside}}
			}
			return [][]string{{flag}, {flag + outside}}
		case TypeInt:
			return [][]string{{flag, "1"}}
		case TypeDate:
			return [][]string{{flag, "2020-01-01"}, {flag, outside}}
		case TypePath:
			return [][]string{{flag, "b.txt"}, {flag, ".git/config"}}
		case TypeOutPath:
			return [][]string{{flag, "dir2"}}
		}
		return [][]string{{flag, outside}}
	}
	if sp.tests != nil {
		for _, k := range sortedKeys(sp.tests) {
			for _, v := range values(k, sp.tests[k]) {
				lines = append(lines, append(append([]string{sp.name}, first...), v...))
			}
		}
	}
	for _, k := range sortedKeys(sp.flags) {
		for _, v := range values(k, sp.flags[k]) {
			line := append([]string{sp.name}, v...)
			if sp.tests == nil {
				line = append(line, lead...)
			}
			lines = append(lines, append(line, first...))
		}
	}
	return lines
}

// straceSystem are the files outside the project that the traced programs
// may look at, each for a reason that holds for any command line:
var straceSystem = []string{
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

// traceOne runs argv in root under strace and returns what broke the
// rules. base holds the project root, the file outside it, a HOME and a
// private TMPDIR.
func traceOne(strace string, argv []string, root, base string) ([]string, error) {
	tmp, err := os.MkdirTemp(base, "tmp")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	home := filepath.Join(base, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	log := filepath.Join(tmp, "strace.log")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	args := append([]string{"-f", "-qq", "-y", "-s", "4096", "-o", log,
		"-e", "trace=%file,%process,fchmod,fchown,ftruncate,fsetxattr,fremovexattr", "--"}, argv...)
	cmd := exec.CommandContext(ctx, strace, args...)
	cmd.Dir = root
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C", "HOME=" + home, "TMPDIR=" + tmp}
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
	var bad []string
	execs := 0
	pids := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		call, ok := parseStrace(sc.Text(), root)
		if !ok {
			continue
		}
		pids[call.pid] = true
		if call.name == "execve" || call.name == "execveat" {
			execs++
			if execs > 1 {
				bad = append(bad, "runs another program: "+call.line)
			}
			continue
		}
		for _, p := range call.paths {
			if why := judgePath(p, call.write, root, tmp, home, pids); why != "" {
				bad = append(bad, why+": "+call.line)
			}
		}
	}
	return bad, sc.Err()
}

// judgePath returns why touching p (absolute, as the kernel resolved its
// directory) breaks the rules, or "".
func judgePath(p string, write bool, root, tmp, home string, pids map[string]bool) string {
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
	if write {
		return "writes outside the project (" + p + ")"
	}
	if within(p, root) || within(home, p) || mountPoints()[p] || ancestorIgnoreFile(p, root) {
		return ""
	}
	if rest, ok := strings.CutPrefix(p, "/proc/"); ok {
		pid, _, _ := strings.Cut(rest, "/")
		if pids[pid] {
			return ""
		}
	}
	for _, s := range straceSystem {
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
	case "execve", "execveat":
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
