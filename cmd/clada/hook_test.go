//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/internal/hook"
)

// cladaOnPath returns a PATH whose first directory holds `clada` (a link
// to cladaExe).
func cladaOnPath(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	if err := os.Symlink(cladaExe(t), filepath.Join(bin, "clada")); err != nil {
		t.Fatal(err)
	}
	return bin + string(os.PathListSeparator) + os.Getenv("PATH")
}

// The real binary, end to end: the command an agent's hook rewrites an
// allowed command to, run with bash -c as the agent's shell tool would,
// prints the same and exits the same as the command run directly.
func TestHookRewriteRunsTheSame(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root := newRoot(t)
	for name, body := range map[string]string{
		"a b.txt": "spaced\n", "it's.txt": "quoted\nsecond\n", "=eq.txt": "zsh would expand =eq\n",
		"héllo.txt": "accented\n", "sub/x.txt": "x y\nz\n", "$HOME.txt": "dollar\n",
	} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "PATH="+cladaOnPath(t), "HOME=/no-home", "CI=", "CLAUDE_PROJECT_DIR="+root,
		"GEMINI_PROJECT_DIR="+root, "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	// zsh, fish and dash read words differently from bash (zsh's =prog,
	// fish's \' in single quotes); .ci/run installs them.
	shells := []string{"bash"}
	for _, sh := range []string{"zsh", "fish", "dash"} {
		if _, err := exec.LookPath(sh); err == nil {
			shells = append(shells, sh)
		} else if os.Getenv("CI") != "" {
			t.Errorf("%s is not installed; .ci/run installs it", sh)
		}
	}
	commands := []string{
		`cat 'a b.txt'`,
		`cat "it's.txt" =eq.txt héllo.txt '$HOME.txt'`,
		`grep -n "x y" sub/x.txt`,
		`grep -c nomatch sub/x.txt`, // exits 1
		`ls -a sub`,
		`head -n 1 "it's.txt"`,
		`grep -c , 'a b.txt'`, // a comma: PowerShell's array operator
		`cat -- =eq.txt`,
		`git status --short`,
	}
	// run runs line with bash -c, once per distinct line: the direct
	// commands are the same for both agents, and so are their rewrites
	// when the agents' hooks rewrite alike.
	type result struct {
		stdout, stderr string
		code           int
	}
	ran := map[string]result{}
	run := func(shell, line string) (stdout, stderr string, code int) {
		key := shell + "\x00" + line
		if r, ok := ran[key]; ok {
			return r.stdout, r.stderr, r.code
		}
		cmd := exec.Command(shell, "-c", line)
		cmd.Dir, cmd.Env = root, env
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		code = exitCodeOf(t, cmd.Run()) // before reading what it printed
		r := result{o.String(), e.String(), code}
		ran[key] = r
		return r.stdout, r.stderr, r.code
	}
	for _, agent := range []string{"claude-code", "gemini"} {
		for _, line := range commands {
			payload, _ := json.Marshal(map[string]any{
				"hook_event_name": map[string]string{"claude-code": "PreToolUse", "gemini": "BeforeTool"}[agent],
				"tool_name":       map[string]string{"claude-code": "Bash", "gemini": "run_shell_command"}[agent],
				"tool_input":      map[string]string{"command": line},
				"cwd":             root,
			})
			cmd := cladaCmd(t, root, "hook", agent)
			cmd.Env = env
			cmd.Stdin = strings.NewReader(string(payload))
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("clada hook %s for %q: %v", agent, line, err)
			}
			var answer struct {
				Claude struct {
					Decision string            `json:"permissionDecision"`
					Input    map[string]string `json:"updatedInput"`
				} `json:"hookSpecificOutput"`
				Decision string `json:"decision"`
			}
			if err := json.Unmarshal(out, &answer); err != nil {
				t.Fatalf("%s: %v\n%s", line, err, out)
			}
			decision, rewritten := answer.Claude.Decision, answer.Claude.Input["command"]
			if agent == "gemini" {
				var g struct {
					Decision string `json:"decision"`
					Specific struct {
						Input map[string]string `json:"tool_input"`
					} `json:"hookSpecificOutput"`
				}
				_ = json.Unmarshal(out, &g)
				decision, rewritten = g.Decision, g.Specific.Input["command"]
			}
			if decision != "allow" || !strings.Contains(rewritten, " exec --root ") {
				t.Errorf("%s: %q: decision %q, rewritten %q; want allow through clada exec\n%s", agent, line, decision, rewritten, out)
				continue
			}
			// The line as written, in bash; the rewritten line in every
			// shell an agent may hand it to.
			wantOut, wantErr, wantCode := run("bash", line)
			for _, sh := range shells {
				gotOut, gotErr, gotCode := run(sh, rewritten)
				if gotOut != wantOut || gotCode != wantCode || gotErr != wantErr {
					t.Errorf("%s: %q rewritten to %q, run by %s:\n got  %d %q %q\n want %d %q %q", agent, line, rewritten, sh, gotCode, gotOut, gotErr, wantCode, wantOut, wantErr)
				}
			}
		}
	}
}

