// Package codex_test drives the real Codex CLI (pinned in testdata/npm)
// with clada mcp as its MCP server, against a scripted fake Responses API
// on 127.0.0.1, and checks what ran, what the model received and what the
// person saw.
package codex_test

import (
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

// codexHome writes CODEX_HOME/config.toml: the fake provider, and clada
// mcp as the MCP server clada, with approval mode (or none when "").
func codexHome(t *testing.T, bin, url, approval string) string {
	t.Helper()
	h := t.TempDir()
	cfg := fmt.Sprintf(`model = "gpt-5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
env_key = "FAKE_API_KEY"

[mcp_servers.clada]
command = %q
args = ["mcp"]
`, url+"/v1", filepath.Join(bin, "clada"))
	if approval != "" {
		cfg += fmt.Sprintf("default_tools_approval_mode = %q\n", approval)
	}
	if err := os.WriteFile(filepath.Join(h, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return h
}

// session is one `codex exec` run.
type session struct {
	stdout, stderr string
	model          *fakeResponses
}

// runCodex runs `codex exec --json` in dir with the scripted turns.
// home is the person's home (HOME): clada keeps there which project
// files the person trusts (`clada allow` records it).
func runCodex(t *testing.T, codex, bin, dir, home, approval string, turns []turn) *session {
	t.Helper()
	model := newFakeResponses(t, turns)
	h := codexHome(t, bin, model.srv.URL, approval)
	ctx, cancel := context.WithTimeout(context.Background(), agente2e.Lifetime)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "exec", "--json", "--skip-git-repo-check", "do the scripted steps")
	cmd.Dir = dir
	cmd.Env = agente2e.Env(home, "CODEX_HOME="+h, "FAKE_API_KEY=fake-key")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("codex did not finish within %s\nstdout:\n%s\nstderr:\n%s", agente2e.Lifetime, stdout.String(), stderr.String())
	}
	if err != nil {
		t.Fatalf("codex: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if len(model.requests) != len(turns)+1 {
		t.Fatalf("the model got %d requests, want %d\nstdout:\n%s\nstderr:\n%s", len(model.requests), len(turns)+1, stdout.String(), stderr.String())
	}
	return &session{stdout: stdout.String(), stderr: stderr.String(), model: model}
}

// item is one mcp_tool_call item of `codex exec --json`, as the person's
// reader of the event stream sees it.
type item struct {
	Type      string         `json:"type"`
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	Status    string         `json:"status"`
	Result    *struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
}

// toolItems returns the completed mcp_tool_call items, in order.
func (s *session) toolItems(t *testing.T) []item {
	t.Helper()
	var items []item
	for _, line := range strings.Split(s.stdout, "\n") {
		var e struct {
			Type string `json:"type"`
			Item item   `json:"item"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == "item.completed" && e.Item.Type == "mcp_tool_call" {
			items = append(items, e.Item)
		}
	}
	return items
}

// TestCodex is one scripted conversation of clada mcp's tools in `codex
// exec`, each call a case of issue 28: what ran (marker files), what the
// model received (the fake server's requests: Codex sends the structured
// result) and what the person saw (codex exec --json's items, which carry
// clada's text report).
func TestCodex(t *testing.T) {
	t.Parallel() // the latency test runs first, alone
	codex := agente2e.Agent(t, npmDir, "@openai/codex", "codex")
	bin := agente2e.Clada(t)
	var big strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&big, "line %d\n", i)
	}
	big.WriteString("the last line\n")
	project := agente2e.Project(t, map[string]string{
		"a.txt":   "alpha content\n",
		"big.txt": big.String(),
		"slow.sh": "#!/bin/sh\necho started\nsleep 30\n: > slow-marker\n",
	})
	if err := os.WriteFile(filepath.Join(filepath.Dir(project), "secret.txt"), []byte("the secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	agente2e.Run(t, project, []string{"HOME=" + home}, filepath.Join(bin, "clada"), "allow", "./slow.sh")

	unicode := "mä \"q\" ✓.txt"
	cases := []struct {
		name string
		turn turn
		// status is the item's status as codex exec shows it.
		status string
		check  func(t *testing.T, got string, shown string)
	}{
		{"allowed read", run("cat a.txt"), "completed", func(t *testing.T, got, shown string) {
			has(t, got, `"stdout":"alpha content\n"`, `"exit_code":0`)
			has(t, shown, "alpha content", "allowed (spec)")
		}},
		{"quotes and unicode", run(`touch 'mä "q" ✓.txt'`), "completed", func(t *testing.T, got, shown string) {
			agente2e.Exists(t, filepath.Join(project, unicode))
		}},
		{"read outside", run("cat ../secret.txt"), "failed", func(t *testing.T, got, shown string) {
			// codex exec declines clada's question (elicitation): nobody
			// is there to answer it.
			has(t, got, `"rule":"read-outside"`, `"not_approved":"declined in the MCP client"`)
			lacks(t, got, "the secret")
		}},
		{"composition", run("echo one && touch comp-marker"), "completed", func(t *testing.T, got, shown string) {
			has(t, got, `"stdout":"one\n"`)
			agente2e.Exists(t, filepath.Join(project, "comp-marker"))
		}},
		{"asked", run(`python3 -c 'open("asked-marker", "w")'`), "failed", func(t *testing.T, got, shown string) {
			has(t, got, `"rule":"wrapper"`, `"status":"not-approved"`, `"advice":"the person did not approve it`)
			agente2e.Absent(t, filepath.Join(project, "asked-marker"))
		}},
		{"rm -rf .git", run("rm -rf .git"), "failed", func(t *testing.T, got, shown string) {
			has(t, got, `"decision":"deny"`, `"rule":"protected-path"`, `"advice":`)
			agente2e.Exists(t, filepath.Join(project, ".git", "HEAD"))
			has(t, shown, "protected-path")
		}},
		{"git, no hardening list", run("git status"), "completed", func(t *testing.T, got, shown string) {
			has(t, got, `"argv":["git","status"]`)
			lacks(t, got, `"exec"`)
			lacks(t, got, "core.fsmonitor")
		}},
		{"long-running", turn{Tool: "run", Args: map[string]any{"command": "./slow.sh", "background_after": 0.5}}, "completed", func(t *testing.T, got, shown string) {
			has(t, got, `"status":"running"`, `"job":5`, `"hint":"call the output tool with {\"job\": 5}`)
		}},
		// Every run that starts is a job, numbered from 1: the four
		// commands that ran before make this one job 5.
		{"kill the job", turn{Tool: "kill", Args: map[string]any{"job": 5}}, "completed", func(t *testing.T, got, shown string) {
			has(t, got, `"status":"killed"`, `"job":5`)
			agente2e.Absent(t, filepath.Join(project, "slow-marker"))
		}},
		{"large output", run("cat big.txt"), "completed", func(t *testing.T, got, shown string) {
			has(t, got, "the last line", `"stdout_elided_bytes":`, `"stdout_file":".clada/out/`)
			if len(got) > 64<<10 {
				t.Errorf("the model received %d bytes for a 700 kB output", len(got))
			}
		}},
	}
	var turns []turn
	for _, c := range cases {
		turns = append(turns, c.turn)
	}
	s := runCodex(t, codex, bin, project, home, "approve", turns)
	items, got := s.toolItems(t), s.model.outputs()
	if len(items) != len(cases) || len(got) != len(cases) {
		t.Fatalf("%d tool items and %d outputs to the model, want %d\n%s", len(items), len(got), len(cases), s.stdout)
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			it := items[i]
			if it.Tool != c.turn.Tool || it.Status != c.status {
				t.Errorf("codex showed %s %s, want %s %s", it.Tool, it.Status, c.turn.Tool, c.status)
			}
			shown := ""
			if it.Result != nil {
				for _, ct := range it.Result.Content {
					shown += ct.Text
				}
			}
			c.check(t, got[i], shown)
			if t.Failed() {
				t.Logf("the model received: %.3000s\nthe person saw: %.3000s", got[i], shown)
			}
		})
	}
}

// TestCodexApprovalMode: without default_tools_approval_mode = "approve"
// on clada's server entry, codex exec refuses every call of clada's tools
// (docs/agents.md says to set it): nothing runs.
func TestCodexApprovalMode(t *testing.T) {
	t.Parallel() // the latency test runs first, alone
	codex := agente2e.Agent(t, npmDir, "@openai/codex", "codex")
	bin := agente2e.Clada(t)
	project := agente2e.Project(t, nil)
	s := runCodex(t, codex, bin, project, t.TempDir(), "", []turn{run("touch made")})
	agente2e.Absent(t, filepath.Join(project, "made"))
	got := s.model.outputs()
	t.Logf("without the approval mode, the model received: %s", got[0])
	if strings.Contains(got[0], `"status":"ran"`) {
		t.Errorf("the call ran: %s", got[0])
	}
}

func has(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q", w)
		}
	}
}

func lacks(t *testing.T, got, unwanted string) {
	t.Helper()
	if strings.Contains(got, unwanted) {
		t.Errorf("has %q", unwanted)
	}
}

// TestCodexLatency measures a command as Codex sees it (the "Wall time"
// Codex reports to the model): `cat aN.txt` through clada mcp's run, and
// through Codex's own exec_command (its sandbox, no clada), alternating.
// The figures are logged (docs/agents.md quotes them).
func TestCodexLatency(t *testing.T) {
	codex := agente2e.Agent(t, npmDir, "@openai/codex", "codex")
	bin := agente2e.Clada(t)
	const n = 7
	files := map[string]string{}
	var turns []turn
	for i := range n {
		name := fmt.Sprintf("a%d.txt", i)
		files[name] = "alpha content\n"
		turns = append(turns, run("cat "+name), turn{Tool: "exec_command", Args: map[string]any{"cmd": "cat " + name}, Builtin: true})
	}
	project := agente2e.Project(t, files)
	s := runCodex(t, codex, bin, project, t.TempDir(), "approve", turns)
	var viaClada, own []time.Duration
	for i, got := range s.model.outputs() {
		var secs float64
		_, after, _ := strings.Cut(got, "Wall time: ")
		if _, err := fmt.Sscanf(after, "%g seconds", &secs); err != nil || !strings.Contains(got, "alpha content") {
			t.Fatalf("output %d: %v: %s", i, err, got)
		}
		d := time.Duration(secs * float64(time.Second))
		if i%2 == 0 {
			viaClada = append(viaClada, d)
		} else {
			own = append(own, d)
		}
	}
	c, o := agente2e.StatsOf(viaClada), agente2e.StatsOf(own)
	t.Logf("`cat aN.txt`, %d calls each, Codex's wall time: clada mcp run median %v (min %v, max %v); Codex's exec_command median %v (min %v, max %v)",
		n, c.Median, c.Min, c.Max, o.Median, o.Min, o.Max)
}
