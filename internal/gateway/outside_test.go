package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/specs"
)

// TestDecideOutside: reads outside the project are asked, writes denied;
// credential stores and secret files outside stay denied; granted
// directories are inside for their access, their .git and .clada
// protected, and a credential store stays denied even inside a grant
// (issue 27).
func TestDecideOutside(t *testing.T) {
	top := t.TempDir()
	home := filepath.Join(top, "home")
	root := filepath.Join(top, "proj")
	ro := filepath.Join(top, "ro")
	rw := filepath.Join(top, "rw")
	other := filepath.Join(top, "other")
	for _, d := range []string{root, ro, filepath.Join(rw, ".git"), other, filepath.Join(home, ".ssh"), filepath.Join(home, "notes")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(root, "a.txt"), filepath.Join(root, ".env"), filepath.Join(ro, "r.go"), filepath.Join(rw, "w.txt"),
		filepath.Join(other, "o.txt"), filepath.Join(other, ".env"), filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(home, "notes", "n.txt")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	realHome, _ := filepath.EvalSymlinks(home)
	realRO, _ := filepath.EvalSymlinks(ro)
	realRW, _ := filepath.EvalSymlinks(rw)
	g, err := New(Options{Root: root, Dirs: []specs.GrantedDir{{Path: realRO}, {Path: realRW, Write: true}, {Path: realHome}}})
	if err != nil {
		t.Fatal(err)
	}
	bare, err := New(Options{Root: root, Compose: true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		g        *Gateway
		cmd      string
		want     Decision
		wantRule rules.Rule
		wantWord string
	}{
		{"read outside", bare, "cat ../other/o.txt", Ask, rules.ReadOutside, "../other/o.txt"},
		{"read outside by an option", bare, "grep -f ../other/o.txt a.txt", Ask, rules.ReadOutside, "../other/o.txt"},
		{"recursive read outside", bare, "grep -rn x ../other", Ask, rules.ReadOutside, "../other"},
		{"write outside", bare, "touch ../other/new", Deny, rules.PathOutsideRoot, "../other/new"},
		{"copy out", bare, "cp a.txt ../other/", Deny, rules.PathOutsideRoot, "../other/"},
		{"copy in", bare, "cp ../other/o.txt b.txt", Ask, rules.ReadOutside, "../other/o.txt"},
		{"secret outside", bare, "cat ../other/.env", Deny, rules.PathOutsideRoot, "../other/.env"},
		{"credential store", bare, "cat " + home + "/.ssh/id_ed25519", Deny, rules.PathOutsideRoot, home + "/.ssh/id_ed25519"},
		{"credential store directory", bare, "ls " + home + "/.ssh", Deny, rules.PathOutsideRoot, home + "/.ssh"},
		{"the system's password hashes", bare, "cat /etc/shadow", Deny, rules.PathOutsideRoot, "/etc/shadow"},
		{"the environment of a process", bare, "cat /proc/self/environ", Deny, rules.PathOutsideRoot, "/proc/self/environ"},
		{"a host key", bare, "head /etc/ssh/ssh_host_ed25519_key", Deny, rules.PathOutsideRoot, "/etc/ssh/ssh_host_ed25519_key"},
		{"tar works in -C: never a read", bare, "tar -xf a.tar -C ../other", Deny, rules.PathOutsideRoot, ""},
		{"make works in -C: never a read", bare, "make -C ../other", Deny, rules.PathOutsideRoot, ""},
		{"a program that runs code never loads it from outside", bare, "make -f ../other/o.txt", Deny, rules.PathOutsideRoot, "../other/o.txt"},
		{"find -exec over a directory outside", bare, "find ../other -name o.txt -exec cat {} \\;", Deny, rules.PathOutsideRoot, "../other"},
		{"an ask for a secret says its reads outside too", bare, "cat .env ../other/o.txt", Ask, rules.Secret, ".env"},
		{"read granted", g, "cat ../ro/r.go", Allow, "spec", ""},
		{"write read-only grant", g, "touch ../ro/new", Deny, rules.PathOutsideRoot, "../ro/new"},
		{"write read-write grant", g, "touch ../rw/new", Allow, "spec", ""},
		{"write a grant's .git", g, "touch ../rw/.git/config", Deny, rules.ProtectedPath, "../rw/.git/config"},
		{"copy between grants", g, "cp ../ro/r.go ../rw/r.go", Allow, "spec", ""},
		{"read outside the grants", g, "cat ../other/o.txt", Ask, rules.ReadOutside, ""},
		{"home granted, its notes read", g, "cat " + home + "/notes/n.txt", Allow, "spec", ""},
		{"home granted, its credential store not", g, "cat " + home + "/.ssh/id_ed25519", Deny, rules.PathOutsideRoot, ""},
	}
	for _, tt := range tests {
		argv, err := parser.Command(tt.cmd)
		if err != nil {
			t.Fatal(err)
		}
		v := tt.g.Decide(argv, "")
		if v.Decision != tt.want || v.Rule != tt.wantRule || (tt.wantWord != "" && v.Word != tt.wantWord) {
			t.Errorf("%s: Decide(%q) = %s (%s `%s`: %s), want %s (%s `%s`)", tt.name, tt.cmd, v.Decision, v.Rule, v.Word, v.Reason, tt.want, tt.wantRule, tt.wantWord)
		}
		if v.Decision != Allow && v.Advice == "" {
			t.Errorf("%s: %s without advice", tt.name, v.Decision)
		}
		if v.Rule == rules.ReadOutside && (!strings.Contains(v.Why, "outside the project") || len(v.Outside) == 0) {
			t.Errorf("%s: the question does not name the read outside: %q", tt.name, v.Why)
		}
		if tt.name == "an ask for a secret says its reads outside too" && !strings.Contains(v.Why, "it also reads ../other/o.txt") {
			t.Errorf("%s: %q does not say the read outside", tt.name, v.Why)
		}
	}
	// A redirection's file is read like an operand; one outside is asked.
	r := bare.Check("wc -l < ../other/o.txt", "")
	if r.Decision != Ask || r.Rule != rules.ReadOutside || !strings.Contains(r.Reason, "`< ../other/o.txt` reads") {
		t.Errorf("wc -l < ../other/o.txt = %s (%s: %s), want ask (read-outside)", r.Decision, r.Rule, r.Reason)
	}
	if r := bare.Check("wc -l < ../other/.env", ""); r.Decision != Deny {
		t.Errorf("wc -l < ../other/.env = %s (%s), want deny", r.Decision, r.Rule)
	}
}