// TestHookFastPath: `clada hook AGENT`, answered without building the
// command line interface (answerHook), gives the same stdout, stderr and
// exit code as the same arguments through the app, for allowed, asked,
// denied and malformed payloads of every agent; other arguments are left
// to the app.
func TestHookFastPath(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	payloads := []string{
		`{"session_id":"s","transcript_path":"/dev/null","cwd":"` + root + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat a.txt"}}`,
		`{"session_id":"s","transcript_path":"/dev/null","cwd":"` + root + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make build"}}`,
		`{"session_id":"s","transcript_path":"/dev/null","cwd":"` + root + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat $HOME"}}`,
		`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"cat a.txt"},"cwd":"` + root + `"}`,
		`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"cat $HOME"},"cwd":"` + root + `"}`,
		`{"hook_event_name":"beforeShellExecution","command":"rm -rf /","cwd":"` + root + `"}`,
		`{"hook_event_name":"beforeShellExecution","command":"make build","cwd":"` + root + `"}`,
		`{"tool_name":`,
		``,
	}
	seen := map[string]bool{} // what the answers said, across agents
	for _, a := range hook.Hooks() {
		for _, payload := range payloads {
			args := []string{"/usr/local/bin/clada", "hook", a.Name}
			var fastOut, fastErr, appOut, appErr strings.Builder
			fast, ok := answerHook(args, strings.NewReader(payload), &fastOut, &fastErr)
			if !ok {
				t.Fatalf("%v: no fast path", args)
			}
			app := newApp(strings.NewReader(payload), &appOut, &appErr)
			app.Metadata = map[string]any{"arg0": args[0]}
			slow := exitOK
			if err := app.Run(args); err != nil {
				var code exitError
				if !errors.As(err, &code) {
					t.Fatalf("%v: %v", args, err)
				}
				slow = int(code)
			}
			if fast != slow || fastOut.String() != appOut.String() || fastErr.String() != appErr.String() {
				t.Errorf("%s, payload %q:\nfast path: exit %d, stdout %q, stderr %q\napp:       exit %d, stdout %q, stderr %q",
					a.Name, payload, fast, fastOut.String(), fastErr.String(), slow, appOut.String(), appErr.String())
			}
			for _, w := range []string{"allow", "ask", "deny"} {
				if strings.Contains(fastOut.String(), `"`+w+`"`) {
					seen[a.Name+" "+w] = true
				}
			}
			if fastErr.Len() > 0 {
				seen[a.Name+" stderr"] = true
			}
		}
	}
	for _, want := range []string{"claude-code allow", "claude-code ask", "claude-code deny", "claude-code stderr",
		"gemini allow", "gemini deny", "cursor ask", "cursor deny"} {
		if !seen[want] {
			t.Errorf("no payload gave %s; seen %v", want, seen)
		}
	}
	for _, args := range [][]string{
		{"clada", "hook", "claude-code", "extra"}, {"clada", "hook", "--help"}, {"clada", "hook", "install"},
		{"clada", "check", "claude-code"}, {"clada", "hook", "copilot"}, {"clada", "hook"},
	} {
		if _, ok := answerHook(args, strings.NewReader(""), io.Discard, io.Discard); ok {
			t.Errorf("%v took the fast path", args)
		}
	}
}
