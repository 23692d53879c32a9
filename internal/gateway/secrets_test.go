//go:build unix

package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
)

func TestSecretMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{".env", ".env", true},
		{".env", "sub/.env", true},
		{".env", ".environment", false},
		{".env.*", ".env.local", true},
		{".env.*", "a/.env.production", true},
		{"*.pem", "certs/server.pem", true},
		{"*.key", "k/x.key", true},
		{"*.key", "keyboard.txt", false},
		{"id_rsa*", "id_rsa.pub", true},
		{".git/config", ".git/config", true},
		{".git/config", "sub/.git/config", true},
		{".git/config", "config", false},
		{".git/config", ".git/config.worktree", false},
		{"config/secrets.yml", "app/config/secrets.yml", true},
		{"config/secrets.yml", "secrets.yml", false},
	}
	for _, tt := range tests {
		if got := secretMatch(tt.pattern, tt.name); got != tt.want {
			t.Errorf("secretMatch(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

// TestSecretFiles decides commands that open secrets: each is asked,
// naming the file; others stay allowed.
func TestSecretFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"sub", ".git"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a.txt", ".env", "sub/.ENV.local", "server.pem", ".git/config", "creds.p12"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".env", filepath.Join(root, "innocent")); err != nil {
		t.Fatal(err)
	}
	g, err := New(Options{Root: root, Secrets: []string{"*.P12"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd      string
		want     Decision
		wantWord string
	}{
		{"cat a.txt", Allow, ""},
		{"cat .env", Ask, ".env"},
		{"cat sub/.ENV.local", Ask, "sub/.ENV.local"},
		{"head -n 1 server.pem", Ask, "server.pem"},
		{"cat .git/config", Ask, ".git/config"},
		{"cat innocent", Ask, "innocent"},
		{"cp .env copy.txt", Ask, ".env"},
		{"grep -f .env a.txt", Ask, ".env"},
		{"wc -l creds.p12", Ask, "creds.p12"},
		{"grep -r TOKEN .", Allow, ""},
		{"ls", Allow, ""},
	}
	for _, tt := range tests {
		argv, err := parser.Command(tt.cmd)
		if err != nil {
			t.Fatal(err)
		}
		v := g.Decide(argv, "")
		if v.Decision != tt.want || (tt.want == Ask && (v.Rule != rules.Secret || v.Word != tt.wantWord || v.Why == "" || v.Advice == "")) {
			t.Errorf("Decide(%q) = %s (%s `%s`: %s), want %s `%s`", tt.cmd, v.Decision, v.Rule, v.Word, v.Why, tt.want, tt.wantWord)
		}
	}
}

// secretCases are patterns of every compiled kind and names that probe
// their edges: case, trailing and doubled slashes, dot components, "/".
var secretCases = struct{ patterns, names []string }{
	patterns: []string{".env", ".env.*", "*.pem", "*.key", "id_rsa*", ".git/config", "config/secrets.yml",
		"*", "*.", "a*b", "[ab].txt", `\*`, "/etc/passwd", "a/*.yml", "dir/", "a/./b", "x?", ".git/config/"},
	names: []string{"", "/", ".", "..", ".env", "sub/.env", ".env/", ".env//", ".environment", ".env.local",
		"a/.env.production", "certs/server.pem", ".pem", "pem", "k/x.key", "keyboard.txt", "id_rsa", "id_rsa.pub",
		".git/config", "sub/.git/config", "sub//.git/config", "sub/.git/config/.", "sub/.git/./config",
		"/.git/config", "/abs/.git/config", "config", ".git/config.worktree", "x.git/config",
		"app/config/secrets.yml", "secrets.yml", "a.txt", "b.txt", "*", "ab", "axb", "/etc/passwd",
		"etc/passwd", "a/b.yml", "dir", "a/b", "xy", "../.env", "sub/../.git/config"},
}

// TestSecretMatcherAgrees checks that each compiled pattern decides as
// secretMatch, the path.Match definition it replaces for speed.
func TestSecretMatcherAgrees(t *testing.T) {
	t.Parallel()
	kinds := map[int]bool{}
	for _, p := range secretCases.patterns {
		m := compileSecret(p)
		kinds[m.kind] = true
		for _, name := range secretCases.names {
			n := newSecretName(name)
			if got, want := m.match(n), secretMatch(p, n.name); got != want {
				t.Errorf("pattern %q (kind %d), name %q: compiled %v, path.Match %v", p, m.kind, name, got, want)
			}
		}
	}
	for k := secretGlob; k <= secretLiteralDir; k++ {
		if !kinds[k] {
			t.Errorf("no test pattern compiles to kind %d", k)
		}
	}
}

// FuzzSecretMatcher compares compiled patterns with secretMatch on
// arbitrary patterns and names.
func FuzzSecretMatcher(f *testing.F) {
	for _, p := range secretCases.patterns {
		for _, n := range secretCases.names[:8] {
			f.Add(p, n)
		}
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		pattern = strings.ToLower(pattern)
		n := newSecretName(name)
		if got, want := compileSecret(pattern).match(n), secretMatch(pattern, n.name); got != want {
			t.Errorf("pattern %q, name %q: compiled %v, path.Match %v", pattern, name, got, want)
		}
	})
}

// TestRelInside checks relInside's fast path against filepath.Rel.
func TestRelInside(t *testing.T) {
	t.Parallel()
	tests := []struct {
		root, p, want string
		ok            bool
	}{
		{"/r", "/r/a/b", "a/b", true},
		{"/r", "/r", ".", true},
		{"/r", "/rx/a", "", false},
		{"/r", "/r/../x", "", false},
		{"/r", "/r//a", "a", true},
		{"/r", "/r/a/./b", "a/b", true},
		{"/r", "/x", "", false},
		{"/", "/a/b", "a/b", true},
		{"/r/", "/r/a", "a", true},
		{"/r", "/r/..a", "..a", true},
	}
	for _, tt := range tests {
		got, ok := relInside(tt.root, tt.p)
		if got != tt.want || ok != tt.ok {
			t.Errorf("relInside(%q, %q) = %q, %v; want %q, %v", tt.root, tt.p, got, ok, tt.want, tt.ok)
		}
	}
}
