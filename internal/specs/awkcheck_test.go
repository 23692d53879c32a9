package specs

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/clada/clada/internal/rules"
)

// TestAwkWhy: the awk checker allows programs that only read their input
// and print, and names what makes any other program asked, wherever it
// hides (a function, a string that only looks like a call does not count).
func TestAwkWhy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		prog string
		want string // "" allowed, else a part of the reason
	}{
		{`{print $1}`, ""},
		{`NR==1`, ""},
		{`BEGIN { FS = ":" } $3 >= 1000 { print $1 }`, ""},
		{`{ s += $2 } END { printf "%.2f\n", s / NR }`, ""},
		{`{a[$1]++} END {for (k in a) print k, a[k] | "sort"}`, "print | pipes"},
		{`{a[$1]++} END {for (k in a) print k, a[k]}`, ""},
		{`length($0) > 80 { print FILENAME ":" FNR }`, ""},
		{`{ if ($1 > max) max = $1 } END { print max }`, ""},
		{`{ print ($1 > $2) }`, ""},
		{`{ gsub(/foo/, "bar"); print }`, ""},
		{`{ n = split($0, parts, ","); print parts[n] }`, ""},
		{`{ while ((getline line) > 0) n++ } END { print n }`, ""},
		{`NR % 2 { getline; print }`, ""},
		{`{ getline x < "-"; print x }`, ""},
		{`/start/,/end/`, ""},
		{`{ print tolower($0) }`, ""},
		{`{ print substr($0, index($0, "=") + 1) }`, ""},
		{`{ print > "/dev/stderr" }`, ""},
		{`{ printf "%s\n", $0 >> "/dev/stdout" }`, ""},
		{`{ print; fflush() }`, ""},
		{`{ print $1 > ("/dev/stderr") }`, ""},
		{`{ print > ("/dev/std" "err") }`, "writes to a file"},
		{"# a comment ending in a backslash does not continue \\\nBEGIN { system(\"id\") }", "system()"}, // as in mawk and gawk
		{`/[/]/ { print }`, "could not parse"},                                                           // GoAWK ends the regex at the first /: asked, never misread
		{`{ print; fflush("/dev/stdout") }`, ""},
		{`{ print gensub(/(a)(b)/, "\\2\\1", "g") }`, ""},
		{`BEGIN { print strftime("%Y", systime()) }`, ""},
		{`BEGIN { print ARGV[1], ARGC }`, ""},
		{`BEGIN { for (i = 1; i < ARGC; i++) print ARGV[i] }`, ""},
		{`BEGIN { ARGC = 1 }`, ""},
		{`BEGIN { delete ARGV[1] }`, ""},
		{`function cmp(i1, v1, i2, v2) { return v1 < v2 } { a[$1] = $2 } END { PROCINFO["sorted_in"] = "cmp"; for (k in a) print k }`, ""},
		{`END { PROCINFO["sorted_in"] = "@ind_str_asc"; for (k in a) print k }`, ""},
		// A string or a regular expression that only looks like a call.
		{`/system\(/ { print "system(\"rm -rf /\")" }`, ""},
		{`{ print "print > \"f\"", "cmd | getline" }`, ""},
		{`$0 ~ "ENVIRON" { print "ENVIRON" }`, ""},
		{`# system("x") in a comment
{ print }`, ""},

		{`BEGIN { system("id") }`, "system()"},
		{`function f(x) { return system(x) } { f($0) }`, "system()"},
		{`function g() { h() } function h() { system("x") } BEGIN { g() }`, "system()"},
		{`{ print | "sh" }`, "print | pipes"},
		{`{ printf "%s", $0 | "sh" }`, "printf | pipes"},
		{`{ printf "x" > FILENAME }`, "printf > writes to a file"},
		{`{ print > "out.txt" }`, "print > writes to a file"},
		{`{ print >> "/etc/passwd" }`, "print > writes to a file"},
		{`{ print > "/dev/std" "err" }`, "writes to a file"},
		{`{ f = "/dev/stderr"; print > f }`, "writes to a file"},
		{`BEGIN { "date" | getline d; print d }`, "cmd | getline"},
		{`BEGIN { while (("cat /etc/shadow" | getline l) > 0) print l }`, "cmd | getline"},
		{`BEGIN { getline line < "/etc/shadow"; print line }`, "getline < file"},
		{`{ getline < $2 }`, "getline < file"},
		{`BEGIN { print ENVIRON["AWS_SECRET"] }`, "ENVIRON"},
		{`BEGIN { for (k in ENVIRON) print k }`, "ENVIRON"},
		{`BEGIN { if ("HOME" in ENVIRON) print 1 }`, "ENVIRON"},
		{`function f(a) { return a["HOME"] } BEGIN { print f(ENVIRON) }`, "ENVIRON"},
		{`BEGIN { print SYMTAB["ENV" "IRON"]["HOME"] }`, ""}, // gawk syntax: a parse error, asked below
		{`BEGIN { x = "ENVIRON"; print SYMTAB[x] }`, "SYMTAB"},
		{`BEGIN { ARGV[1] = "/etc/passwd"; ARGC = 2 } { print }`, "ARGV"},
		{`BEGIN { ARGV[ARGC++] = "/etc/passwd" } { print }`, "ARGV"},
		{`BEGIN { sub(/a.txt/, "/etc/passwd", ARGV[1]) } { print }`, "ARGV"},
		{`BEGIN { getline ARGV[1] } { print }`, "ARGV"},
		{`BEGIN { ARGV[1]++ }`, "ARGV"},
		{`BEGIN { ARGV[1] = ARGV[1] "x" }`, "ARGV"},
		{`BEGIN { split("/etc/passwd", ARGV) } { print }`, "ARGV whole"},
		{`function f(a) { a[1] = "/etc/passwd" } BEGIN { f(ARGV) } { print }`, "ARGV whole"},
		{`BEGIN { PROCINFO["sorted_in"] = "system" }`, "PROCINFO"},
		{`BEGIN { PROCINFO["NONFATAL"] = 1 }`, "PROCINFO"},
		{`BEGIN { close("x") }`, "close()"},
		{`{ fflush("cmd") }`, "fflush()"},
		{`@include "lib.awk"`, "@"},
		{`@load "filefuncs"`, "@"},
		{`@ include "lib"`, "@"},
		{`@namespace "x"`, "@"},
		{`BEGIN { f = "system"; @f("id") }`, "undefined function"}, // GoAWK reads @f as a field named f, then f() as a call
		{`BEGIN { print |& "sh" }`, "could not parse"},
		{`BEGIN { "sh" |& getline }`, "could not parse"},
		{`{ print $1`, "could not parse"},
		{`BEGIN { x = asort(a) }`, "could not parse"},
		{`function system(x) { }`, "could not parse"},
		{"BEGIN { x = " + strings.Repeat("(", 201) + "1" + strings.Repeat(")", 201) + " }", "too deep"},
		{"BEGIN { x = " + strings.Repeat("(", 150) + "1" + strings.Repeat(")", 150) + " }", ""},
	}
	for _, tt := range tests {
		got, _ := awkWhy(tt.prog)
		if tt.want == "" && strings.Contains(tt.prog, "SYMTAB[\"ENV\" \"IRON\"]") {
			// GoAWK has no arrays of arrays: gawk's SYMTAB[...][...] does
			// not parse, and is asked.
			if !strings.Contains(got, "could not parse") {
				t.Errorf("awkWhy(%q) = %q, want a parse error", tt.prog, got)
			}
			continue
		}
		switch {
		case tt.want == "" && got != "":
			t.Errorf("awkWhy(%q) = %q, want allowed", tt.prog, got)
		case tt.want != "" && !strings.Contains(got, tt.want):
			t.Errorf("awkWhy(%q) = %q, want a reason with %q", tt.prog, got, tt.want)
		}
	}
}

