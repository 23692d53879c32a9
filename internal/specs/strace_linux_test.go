package specs

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clada/clada/internal/stracetest"
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
	strace, skip := stracetest.Find(testing.Short(), t.Fatalf)
	if skip != "" {
		t.Skip(skip)
	}
	return strace
}

// traceOne runs argv in root under strace; base is the fixture's
// directory, which holds root and the file outside it.
func traceOne(strace string, argv []string, root, base string) ([]string, error) {
	return stracetest.Run(strace, argv, stracetest.Sandbox{Root: root, Base: base})
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
		if sp.pack != "default" && (sp.pack != "system" || straceSkipSystem[name] != "") {
			// The packs' toolchains (go, npm, cargo, less, tar …) read their
			// own trees and configuration, and tar runs its compressors:
			// this test and its allow list are for the default specs and
			// the readers of pack system.
			if sp.pack == "system" {
				t.Logf("%s (pack system) is not traced: %s", name, straceSkipSystem[name])
			}
			continue
		}
		if _, err := set.LookPath(name); err != nil {
			if os.Getenv("CI") == "true" && straceInCI[name] {
				t.Errorf("%s is not installed, and CI must trace it (.ci/run installs procps, iproute2 and hostname)", name)
			}
			t.Logf("%s is not installed here: its command lines are not traced", name)
			continue
		}
		for _, argv := range straceLines(sp, "OUTSIDE") {
			jobs = append(jobs, job{name, argv})
		}
	}
	shared, sharedAt := straceFixture(t)
	ran, denied, failures := stracetest.RunAll(strace, jobs, func(j job) (stracetest.Line, bool) {
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
			return stracetest.Line{}, false
		}
		return stracetest.Line{Show: strings.Join(argv, " "), Argv: v.Exec, Sandbox: stracetest.Sandbox{Root: r.Root(), Base: base, System: straceSystem[j.name]}}, true
	})
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
		for _, k := range slices.Sorted(maps.Keys(sp.tests)) {
			for _, v := range values(k, sp.tests[k]) {
				lines = append(lines, append(append([]string{sp.name}, first...), v...))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(sp.flags)) {
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

// straceInCI are the programs of pack system that CI installs (.ci/run),
// so that a CI without them fails rather than traces less. journalctl and
// systemctl come with systemd, which CI does not install to stay small:
// they are traced where they are installed.
var straceInCI = map[string]bool{"ps": true, "pgrep": true, "uptime": true, "free": true, "ss": true, "hostname": true, "sha256sum": true, "b2sum": true, "cksum": true, "id": true, "sleep": true, "printenv": true}

// straceSkipSystem are the programs of pack system that the differential
// test leaves out, and why.
var straceSkipSystem = map[string]string{
	"docker": "it talks to the Docker daemon, which this test does not run, and reads its client configuration in HOME",
	"pip":    "an interpreter reading its own tree and site-packages, as the toolchains of the packs",
	"pip3":   "an interpreter reading its own tree and site-packages, as the toolchains of the packs",
	"gem":    "an interpreter reading its own tree, as the toolchains of the packs",
	// coreutils builds these from the same source (digest.c) with the
	// same options as sha256sum, which is traced: tracing each again
	// would only add CI time.
	"sha1sum":   "the same program as sha256sum (coreutils' digest.c), which is traced",
	"sha224sum": "the same program as sha256sum (coreutils' digest.c), which is traced",
	"sha384sum": "the same program as sha256sum (coreutils' digest.c), which is traced",
	"sha512sum": "the same program as sha256sum (coreutils' digest.c), which is traced",
	"md5sum":    "the same program as sha256sum (coreutils' digest.c), which is traced",
}

// straceSystem are the files outside the project that a program of pack
// system reads whatever its command line says, as its job: the process
// table, the socket tables, the journal, systemd's state, the name
// service for the host's names. None is named by a command line.
var straceSystem = map[string][]string{
	"ps":         {"/proc/", "/dev/", "/sys/devices/system/"},
	"pgrep":      {"/proc/", "/dev/", "/sys/devices/system/"},
	"uptime":     {"/proc/", "/run/utmp", "/var/run/utmp", "/run/systemd/", "/sys/devices/system/"},
	"free":       {"/proc/", "/sys/devices/system/"},
	"shasum":     {"/proc/", "/usr/share/perl", "/usr/share/perl5/", "/etc/perl/", "/usr/local/lib/", "/usr/local/share/perl/"},
	"ss":         {"/proc/", "/etc/services", "/etc/hosts", "/etc/resolv.conf", "/etc/host.conf", "/etc/gai.conf", "/etc/iproute2/", "/usr/share/iproute2/"},
	"hostname":   {"/etc/hosts", "/etc/resolv.conf", "/etc/host.conf", "/etc/gai.conf", "/etc/hostname", "/run/systemd/"},
	"journalctl": {"/var/log/journal/", "/run/log/journal/", "/etc/machine-id", "/proc/", "/run/systemd/", "/etc/systemd/", "/var/lib/systemd/", "/usr/lib/systemd/", "/lib/systemd/"},
	"systemctl":  {"/run/systemd/", "/etc/systemd/", "/usr/lib/systemd/", "/lib/systemd/", "/usr/local/lib/systemd/", "/etc/init.d/", "/run/dbus/", "/var/run/dbus/", "/proc/", "/run/user/", "/etc/machine-id", "/var/lib/systemd/"},
}

// TestAwkUnderStrace extends the differential test to awk programs (issue
// 29): programs the awk checker allows, with the options and operands the
// spec allows, run under strace with the installed awk (mawk, gawk, busybox)
// and must open nothing outside the project, write nothing and run
// nothing. The programs it asks run too, without clada, so that the test
// is known to see what they do.
func TestAwkUnderStrace(t *testing.T) {
	strace := straceOrSkip(t)
	if _, err := exec.LookPath("awk"); err != nil {
		t.Skip("awk is not installed here")
	}
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	r, base := straceFixture(t)
	root := r.Root()
	outside := filepath.Join(base, "outside", "secret")
	if err := os.WriteFile(filepath.Join(root, "sum.awk"), []byte("{ s += length($0) } END { print s }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	allowed := [][]string{
		{"awk", "{print $1}", "a.txt"},
		{"awk", "-F:", "-v", "x=" + outside, "{print x, $1}", "a.txt", "b.txt"},
		{"awk", "{print}", "f=" + outside, "a.txt"},
		{"awk", "-f", "sum.awk", "a.txt"},
		{"awk", "{ while ((getline line) > 0) n++ } END { print n }", "a.txt", "b.txt"},
		{"awk", "BEGIN { for (i = 1; i < ARGC; i++) print ARGV[i] }", "a.txt"},
		{"awk", "{ print > \"/dev/stderr\" }", "a.txt"},
		{"awk", `/system\(/ { print "system(\"touch x\")", "print > \"f\"" }`, "a.txt"},
		{"awk", "{ a[$1]++ } END { for (k in a) print k, a[k] }", "a.txt", "b.txt"},
		{"awk", "{ print; fflush() }", "a.txt"},
		{"awk", "BEGIN { ARGC = 1 } { print }", "a.txt"},
	}
	for _, argv := range allowed {
		v := s.Check(argv, root, r)
		if v.Outcome != Allow {
			t.Errorf("%q = %v (%s), want allowed", argv, v.Outcome, v.Reason)
			continue
		}
		bad, err := traceOne(strace, v.Exec, root, base)
		if err != nil {
			t.Fatal(err)
		}
		if len(bad) > 0 {
			t.Errorf("%q (allowed) under strace: %q", argv, bad)
		}
	}
	asked := []struct {
		argv []string
		want string
	}{
		{[]string{"awk", "BEGIN { system(\"true\") }"}, "runs another program"},
		{[]string{"awk", "{ print | \"cat\" }", "a.txt"}, "runs another program"},
		{[]string{"awk", "BEGIN { \"true\" | getline }"}, "runs another program"},
		{[]string{"awk", "BEGIN { getline l < \"" + outside + "\"; print l }"}, "opens a file outside the project"},
		{[]string{"awk", "BEGIN { ARGV[1] = \"" + outside + "\"; ARGC = 2 } { print }", "a.txt"}, "opens a file outside the project"},
		{[]string{"awk", "{ print > \".git/x\" }", "a.txt"}, "writes inside .git/"},
	}
	prog, _ := exec.LookPath("awk")
	for _, c := range asked {
		if v := s.Check(c.argv, root, r); v.Outcome != Ask {
			t.Errorf("%q = %v (%s), want asked", c.argv, v.Outcome, v.Reason)
		}
		bad, err := traceOne(strace, append([]string{prog}, c.argv[1:]...), root, base)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(bad, "\n"), c.want) {
			t.Errorf("%q under strace: %q, want a finding %q", c.argv, bad, c.want)
		}
	}
}
