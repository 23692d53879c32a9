package hook

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func installOpts(t *testing.T, agent string) InstallOptions {
	t.Helper()
	return InstallOptions{Agent: agent, Root: t.TempDir(), Home: t.TempDir(), Clada: "clada"}
}

func writeSettings(t *testing.T, o InstallOptions, text string) string {
	t.Helper()
	path, err := o.Path()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Install into an existing file changes only what it adds, and uninstall
// gives back the file byte for byte: other hooks, comments, trailing
// commas, key order and formatting are kept.
func TestInstallUninstallRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, agent, before, wantInstalled string
	}{
		{
			name: "claude: other hooks and comments", agent: "claude-code",
			before: `{
  // the team's hooks
  "model": "x",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Write", /* formatter */
        "hooks": [{"type": "command", "command": "fmt-check"}]
      }
    ],
    "Stop": []
  }
}
`,
			wantInstalled: `{
  // the team's hooks
  "model": "x",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Write", /* formatter */
        "hooks": [{"type": "command", "command": "fmt-check"}]
      },
      {
        "matcher": "Bash|Monitor",
        "hooks": [
          {
            "type": "command",
            "command": "clada hook claude-code",
            "timeout": 30,
            "onFailure": "block"
          }
        ]
      }
    ],
    "Stop": []
  }
}
`,
		},
		{
			name: "claude: no hooks yet, trailing comma, tabs", agent: "claude-code",
			// A trailing comma after the last member stays the file's style.
			before: "{\n\t\"model\": \"x\",\n}\n",
			wantInstalled: "{\n\t\"model\": \"x\",\n\t\"hooks\": {\n\t\t\"PreToolUse\": [\n\t\t\t{\n\t\t\t\t\"matcher\": \"Bash|Monitor\",\n" +
				"\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": \"clada hook claude-code\",\n" +
				"\t\t\t\t\t\t\"timeout\": 30,\n\t\t\t\t\t\t\"onFailure\": \"block\"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t},\n}\n",
		},
		{
			name: "claude: hooks without PreToolUse", agent: "claude-code",
			before:        `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}`,
			wantInstalled: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}], "PreToolUse": [{"matcher":"Bash|Monitor","hooks":[{"type":"command","command":"clada hook claude-code","timeout":30,"onFailure":"block"}]}]}}`,
		},
		{
			name: "gemini: comments kept", agent: "gemini",
			before: `{
  // Gemini CLI strips comments
  "hooks": {
    "BeforeTool": [
      {"matcher": "write_file", "hooks": [{"type": "command", "command": "lint"}]}, // lint edits
    ]
  }
}
`,
			wantInstalled: `{
  // Gemini CLI strips comments
  "hooks": {
    "BeforeTool": [
      {"matcher": "write_file", "hooks": [{"type": "command", "command": "lint"}]}, // lint edits
      {
        "matcher": "run_shell_command",
        "hooks": [
          {
            "name": "clada",
            "type": "command",
            "command": "clada hook gemini",
            "timeout": 30000
          }
        ]
      },
    ]
  }
}
`,
		},
		{
			name: "cursor: one line with a trailing comma", agent: "cursor",
			before:        `{"version": 1, "hooks": {"beforeShellExecution": [{"command": "./audit.sh"},]}}`,
			wantInstalled: `{"version": 1, "hooks": {"beforeShellExecution": [{"command": "./audit.sh"}, {"command":"clada hook cursor"},]}}`,
		},
		{
			name: "claude: CRLF line ends", agent: "claude-code",
			before: "{\r\n  \"hooks\": {\r\n    \"PreToolUse\": [\r\n      {\"matcher\": \"Read\", \"hooks\": []}\r\n    ]\r\n  }\r\n}\r\n",
			wantInstalled: "{\r\n  \"hooks\": {\r\n    \"PreToolUse\": [\r\n      {\"matcher\": \"Read\", \"hooks\": []},\r\n      {\r\n" +
				"        \"matcher\": \"Bash|Monitor\",\r\n        \"hooks\": [\r\n          {\r\n            \"type\": \"command\",\r\n" +
				"            \"command\": \"clada hook claude-code\",\r\n            \"timeout\": 30,\r\n            \"onFailure\": \"block\"\r\n          }\r\n        ]\r\n      }\r\n    ]\r\n  }\r\n}\r\n",
		},
		{
			// hujson ends a // comment only at a newline: the file's last
			// line may still be one.
			name: "cursor: a comment ends the file, no newline", agent: "cursor",
			before:        `{"version": 1, "hooks": {"beforeShellExecution": [{"command": "./audit.sh"}]}} // team`,
			wantInstalled: `{"version": 1, "hooks": {"beforeShellExecution": [{"command": "./audit.sh"}, {"command":"clada hook cursor"}]}} // team`,
		},
		{
			// hujson does not skip a byte order mark; the parse does.
			name: "cursor: byte order mark", agent: "cursor",
			before:        "\xef\xbb\xbf{\"version\": 1, \"hooks\": {\"beforeShellExecution\": [{\"command\": \"./audit.sh\"}]}}\n",
			wantInstalled: "\xef\xbb\xbf{\"version\": 1, \"hooks\": {\"beforeShellExecution\": [{\"command\": \"./audit.sh\"}, {\"command\":\"clada hook cursor\"}]}}\n",
		},
		{
			// A comma in a comment is no separator; brackets, // and /*
			// in a string are no nesting and no comment.
			name: "cursor: commas in comments, comment marks in strings", agent: "cursor",
			before: `{"version": 1, "note": "a /* b // c [[{{", "hooks": {"beforeShellExecution": [
  {"command": "./audit.sh"} /* one, two, */
]}}
`,
			wantInstalled: `{"version": 1, "note": "a /* b // c [[{{", "hooks": {"beforeShellExecution": [
  {"command": "./audit.sh"}, /* one, two, */
  {
    "command": "clada hook cursor"
  }
]}}
`,
		},
		{
			name: "cursor: other hooks", agent: "cursor",
			before: `{
  "version": 1,
  "hooks": {
    "afterFileEdit": [{"command": "./format.sh"}],
    "beforeShellExecution": [{"command": "./audit.sh"}]
  }
}
`,
			wantInstalled: `{
  "version": 1,
  "hooks": {
    "afterFileEdit": [{"command": "./format.sh"}],
    "beforeShellExecution": [{"command": "./audit.sh"}, {"command":"clada hook cursor"}]
  }
}
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := installOpts(t, tt.agent)
			path := writeSettings(t, o, tt.before)
			got, changed, err := Install(o)
			if err != nil || !changed || got != path {
				t.Fatalf("Install = %s, %v, %v; want %s, changed", got, changed, err, path)
			}
			if diff := cmp.Diff(tt.wantInstalled, readFile(t, path)); diff != "" {
				t.Errorf("after install (-want +got):\n%s", diff)
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("install changed the file's permissions: %v %v", fi.Mode(), err)
			}
			// Idempotent.
			if _, changed, err := Install(o); err != nil || changed {
				t.Errorf("second Install: changed %v, %v; want unchanged", changed, err)
			}
			if _, n, err := Uninstall(o); err != nil || n != 1 {
				t.Fatalf("Uninstall = %d, %v; want 1 removed", n, err)
			}
			if diff := cmp.Diff(tt.before, readFile(t, path)); diff != "" {
				t.Errorf("uninstall did not restore the file (-before +got):\n%s", diff)
			}
			if _, n, err := Uninstall(o); err != nil || n != 0 {
				t.Errorf("second Uninstall = %d, %v; want nothing removed", n, err)
			}
		})
	}
}

// Without a settings file, install creates it (and its directory) in the
// project, or in the home directory with User; uninstall then leaves
// only what was not clada's.
func TestInstallNewFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		agent, file, after string
		user               bool
	}{
		{agent: "claude-code", file: ".claude/settings.json", after: "{}\n"},
		{agent: "gemini", file: ".gemini/settings.json", user: true, after: "{}\n"},
		{agent: "cursor", file: ".cursor/hooks.json", after: "{\n  \"version\": 1\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			t.Parallel()
			o := installOpts(t, tt.agent)
			o.User = tt.user
			base := o.Root
			if tt.user {
				base = o.Home
			}
			path, changed, err := Install(o)
			if err != nil || !changed || path != filepath.Join(base, tt.file) {
				t.Fatalf("Install = %s, %v, %v", path, changed, err)
			}
			root, err := parseJSONC([]byte(readFile(t, path)))
			if err != nil {
				t.Fatalf("the new file does not parse: %v", err)
			}
			if len(ours([]byte(readFile(t, path)), root, mustAgent(t, tt.agent).settings, tt.agent)) != 1 {
				t.Errorf("the new file has no clada hook:\n%s", readFile(t, path))
			}
			if _, n, err := Uninstall(o); err != nil || n != 1 {
				t.Fatalf("Uninstall = %d, %v", n, err)
			}
			if got := readFile(t, path); got != tt.after {
				t.Errorf("after uninstall: %q, want %q", got, tt.after)
			}
		})
	}
}

// A file clada cannot read, or whose hooks are not what the agent reads,
// is reported with its line and never changed.
func TestInstallRefusesBadFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, wantErr string
		syntax              bool
	}{
		{"missing comma", "{\n  \"a\": 1\n  \"b\": 2\n}\n", ":3:3: expected , or } after an object member", true},
		{"unclosed comment", "{\n  /* note\n}\n", ":2:3: unterminated /* comment", true},
		{"cut off", "{\"hooks\": {", ":1:12: unexpected end of file in an object", true},
		{"not an object", "[1, 2]\n", ":1: the file is not a JSON object", true},
		{"hooks not an object", "{\n  \"hooks\": []\n}\n", `:2: "hooks" is not an object`, false},
		{"event not a list", "{\"hooks\": {\n\"PreToolUse\": {}}}", `:2: "hooks"."PreToolUse" is not a list`, false},
		{"trailing text", "{} {}", ":1:4: unexpected '{' after the JSON value", true},
		{"not UTF-8", "{\"a\": \"\xff\"}", ":1:8: the file is not UTF-8", true},
		{"not UTF-8 after a byte order mark", "\xef\xbb\xbf{\"\xc3\": 1}", ":1:6: the file is not UTF-8", true},
		{"unterminated string", "{\"a\": \"x", ":1:7: unterminated string", true},
		{"missing colon", "{\n  \"a\" 1}", ":2:7: expected : after the key", true},
		{"unquoted key", "{a: 1}", ":1:2: expected a quoted key", true},
		{"bad literal", "{\"a\": tru}", ":1:7: unexpected 't'", true},
		{"bad number", "{\"a\": 01}", ":1:7: invalid number", true},
		{"newline in a string", "{\"a\": \"x\ny\"}", ":1:9: newline in a string", true},
		{"bad escape", "{\"a\": \"\\q\"}", ":1:7: invalid string", true},
		{"array without comma", "{\"hooks\": {\"PreToolUse\": [1 2]}}", ":1:29: expected , or ] after an array element", true},
		// hujson recurses once per level, without a limit: 4 MiB of [
		// overflowed its stack (a fatal error, not a panic).
		{"nested too deep", "{\"hooks\": " + strings.Repeat("[", 4<<20), ":1:211: nested more than 200 deep", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := installOpts(t, "claude-code")
			path := writeSettings(t, o, tt.text)
			_, _, err := Install(o)
			var se *SettingsError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), path+tt.wantErr) {
				t.Errorf("Install error = %v, want a SettingsError ending %q", err, tt.wantErr)
			}
			// Uninstall reports a file it cannot read; one whose hooks
			// are not where the agent reads them holds no clada hook.
			if _, n, err := Uninstall(o); n != 0 || (tt.syntax && !errors.As(err, &se)) || (!tt.syntax && err != nil) {
				t.Errorf("Uninstall = %d, %v", n, err)
			}
			if got := readFile(t, path); got != tt.text {
				t.Errorf("the file was changed: %q", got)
			}
		})
	}
}

// Uninstall removes clada's hook wherever the person moved it, and only
// it: a group that also holds other hooks stays, and so do hooks that
// merely mention clada.
func TestUninstallOnlyOurs(t *testing.T) {
	t.Parallel()
	o := installOpts(t, "claude-code")
	before := `{"hooks": {"PreToolUse": [
  {"matcher": "Bash|Monitor", "hooks": [
    {"type": "command", "command": "audit"},
    {"type": "command", "command": "/usr/local/bin/clada hook claude-code", "onFailure": "block"}
  ]},
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "clada hook gemini"}]},
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo clada hook claude-code"}]}
]}}`
	path := writeSettings(t, o, before)
	if _, changed, err := Install(o); err != nil || changed {
		t.Fatalf("Install over an installed hook: changed %v, %v", changed, err)
	}
	if _, n, err := Uninstall(o); err != nil || n != 1 {
		t.Fatalf("Uninstall = %d, %v", n, err)
	}
	want := `{"hooks": {"PreToolUse": [
  {"matcher": "Bash|Monitor", "hooks": [
    {"type": "command", "command": "audit"}
  ]},
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "clada hook gemini"}]},
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo clada hook claude-code"}]}
]}}`
	if diff := cmp.Diff(want, readFile(t, path)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// An older form of clada's Claude Code entry (matcher Bash, no
// onFailure: a missing clada let commands through) is replaced by
// today's; the person's other hooks stay.
func TestInstallReplacesOldForm(t *testing.T) {
	t.Parallel()
	o := installOpts(t, "claude-code")
	before := `{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "clada hook claude-code", "timeout": 30}]},
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]}
]}}`
	path := writeSettings(t, o, before)
	if _, changed, err := Install(o); err != nil || !changed {
		t.Fatalf("Install over the old form: changed %v, %v", changed, err)
	}
	want := `{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]},
  {
    "matcher": "Bash|Monitor",
    "hooks": [
      {
        "type": "command",
        "command": "clada hook claude-code",
        "timeout": 30,
        "onFailure": "block"
      }
    ]
  }
]}}`
	if diff := cmp.Diff(want, readFile(t, path)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, changed, err := Install(o); err != nil || changed {
		t.Errorf("Install again: changed %v, %v, want unchanged", changed, err)
	}
}

// A settings file that is a link (kept in a dotfiles repository) stays a
// link; the file it points to is changed.
func TestInstallThroughSymlink(t *testing.T) {
	t.Parallel()
	o := installOpts(t, "gemini")
	o.User = true
	target := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(target, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path, _ := o.Path()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if _, changed, err := Install(o); err != nil || !changed {
		t.Fatalf("Install: %v %v", changed, err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if !strings.Contains(readFile(t, target), "clada hook gemini") {
		t.Errorf("the linked file has no hook:\n%s", readFile(t, target))
	}
}

func TestInstallUnknownAgent(t *testing.T) {
	t.Parallel()
	o := installOpts(t, "vim")
	if _, _, err := Install(o); err == nil || !strings.Contains(err.Error(), "claude-code, cursor, gemini") {
		t.Errorf("Install of an unknown agent: %v", err)
	}
}

// mustAgent returns the agent of clada's table called name.
func mustAgent(t testing.TB, name string) agent {
	t.Helper()
	a, ok := agentNamed(name)
	if !ok {
		t.Fatalf("no agent %q", name)
	}
	return a
}

// TestAgentTable: every agent of the one table has what clada hook, its
// install and the decision log need, under a name no other agent has.
func TestAgentTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, a := range agents {
		if a.name == "" || a.title == "" || a.answer == nil || a.entry == nil || a.project == "" || a.user == "" || a.event == "" {
			t.Errorf("agent %+v lacks a field", a.name)
		}
		if seen[a.name] {
			t.Errorf("agent %q is in the table twice", a.name)
		}
		seen[a.name] = true
	}
	var names []string
	for _, h := range Hooks() {
		names = append(names, h.Name)
	}
	if got := strings.Join(names, " "); got != "claude-code gemini cursor" {
		t.Errorf("Hooks() = %s, want the help's order claude-code gemini cursor", got)
	}
	if _, ok := agentNamed("codex"); ok {
		t.Error("agentNamed found an agent clada has no hook for")
	}
}

func TestAgentFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"CLAUDECODE": "1"}, "claude-code"},
		{map[string]string{"GEMINI_CLI": "1"}, "gemini"},
		{map[string]string{"CLAUDECODE": "0"}, ""},
		{map[string]string{"CURSOR": "1"}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := AgentFromEnv(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("AgentFromEnv(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

// benchSettings is a person's Claude Code settings file as it grows: a
// comment, permissions, and a few hooks of their own, about 2 KB.
const benchSettings = `{
  // the team's settings
  "model": "opus",
  "permissions": {
    "allow": ["Bash(npm run lint)", "Bash(npm test:*)", "Read(~/.zshrc)"],
    "deny": ["Bash(curl:*)", "Read(./.env)", "Read(./secrets/**)"], /* reviewed */
  },
  "env": {"NODE_ENV": "development", "FORCE_COLOR": "1"},
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Write|Edit", // formatters
        "hooks": [{"type": "command", "command": "prettier --check", "timeout": 20}]
      },
      {"matcher": "Read", "hooks": [{"type": "command", "command": "./scripts/audit-read.sh"}]},
    ],
    "PostToolUse": [
      {"matcher": "Write", "hooks": [{"type": "command", "command": "npm run lint -- --fix"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"}
}
`

// BenchmarkInstallUninstall: clada hook install then uninstall on a
// person's settings file, read, parsed, edited, checked and written each
// time (the file round-trips, so every iteration does the same work).
func BenchmarkInstallUninstall(b *testing.B) {
	o := InstallOptions{Agent: "claude-code", Root: b.TempDir(), Clada: "clada"}
	path, _ := o.Path()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(benchSettings), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, changed, err := Install(o); err != nil || !changed {
			b.Fatalf("Install: %v %v", changed, err)
		}
		if _, n, err := Uninstall(o); err != nil || n != 1 {
			b.Fatalf("Uninstall: %d %v", n, err)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != benchSettings {
		b.Fatalf("the file did not round-trip:\n%s", got)
	}
}

// BenchmarkParseSettings: parsing the same file alone, as the Claude Code
// hook does for the person's permission rules before every command.
func BenchmarkParseSettings(b *testing.B) {
	data := []byte(benchSettings)
	for b.Loop() {
		if _, err := parseJSONC(data); err != nil {
			b.Fatal(err)
		}
	}
}
