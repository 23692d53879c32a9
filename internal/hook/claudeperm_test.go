package hook

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestClaudeRuleMatch: Claude Code's rule forms, matched as Claude Code
// matches them, against the command and each of its parts.
func TestClaudeRuleMatch(t *testing.T) {
	tests := []struct {
		rule, cmd string
		want      bool
	}{
		{"Bash", "anything at all", true},
		{"Bash(*)", "ls", true},
		{"Bash(git status)", "git status", true},
		{"Bash(git status)", "git status --short", false},
		{"Bash(git status)", "git  status", true},          // blanks
		{"Bash(git status)", "'git' \"status\"", true},     // quotes
		{"Bash(git status)", "/usr/bin/git status", true},  // absolute program
		{"Bash(git status)", "GIT_DIR=x git status", true}, // assignment
		{"Bash(git status)", "git status > out.txt", true}, // redirection
		{"Bash(git status)", "nice -n 5 git status", true}, // wrapper
		{"Bash(git status)", "timeout -s KILL 5 git status", true},
		{"Bash(git status)", "env A=1 git status", true},
		{"Bash(git status)", "cd sub && git status", true}, // part
		{"Bash(git status)", "git log | git status", true}, // part
		{"Bash(git status)", "echo git status", false},     // an argument
		{"Bash(npm run test:*)", "npm run test", true},
		{"Bash(npm run test:*)", "npm run test -- -v", true},
		{"Bash(npm run test:*)", "npm run testing", false},
		{"Bash(ls *)", "ls", true},
		{"Bash(ls *)", "ls -la", true},
		{"Bash(ls *)", "lsof", false},
		{"Bash(ls*)", "lsof", true},
		{"Bash(git * main)", "git checkout main", true},
		{"Bash(git * main)", "git checkout dev", false},
		{"Bash(* install)", "npm install", true},
		{"Bash(echo \\*)", "echo *", true},
		{"Bash(echo \\*)", "echo x", false},
		{"Bash(rm -rf *)", "rm -rf .git", true},
		{"Read(./x)", "cat x", false}, // another tool's rule
		{"Bash(cat a.txt)", "cat 'a.txt' 2>&1 | tail -1", true},
	}
	for _, tt := range tests {
		r, ok := parseClaudeRule(tt.rule)
		if !ok {
			if tt.want {
				t.Errorf("%s: not read as a Bash rule", tt.rule)
			}
			continue
		}
		rs := &claudeRules{deny: []claudeRule{r}}
		got, _, _ := rs.match(tt.cmd)
		if (got != nil) != tt.want {
			t.Errorf("%s against %q: matched %v, want %v (candidates %q)", tt.rule, tt.cmd, got != nil, tt.want, claudeCandidates(tt.cmd))
		}
	}
}

// TestClaudeSettingsFiles: every scope Claude Code has, the start
// directory's and the root's project files, deny before ask.
func TestClaudeSettingsFiles(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	sub := filepath.Join(root, "sub")
	env := map[string]string{"HOME": home}
	files := claudeSettingsFiles(func(k string) string { return env[k] }, sub, root)
	managed := map[string]string{"linux": "/etc/claude-code", "darwin": "/Library/Application Support/ClaudeCode", "windows": `C:\Program Files\ClaudeCode`}[runtime.GOOS]
	for _, want := range []string{
		filepath.Join(managed, "managed-settings.json"),
		filepath.Join(home, ".claude", "settings.json"),
		filepath.Join(sub, ".claude", "settings.json"), filepath.Join(sub, ".claude", "settings.local.json"),
		filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".claude", "settings.local.json"),
	} {
		if managed == "" && filepath.Base(want) == "managed-settings.json" {
			continue
		}
		if !slices.Contains(files, want) {
			t.Errorf("settings files %q lack %s", files, want)
		}
	}
	env["CLAUDE_CONFIG_DIR"] = filepath.Join(home, "cfg")
	if files := claudeSettingsFiles(func(k string) string { return env[k] }, root, root); !slices.Contains(files, filepath.Join(home, "cfg", "settings.json")) {
		t.Errorf("CLAUDE_CONFIG_DIR: settings files %q lack its settings.json", files)
	}

	// The user's ask and the project's deny, for the same command: deny.
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), `{"permissions": {"ask": ["Bash(make:*)"], "allow": ["Bash(make deploy)"]}}`)
	writeFile(t, filepath.Join(root, ".claude", "settings.local.json"), `{"permissions": {"deny": ["Bash(make deploy)"]}}`)
	delete(env, "CLAUDE_CONFIG_DIR")
	rs, err := readClaudeRules(claudeSettingsFiles(func(k string) string { return env[k] }, sub, root))
	if err != nil {
		t.Fatal(err)
	}
	if r, deny, _ := rs.match("make deploy"); r == nil || !deny {
		t.Errorf("make deploy: %+v deny=%v, want the project's deny", r, deny)
	}
	if r, deny, _ := rs.match("make test"); r == nil || deny {
		t.Errorf("make test: %+v deny=%v, want the user's ask", r, deny)
	}
	if r, _, _ := rs.match("go test"); r != nil {
		t.Errorf("go test: matched %+v, want no rule", r)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestClaudeSettingsNotAFile: settings that are a link to a device (or
// too large) are an error, never a hang: the hook then denies.
func TestClaudeSettingsNotAFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("/dev/zero")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	if err := os.Symlink("/dev/zero", p); err != nil {
		t.Fatal(err)
	}
	if _, err := readClaudeRules([]string{p}); err == nil {
		t.Errorf("a link to /dev/zero read as settings")
	}
	big := filepath.Join(dir, "big.json")
	writeFile(t, big, `{"x": "`+strings.Repeat("a", maxSettings)+`"}`)
	if _, err := readClaudeRules([]string{big}); err == nil {
		t.Errorf("a settings file over %d bytes was read", maxSettings)
	}
}

// TestRootFromAgentDir: the root is found from the agent's directory
// (never narrower than its repository), except where the repository
// holds the home directory: a dotfiles repository does not make the
// home the project.
func TestRootFromAgentDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	repo := filepath.Join(home, "src", "repo")
	for _, d := range []string{filepath.Join(home, ".git"), filepath.Join(repo, ".git"), filepath.Join(repo, "sub"), filepath.Join(home, "notes")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ agentDir, want string }{
		{filepath.Join(repo, "sub"), repo},
		{repo, repo},
		{filepath.Join(home, "notes"), filepath.Join(home, "notes")}, // in the dotfiles repository
	} {
		a := Decide(Request{Command: "ls", Dir: tt.agentDir, Root: tt.agentDir})
		if a.Root != tt.want {
			t.Errorf("started in %s: root %s, want %s (%s)", tt.agentDir, a.Root, tt.want, a.Reason)
		}
	}
}