// TestAwkCheck: awk and gawk commands as a whole: the program from the
// operand, -e and -f files joined; operand assignments are not paths; the
// files must stay confined.
func TestAwkCheck(t *testing.T) {
	t.Parallel()
	r, _ := newFixture(t)
	root := r.Root()
	for name, body := range map[string]string{
		"lib.awk":  "function twice(x) { return 2 * x }\n",
		"uses.awk": "{ print twice($1) }\n",
		"env.awk":  "BEGIN { print ENVIRON[\"HOME\"] }\n",
		"big.awk":  "{ print }\n" + strings.Repeat("# padding\n", maxScriptFile/10+1),
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if runtime.GOOS != "windows" {
		if err := os.Symlink(filepath.Join(root, "evil.awk"), filepath.Join(root, "link.awk")); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := Default()
	tests := []struct {
		argv []string
		want Outcome
		why  string
	}{
		{[]string{"awk", "{print $1}", "a.txt"}, Allow, ""},
		{[]string{"awk", "-f", "prog.awk", "a.txt"}, Allow, ""},
		{[]string{"awk", "-f", "lib.awk", "-f", "uses.awk", "a.txt"}, Allow, ""},
		{[]string{"gawk", "-f", "lib.awk", "-e", "{ print twice($1) }", "a.txt"}, Allow, ""},
		{[]string{"awk", "-f", "evil.awk", "a.txt"}, Ask, "system()"},
		{[]string{"awk", "-f", "prog.awk", "-f", "evil.awk", "a.txt"}, Ask, "system()"},
		{[]string{"awk", "-f", "env.awk"}, Ask, "ENVIRON"},
		{[]string{"awk", "-f", "big.awk", "a.txt"}, Ask, "too large"},
		{[]string{"awk", "-f", "nothere.awk", "a.txt"}, Ask, "does not exist"},
		{[]string{"awk", "-f", "-", "a.txt"}, Ask, "does not exist"},
		{[]string{"awk", "-f", "dir", "a.txt"}, Ask, "not a regular file"},
		{[]string{"awk", "-f", "/etc/passwd", "a.txt"}, Deny, ""},
		{[]string{"awk", "-f", "../x.awk", "a.txt"}, Deny, ""},
		{[]string{"gawk", "--source=BEGIN { system(\"id\") }", "a.txt"}, Ask, "system()"},
		{[]string{"gawk", "-e", "@load \"readfile\"", "a.txt"}, Ask, "@"},
		{[]string{"awk", "-v", "x=../../etc/passwd", "{print x}", "a.txt"}, Allow, ""},
		{[]string{"awk", "{print}", "x=1", "a.txt", "y=../../../etc", "b.txt"}, Allow, ""},
		{[]string{"awk", "{print}", "FS=:", "a.txt"}, Allow, ""},
		{[]string{"awk", "{print}", "../x=1"}, Deny, ""},
		{[]string{"awk", "{print}", "if=../../../x"}, Deny, ""},
		{[]string{"awk", "{print}", "1x=../../../x"}, Deny, ""},
		{[]string{"awk", "{print}", "/etc/passwd"}, Deny, ""},
		{[]string{"awk", "-l", "fork", "{print}", "a.txt"}, Deny, ""},
		{[]string{"awk", "-E", "prog.awk", "a.txt"}, Deny, ""},
		{[]string{"awk", "--exec=prog.awk", "a.txt"}, Deny, ""},
		{[]string{"awk", "-i", "lib.awk", "{print}", "a.txt"}, Deny, ""},
		{[]string{"awk", "-W", "exec", "prog.awk"}, Deny, ""},
		{[]string{"awk", "--version"}, Allow, ""},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, struct {
			argv []string
			want Outcome
			why  string
		}{[]string{"awk", "-f", "link.awk", "a.txt"}, Ask, "system()"})
	}
	for _, tt := range tests {
		sp, _ := s.spec(tt.argv[0])
		v := sp.check(tt.argv, root, r)
		if v.Outcome != tt.want || !strings.Contains(v.Reason, tt.why) {
			t.Errorf("check(%q) = %v (%s), want %v with %q", tt.argv, v.Outcome, v.Reason, tt.want, tt.why)
		}
		if v.Outcome == Ask && (v.Rule != rules.SpecAsk || v.Advice == "") {
			t.Errorf("check(%q): rule %s, advice %q; want spec-ask with advice", tt.argv, v.Rule, v.Advice)
		}
	}
}

// TestAwkGuard: the decision does not depend on the installed awk; where
// it takes --sandbox an allowed program runs with it, elsewhere without,
// and an asked program runs as written.
func TestAwkGuard(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts as programs")
	}
	t.Parallel()
	r, _ := newFixture(t)
	root := r.Root()
	bin := t.TempDir()
	fake := func(name, body string) string {
		t.Helper()
		dir := filepath.Join(bin, name)
		mustMkdir(t, dir)
		if err := os.WriteFile(filepath.Join(dir, "awk"), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, "awk")
	}
	gawk := fake("gawk", `case "$*" in *"/dev/null"*) exit 2;; esac; exit 0`)
	mawk := fake("mawk", `case "$*" in --sandbox*) exit 2;; esac; exit 0`)
	for _, prog := range []string{gawk, mawk} {
		s, _ := Default()
		s.path["awk"] = lookResult{path: prog}
		v := s.Check([]string{"awk", "{print $1}", "a.txt"}, root, r)
		want := []string{prog, "{print $1}", "a.txt"}
		if prog == gawk {
			want = []string{prog, "--sandbox", "{print $1}", "a.txt"}
		}
		if v.Outcome != Allow || !slices.Equal(v.Exec, want) {
			t.Errorf("%s: awk '{print $1}' = %v %q (%s), want allow %q", prog, v.Outcome, v.Exec, v.Reason, want)
		}
		// gawk --sandbox refuses print > "/dev/stderr": such a program
		// runs without the guard.
		v = s.Check([]string{"awk", "{ print > \"/dev/stderr\" }", "a.txt"}, root, r)
		if v.Outcome != Allow || !slices.Equal(v.Exec, []string{prog, "{ print > \"/dev/stderr\" }", "a.txt"}) {
			t.Errorf("%s: awk print > /dev/stderr = %v %q (%s), want allow without --sandbox", prog, v.Outcome, v.Exec, v.Reason)
		}
		v = s.Check([]string{"awk", "BEGIN { system(\"id\") }"}, root, r)
		if v.Outcome != Ask || !slices.Equal(v.Exec, []string{"awk", "BEGIN { system(\"id\") }"}) || !strings.Contains(v.Reason, "system()") {
			t.Errorf("%s: awk system() = %v %q (%s), want ask running it as written", prog, v.Outcome, v.Exec, v.Reason)
		}
	}
}

