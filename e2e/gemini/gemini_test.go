// Package gemini_test drives the real Gemini CLI (pinned in
// testdata/npm) with clada's hook installed, against a scripted fake
// Gemini API on 127.0.0.1, and checks what ran, what the model received
// and what the person saw.
package gemini_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clada/clada/e2e/internal/agente2e"
)

const npmDir = "testdata/npm"

// event is one line of `gemini --output-format stream-json`.
type event struct {
	Type       string         `json:"type"`
	Timestamp  time.Time      `json:"timestamp"`
	ToolID     string         `json:"tool_id"`
	ToolName   string         `json:"tool_name"`
	Parameters map[string]any `json:"parameters"`
	Status     string         `json:"status"`
	Output     string         `json:"output"`
	Error      *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// session is one headless Gemini CLI run.
type session struct {
	events []event
	stderr string
	model  *fakeGemini
}

// toolResults pairs each tool_use with its tool_result, in order.
func (s *session) toolResults() (uses, results []event) {
	byID := map[string]event{}
	for _, e := range s.events {
		if e.Type == "tool_result" {
			byID[e.ToolID] = e
		}
	}
	for _, e := range s.events {
		if e.Type == "tool_use" {
			uses = append(uses, e)
			results = append(results, byID[e.ToolID])
		}
	}
	return uses, results
}

// home makes Gemini CLI's home: API-key auth, no usage statistics, the
// project trusted, and, when hook is set, clada's hook installed by
// `clada hook install --user gemini`.
func home(t *testing.T, bin, project string, hook bool) string {
	t.Helper()
	h := t.TempDir()
	dir := filepath.Join(h, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{
  // written by clada's e2e test
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true}
}
`
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	trusted, _ := json.Marshal(map[string]string{project: "TRUST_FOLDER"})
	if err := os.WriteFile(filepath.Join(dir, "trustedFolders.json"), trusted, 0o644); err != nil {
		t.Fatal(err)
	}
	if hook {
		agente2e.Run(t, project, []string{"HOME=" + h}, filepath.Join(bin, "clada"), "hook", "install", "--user", "gemini")
	}
	return h
}

// runGemini runs `gemini -p` headless in dir with the scripted turns.
// --yolo: headless Gemini CLI registers no shell tool otherwise; clada's
// hook decides before Gemini CLI's policy does.
func runGemini(t *testing.T, gemini, dir, home string, turns [][]map[string]any, extraEnv ...string) *session {
	return runGeminiArgs(t, gemini, dir, home, turns, []string{"--yolo"}, extraEnv...)
}

// runGeminiArgs is runGemini with other arguments than --yolo.
func runGeminiArgs(t *testing.T, gemini, dir, home string, turns [][]map[string]any, args []string, extraEnv ...string) *session {
	t.Helper()
	model := newFakeGemini(t, turns)
	ctx, cancel := context.WithTimeout(context.Background(), agente2e.Lifetime)
	defer cancel()
	cmd := exec.CommandContext(ctx, gemini, append([]string{"-p", "do the scripted steps", "-m", "gemini-2.5-flash", "--output-format", "stream-json"}, args...)...)
	cmd.Dir = dir
	cmd.Env = agente2e.Env(home, append([]string{"GEMINI_API_KEY=fake-key", "GOOGLE_GEMINI_BASE_URL=" + model.srv.URL}, extraEnv...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("gemini did not finish within %s\nstdout:\n%s\nstderr:\n%s", agente2e.Lifetime, stdout.String(), stderr.String())
	}
	if err != nil {
		t.Fatalf("gemini: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	s := &session{stderr: stderr.String(), model: model}
	sc := bufio.NewScanner(bytes.NewReader(stdout.Bytes()))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err == nil && e.Type != "" {
			s.events = append(s.events, e)
		} else {
			t.Logf("not an event: %v: %.300s", err, sc.Bytes())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading Gemini CLI's events: %v", err)
	}
	if len(model.requests) != len(turns)+1 {
		t.Fatalf("the model got %d requests, want %d (one per scripted turn and the last)\nstdout:\n%s\nstderr:\n%s",
			len(model.requests), len(turns)+1, stdout.String(), stderr.String())
	}
	return s
}

// TestGemini is one scripted conversation of eight shell commands, each
// a case of issue 28: what ran (marker files), what the model received
// (the fake server's requests) and what the person saw (Gemini CLI's
// events and its stderr, where headless Gemini CLI prints a hook's
// systemMessage).
func TestGemini(t *testing.T) {
	t.Parallel() // the latency test runs first, alone
	gemini := agente2e.Agent(t, npmDir, "@google/gemini-cli", "gemini")
	bin := agente2e.Clada(t)
	var big strings.Builder
	for i := range 100000 {
		big.WriteString("line ")
		big.WriteString(strings.Repeat("x", i%50))
		big.WriteString("\n")
	}
	big.WriteString("the last line\n")
	project := agente2e.Project(t, map[string]string{
		"a.txt":   "alpha content\n",
		"big.txt": big.String(),
		"slow.sh": "#!/bin/sh\nsleep 2\necho slow done\n: > slow-marker\n",
	})
	secret := filepath.Join(filepath.Dir(project), "secret.txt")
	if err := os.WriteFile(secret, []byte("the secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := home(t, bin, project, true)
	agente2e.Run(t, project, []string{"HOME=" + h}, filepath.Join(bin, "clada"), "allow", "./slow.sh")

	unicode := "mä \"q\" ✓.txt"
	cases := []struct {
		name, command string
		check         func(t *testing.T, got string, res event)
	}{
		{"allowed read", "cat a.txt", func(t *testing.T, got string, res event) {
			ok(t, res)
			has(t, got, "alpha content", "modified by a hook") // it ran as clada exec
		}},
		{"quotes and unicode", `touch 'mä "q" ✓.txt'`, func(t *testing.T, got string, res event) {
			ok(t, res)
			agente2e.Exists(t, filepath.Join(project, unicode))
		}},
		{"read outside", "cat ../secret.txt", func(t *testing.T, got string, res event) {
			blocked(t, res)
			has(t, got, "clada denied this command (rule read-outside)", "Do instead", "clada allow")
			lacks(t, got, "the secret")
		}},
		{"composition", "echo one && touch comp-marker", func(t *testing.T, got string, res event) {
			ok(t, res)
			has(t, got, "one")
			agente2e.Exists(t, filepath.Join(project, "comp-marker"))
		}},
		{"asked, headless", `python3 -c 'open("asked-marker", "w")'`, func(t *testing.T, got string, res event) {
			blocked(t, res)
			has(t, got, "clada denied this command (rule wrapper)", "Gemini CLI runs headless", "clada allow \"python3 -c 'open(")
			agente2e.Absent(t, filepath.Join(project, "asked-marker"))
		}},
		{"rm -rf .git", "rm -rf .git", func(t *testing.T, got string, res event) {
			blocked(t, res)
			has(t, got, "rule protected-path", "`.git`")
			agente2e.Exists(t, filepath.Join(project, ".git", "HEAD"))
		}},
		{"long-running", "./slow.sh", func(t *testing.T, got string, res event) {
			ok(t, res)
			has(t, got, "slow done")
			agente2e.Exists(t, filepath.Join(project, "slow-marker"))
		}},
		{"large output", "cat big.txt", func(t *testing.T, got string, res event) {
			// Gemini CLI 0.61.0 writes this tool_result event as a
			// line that is not JSON (an escape cut in two), so res is
			// empty: the person's stream-json reader loses it. The model
			// gets Gemini CLI's excerpt of clada exec's whole output.
			has(t, got, "Output too large", "the last line")
		}},
	}
	var turns [][]map[string]any
	for _, c := range cases {
		turns = append(turns, call(c.command))
	}
	s := runGemini(t, gemini, project, h, turns)
	uses, results := s.toolResults()
	got := s.model.responses()
	if len(uses) != len(cases) || len(got) != len(cases) {
		t.Fatalf("%d tool calls and %d responses to the model, want %d\n%+v", len(uses), len(got), len(cases), s.events)
	}
	for i, c := range cases {
		if res := results[i]; res.Type != "" {
			t.Logf("%-20s %4d ms from tool_use to tool_result", c.name, res.Timestamp.Sub(uses[i].Timestamp).Milliseconds())
		}
		t.Run(c.name, func(t *testing.T) {
			if cmd := uses[i].Parameters["command"]; cmd != c.command {
				t.Errorf("Gemini CLI showed the command %q, want %q", cmd, c.command)
			}
			c.check(t, got[i], results[i])
			if t.Failed() {
				t.Logf("the model received: %.2000s", got[i])
			}
		})
	}
	// The person sees each denial (systemMessage; headless Gemini CLI
	// prints it on stderr).
	for _, want := range []string{"clada denied this command (rule read-outside)", "clada denied this command (rule wrapper)", "clada denied this command (rule protected-path)"} {
		if !strings.Contains(s.stderr, want) {
			t.Errorf("stderr does not show the person %q:\n%s", want, s.stderr)
		}
	}
}

func ok(t *testing.T, res event) {
	t.Helper()
	if res.Status != "success" {
		t.Errorf("tool result %s: %+v", res.Status, res.Error)
	}
}

func blocked(t *testing.T, res event) {
	t.Helper()
	if res.Status != "error" {
		t.Errorf("tool result %s, want error (blocked)", res.Status)
	}
}

func has(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("the model did not receive %q", w)
		}
	}
}

func lacks(t *testing.T, got, unwanted string) {
	t.Helper()
	if strings.Contains(got, unwanted) {
		t.Errorf("the model received %q", unwanted)
	}
}

// TestGeminiLatency measures what clada's hook adds to a shell command as
// Gemini CLI sees it: the time from Gemini CLI's tool_use event to its
// tool_result, for the same allowed command, with the hook and without.
// It fails only when a command fails; the figures are logged (docs/agents.md
// quotes them).
func TestGeminiLatency(t *testing.T) {
	gemini := agente2e.Agent(t, npmDir, "@google/gemini-cli", "gemini")
	bin := agente2e.Clada(t)
	// Gemini CLI stops a conversation that repeats one tool call five
	// times (loop detection): each call reads another file.
	const n = 7
	var turns [][]map[string]any
	files := map[string]string{}
	for i := range n {
		name := fmt.Sprintf("a%d.txt", i)
		files[name] = "alpha content\n"
		turns = append(turns, call("cat "+name))
	}
	measure := func(hook bool) agente2e.Stats {
		project := agente2e.Project(t, files)
		s := runGemini(t, gemini, project, home(t, bin, project, hook), turns)
		uses, results := s.toolResults()
		var ds []time.Duration
		for i := range uses {
			if results[i].Status != "success" {
				t.Fatalf("hook %v: call %d: %+v", hook, i, results[i])
			}
			ds = append(ds, results[i].Timestamp.Sub(uses[i].Timestamp))
		}
		if len(ds) != n {
			t.Fatalf("hook %v: %d results, want %d", hook, len(ds), n)
		}
		// With the hook, the model was told it ran through clada.
		for _, got := range s.model.responses() {
			if strings.Contains(got, "modified by a hook") != hook {
				t.Fatalf("hook %v, but the model received: %s", hook, got)
			}
		}
		return agente2e.StatsOf(ds)
	}
	without := measure(false)
	with := measure(true)
	t.Logf("`cat aN.txt`, %d calls each, tool_use to tool_result: without clada median %v (min %v, max %v); with clada's hook median %v (min %v, max %v); added median %v",
		n, without.Median, without.Min, without.Max, with.Median, with.Min, with.Max, with.Median-without.Median)
}

// TestGeminiPolicy: without --yolo, Gemini CLI's own policy decides after
// clada's hook, on the rewritten line. The rule `clada hook install
// gemini` writes in ~/.gemini/policies lets what clada allowed run
// without a confirmation (headless, one would refuse it: "denied by
// policy"); in the interactive UI, the dialog that would show the
// rewritten clada exec line does not come up. What clada asks about is
// still asked (headless: denied with advice).
func TestGeminiPolicy(t *testing.T) {
	t.Parallel() // the latency test runs first, alone
	gemini := agente2e.Agent(t, npmDir, "@google/gemini-cli", "gemini")
	bin := agente2e.Clada(t)
	project := agente2e.Project(t, map[string]string{"a.txt": "alpha content\n"})
	h := home(t, bin, project, true)
	if _, err := os.Stat(filepath.Join(h, ".gemini", "policies", "clada.toml")); err != nil {
		t.Fatalf("clada hook install wrote no policy rule: %v", err)
	}
	s := runGeminiArgs(t, gemini, project, h, [][]map[string]any{call("cat a.txt"), call("touch made"), call("node x.js")}, nil)
	uses, results := s.toolResults()
	got := s.model.responses()
	if len(uses) != 3 || len(got) != 3 {
		t.Fatalf("%d calls, %d responses: %+v", len(uses), len(got), s.events)
	}
	ok(t, results[0])
	has(t, got[0], "alpha content", "modified by a hook")
	ok(t, results[1])
	agente2e.Exists(t, filepath.Join(project, "made"))
	blocked(t, results[2])
	has(t, got[2], "clada denied this command (rule not-in-specs)", "Gemini CLI runs headless")
}

// TestGeminiMCPTrust: clada mcp as Gemini CLI's MCP server. Headless,
// Gemini CLI hides the tools of a server that is not trusted, so the
// model cannot call clada's run; with "trust": true on the server entry
// (docs/agents.md) it can, and Gemini CLI gives the model clada's text
// report. clada still decides every command (trust only skips Gemini
// CLI's own confirmation).
func TestGeminiMCPTrust(t *testing.T) {
	t.Parallel() // the latency test runs first, alone
	gemini := agente2e.Agent(t, npmDir, "@google/gemini-cli", "gemini")
	bin := agente2e.Clada(t)
	for _, trust := range []bool{false, true} {
		project := agente2e.Project(t, nil)
		h := home(t, bin, project, false)
		server := map[string]any{"command": filepath.Join(bin, "clada"), "args": []string{"mcp"}}
		if trust {
			server["trust"] = true
		}
		settings, _ := json.Marshal(map[string]any{
			"security":   map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
			"privacy":    map[string]any{"usageStatisticsEnabled": false},
			"mcpServers": map[string]any{"clada": server},
			"general":    map[string]any{"disableAutoUpdate": true},
			"telemetry":  map[string]any{"enabled": false},
		})
		if err := os.WriteFile(filepath.Join(h, ".gemini", "settings.json"), settings, 0o644); err != nil {
			t.Fatal(err)
		}
		turns := [][]map[string]any{
			{{"functionCall": map[string]any{"name": "mcp_clada_run", "args": map[string]any{"command": "touch made"}}}},
			{{"functionCall": map[string]any{"name": "mcp_clada_run", "args": map[string]any{"command": "rm -rf .git"}}}},
		}
		s := runGeminiArgs(t, gemini, project, h, turns, nil)
		got := s.model.responses()
		if !trust {
			agente2e.Absent(t, filepath.Join(project, "made"))
			has(t, got[0], "not found")
			continue
		}
		agente2e.Exists(t, filepath.Join(project, "made"))
		has(t, got[0], "$ touch made", "allowed (spec)")
		has(t, got[1], "rule protected-path")
		agente2e.Exists(t, filepath.Join(project, ".git", "HEAD"))
	}
}

// TestGeminiPolicyAlone is the attack on clada's policy rule: the rule
// without the hook (clada's hook removed from the project, or failing),
// and a model that writes the `clada exec` prefix itself to slip a second
// command past Gemini CLI. Gemini CLI splits a command line and the rule
// matches only a line that is one clada exec command; that one, clada exec
// decides again.
func TestGeminiPolicyAlone(t *testing.T) {
	t.Parallel() // the latency test runs first, alone
	gemini := agente2e.Agent(t, npmDir, "@google/gemini-cli", "gemini")
	bin := agente2e.Clada(t)
	project := agente2e.Project(t, nil)
	h := home(t, bin, project, false)
	// Install in another project: the rule lands in the home, the hook
	// does not reach this project.
	other := agente2e.Project(t, nil)
	agente2e.Run(t, other, []string{"HOME=" + h}, filepath.Join(bin, "clada"), "hook", "install", "gemini")
	self := filepath.Join(bin, "clada") + " exec --root " + project + " --dir " + project + " --"
	cases := []struct {
		command, marker string
		ran             bool
	}{
		{self + " ls && touch pwned1", "pwned1", false},
		{self + " ls; touch pwned2", "pwned2", false},
		{self + " ls $(touch pwned3)", "pwned3", false},
		{self + " ls\ntouch pwned4", "pwned4", false},
		{self + " touch single", "single", true},   // one clada exec command: allowed, and clada allows touch
		{self + " rm -rf .git", ".git/HEAD", true}, // allowed by the rule, refused by clada exec: .git stays
	}
	var turns [][]map[string]any
	for _, c := range cases {
		turns = append(turns, call(c.command))
	}
	s := runGeminiArgs(t, gemini, project, h, turns, nil)
	got := s.model.responses()
	for i, c := range cases {
		if _, err := os.Stat(filepath.Join(project, c.marker)); (err == nil) != c.ran {
			t.Errorf("%q: %s exists = %v; the model received: %.500s", c.command, c.marker, err == nil, got[i])
		}
	}
	has(t, got[5], "protected-path")
	if t.Failed() {
		t.Logf("the model received for rm -rf .git: %.1000s", got[5])
	}
}
