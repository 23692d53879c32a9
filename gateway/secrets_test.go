//go:build unix

package gateway

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clada/clada/parser"
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
		if v.Decision != tt.want || (tt.want == Ask && (v.Rule != RuleSecret || v.Word != tt.wantWord || v.Why == "" || v.Advice == "")) {
			t.Errorf("Decide(%q) = %s (%s `%s`: %s), want %s `%s`", tt.cmd, v.Decision, v.Rule, v.Word, v.Why, tt.want, tt.wantWord)
		}
	}
}