// TestChmodRecursiveSharedWrite: chmod -R with a mode, or a --reference
// file's mode, that grants write to the group or others is asked; one that
// does not, or a change of one file, runs.
func TestChmodRecursiveSharedWrite(t *testing.T) {
	t.Parallel()
	for m, want := range map[string]bool{
		"o+w": true, "g+w": true, "a+w": true, "+w": true, "=rw": true, "777": true, "0666": true, "775": true, "0757": true,
		"go=u": true, "o+g": true, "u+x,o+w": true, "ugo+rwx": true, "a=rwx": true, "g=rw": true, "o=w": true,
		"755": false, "644": false, "0700": false, "u+w": false, "go-w": false, "a+rX": false, "u=rwx,go=rx": false, "a-w": false, "u=g": false, "+x": false, "g-w+r": false,
	} {
		if got := grantsSharedWrite(m); got != want {
			t.Errorf("grantsSharedWrite(%q) = %v, want %v", m, got, want)
		}
	}
	if runtime.GOOS == "windows" {
		return
	}
	r, _ := newFixture(t)
	root := r.Root()
	shared := filepath.Join(root, "shared.txt")
	if err := os.WriteFile(shared, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o664); err != nil {
		t.Fatal(err)
	}
	s, _ := Default()
	sp, _ := s.spec("chmod")
	for _, tt := range []struct {
		argv string
		want Outcome
	}{
		{"chmod -R --reference=shared.txt dir", Ask},
		{"chmod -R --reference=a.txt dir", Allow},
		{"chmod --reference=shared.txt a.txt", Allow},
		{"chmod -R o+w dir", Ask},
		{"chmod o+w a.txt", Allow},
	} {
		v := sp.check(strings.Fields(tt.argv), root, r)
		if v.Outcome != tt.want || (v.Outcome == Ask && !strings.Contains(v.Reason, "writable by the group or by others")) {
			t.Errorf("check(%q) = %v (%s), want %v", tt.argv, v.Outcome, v.Reason, tt.want)
		}
	}
}
