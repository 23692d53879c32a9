package stracetest

import (
	"slices"
	"testing"
)

// TestParseStrace reads the lines strace -f -y prints: the paths a call
// names (relative to its directory descriptor, or to cwd), whether it
// writes, and the program an execve runs.
func TestParseStrace(t *testing.T) {
	cases := []struct {
		line  string
		paths []string
		write bool
		exec  string
	}{
		{`12 openat(AT_FDCWD</p>, "a.txt", O_RDONLY|O_CLOEXEC) = 3</p/a.txt>`, []string{"/p/a.txt"}, false, ""},
		{`12 openat(AT_FDCWD</p>, "link", O_RDONLY) = 3</etc/passwd>`, []string{"/etc/passwd"}, false, ""},
		{`12 openat(4</p/dir>, "x", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EACCES (Permission denied)`, []string{"/p/dir/x"}, true, ""},
		{`12 newfstatat(AT_FDCWD</p>, "/etc/shadow", 0x7ffe, 0) = -1 ENOENT (No such file or directory)`, []string{"/etc/shadow"}, false, ""},
		{`12 newfstatat(3</p/.git/config>, "", {st_mode=S_IFREG|0644, ...}, AT_EMPTY_PATH) = 0`, []string{"/p/.git/config"}, false, ""},
		{`12 utimensat(3</p/.git/config>, NULL, [UTIME_OMIT, {tv_sec=1}], 0) = 0`, []string{"/p/.git/config"}, true, ""},
		{`12 renameat2(AT_FDCWD</p>, "a", AT_FDCWD</p>, "sub/b", RENAME_NOREPLACE) = 0`, []string{"/p/a", "/p/sub/b"}, true, ""},
		{`12 stat("rel", 0x7ffe) = -1 ENOENT (No such file or directory)`, []string{"/cwd/rel"}, false, ""},
		{`12 unlinkat(5</p/dir>, "f", 0) = 0`, []string{"/p/dir/f"}, true, ""},
		{`13 execve("/usr/bin/pr", ["pr", "-h", "x, y"], 0x55 /* 5 vars */ <unfinished ...>`, nil, false, "/usr/bin/pr"},
		{`12 fchmod(3</p/a.txt>, 0644) = 0`, []string{"/p/a.txt"}, true, ""},
	}
	for _, c := range cases {
		got, ok := parseStrace(c.line, "/cwd")
		if !ok {
			t.Errorf("parseStrace(%q) skipped the line", c.line)
			continue
		}
		if !slices.Equal(got.paths, c.paths) {
			t.Errorf("parseStrace(%q).paths = %q, want %q", c.line, got.paths, c.paths)
		}
		if got.write != c.write || got.exec != c.exec {
			t.Errorf("parseStrace(%q) = write %v exec %q, want %v %q", c.line, got.write, got.exec, c.write, c.exec)
		}
	}
	for _, skip := range []string{`12 <... openat resumed>) = 3`, `12 +++ exited with 0 +++`, `12 --- SIGCHLD {si_signo=SIGCHLD} ---`} {
		if _, ok := parseStrace(skip, "/cwd"); ok {
			t.Errorf("parseStrace(%q) did not skip the line", skip)
		}
	}
}

// TestJudge: what the judge lets through and what it reports.
func TestJudge(t *testing.T) {
	j := judge{root: "/p", tmp: "/b/tmp1", home: "/b/home", pids: map[string]bool{"12": true}, system: System}
	ok := []struct {
		p     string
		write bool
	}{
		{"/p/a.txt", true}, {"/p/.git/config", false}, {"/b/tmp1/x", true}, {"/etc/ld.so.cache", false},
		{"/usr/lib/x86_64-linux-gnu/libc.so.6", false}, {"/proc/12/maps", false}, {"/dev/null", true},
		{"/", false}, {"/b/home/.magic", false}, {"pipe:[123]", false}, {"/.rgignore", false},
	}
	for _, c := range ok {
		if why := j.path(c.p, c.write); why != "" {
			t.Errorf("path(%q, write %v) = %q, want allowed", c.p, c.write, why)
		}
	}
	bad := []struct {
		p     string
		write bool
	}{
		{"/p/.git/index", true}, {"/p/.clada/commands.toml", true}, {"/b/outside/secret", false},
		{"/etc/shadow", false}, {"/proc/1/environ", false}, {"/tmp/x", true}, {"/b/home/.ssh/id_rsa", true},
	}
	for _, c := range bad {
		if why := j.path(c.p, c.write); why == "" {
			t.Errorf("path(%q, write %v) allowed, want a finding", c.p, c.write)
		}
	}
}
