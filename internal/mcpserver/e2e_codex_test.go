//go:build linux

package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What Codex needs of clada mcp (issue 28): Codex shows the model the
// structured result, offers no MCP roots but names its workspace in each
// call's _meta, and sends a progress token.

// codexMeta is the _meta Codex 0.171.0 sends with a tools/call (trimmed).
func codexMeta(workspace string, token any) mcp.Meta {
	m := mcp.Meta{"callId": "c0", "x-codex-turn-metadata": map[string]any{
		"workspaces": map[string]any{workspace: map[string]any{"has_changes": false}}, "codex_version": "0.171.0"}}
	if token != nil {
		m["progressToken"] = token
	}
	return m
}

// callMeta calls a tool with _meta.
func (s *mcpSession) callMeta(name string, args map[string]any, meta mcp.Meta) *mcp.CallToolResult {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Meta: meta, Name: name, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s %v: %v\nstderr:\n%s", name, args, err, s.stderr)
	}
	return res
}

// TestMCPResultForModel: the structured result carries what the model
// needs and not what it cannot use: no stale advice once the person
// approved, no exec (git's hardening arguments), and a job's next step.
func TestMCPResultForModel(t *testing.T) {
	t.Parallel()
	root := jobRoot(t)
	writeFile(t, filepath.Join(root, "mark.sh"), "#!/bin/sh\necho ran >> marks\n", 0o755)
	e := &elicitor{answer: answer("accept", "yes")}
	s := startMCP(t, root, &mcp.ClientOptions{ElicitationHandler: e.handle})

	// Asked, approved, ran: the decision's advice ("the person can
	// approve it …") is gone, the approval is there.
	res := s.call("run", map[string]any{"command": "./mark.sh"})
	out := structured(t, res)
	if _, ok := out["advice"]; ok || out["approved_by"] != "yes" || out["exit_code"] != float64(0) {
		t.Errorf("approved and ran: %v", out)
	}
	if strings.Contains(text(res), "approve it") {
		t.Errorf("the text of an approved command still tells how to approve it:\n%s", text(res))
	}
	// Asked and not approved keeps its advice: the model must learn how.
	e.answer = answer("accept", "no")
	out = structured(t, s.call("run", map[string]any{"command": "./mark.sh"}))
	if adv, _ := out["advice"].(string); !strings.Contains(adv, "did not approve") {
		t.Errorf("declined: advice %q", adv)
	}

	// git runs with a dozen hardening arguments; the model gets argv.
	res = s.call("run", map[string]any{"command": "git status"})
	out = structured(t, res)
	for _, k := range []string{"exec", "type", "index", "line", "source"} {
		if _, ok := out[k]; ok {
			t.Errorf("git status result carries %s: %v", k, out[k])
		}
	}
	if argv, _ := out["argv"].([]any); len(argv) != 2 {
		t.Errorf("argv = %v", out["argv"])
	}

	// A job: the structured result says what to call next.
	res = s.call("run", map[string]any{"command": "./slow.sh 1", "background_after": 0.1})
	id := jobOf(t, res)
	out = structured(t, res)
	hint, _ := out["hint"].(string)
	if !strings.Contains(hint, "output tool") || !strings.Contains(hint, fmt.Sprintf(`{"job": %d}`, int(id))) {
		t.Errorf("a job's hint: %q", hint)
	}
	if _, ok := out["exec"]; ok {
		t.Errorf("a job's result carries exec")
	}
	waitJob(t, s, id)
}

// TestMCPProgress: a call with a progress token hears that the command
// still runs, with that token.
func TestMCPProgress(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	s := startMCP(t, jobRoot(t), &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		got = append(got, req.Params)
		mu.Unlock()
	}})
	res := s.callMeta("run", map[string]any{"command": "./slow.sh 2", "background_after": 20}, mcp.Meta{"progressToken": "tok-7"})
	if out := structured(t, res); out["exit_code"] != float64(0) {
		t.Fatalf("slow.sh 2: %v", out)
	}
	// Notifications may arrive after the result; wait a little.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 {
		t.Fatal("no progress notification for a 2 s command")
	}
	for _, p := range got {
		if p.ProgressToken != "tok-7" || !strings.Contains(p.Message, "`./slow.sh 2` running for") || p.Progress <= 0 {
			t.Errorf("progress %+v", p)
		}
	}
	// Without a token, none.
	n := len(got)
	mu.Unlock()
	s.call("run", map[string]any{"command": "./slow.sh 2", "background_after": 20})
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	if len(got) != n {
		t.Errorf("progress without a token: %+v", got[n:])
	}
}

// TestMCPCodexWorkspace: started without --root, clada mcp serves the
// project of the workspace Codex names in the call; with --root, a
// workspace outside refuses the call.
func TestMCPCodexWorkspace(t *testing.T) {
	t.Parallel()
	start, other := newRoot(t), newRoot(t)
	if err := os.Mkdir(filepath.Join(other, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(other, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := serverCmd(t, start) // no --root: the root is found from start
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "codex-mcp-client", Version: "0.171.0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting: %v\n%s", err, stderr)
	}
	defer cs.Close()
	s := &mcpSession{t: t, cs: cs, cmd: cmd, stderr: stderr}

	// The workspace is other/sub: its project is other (the git top).
	res := s.callMeta("run", map[string]any{"command": "touch made"}, codexMeta(filepath.Join(other, "sub"), nil))
	if res.IsError {
		t.Fatalf("run in the workspace's project: %s", text(res))
	}
	if _, err := os.Stat(filepath.Join(other, "made")); err != nil {
		t.Errorf("touch did not run in the workspace's project root: %v\n%s", err, text(res))
	}
	if _, err := os.Stat(filepath.Join(start, "made")); err == nil {
		t.Error("touch ran where clada mcp started, not in the workspace")
	}
	// A path outside the workspace's project is outside the root (asked;
	// this client cannot be asked, so it does not run).
	res = s.callMeta("run", map[string]any{"command": "cat " + filepath.Join(start, ".clada", "x")}, codexMeta(other, nil))
	if out := structured(t, res); out["decision"] != "ask" || out["rule"] != "read-outside" {
		t.Errorf("read outside the workspace's project: %v", out)
	}
	// No workspace: the root found where clada mcp started.
	res = s.callMeta("run", map[string]any{"command": "touch here"}, nil)
	if _, err := os.Stat(filepath.Join(start, "here")); err != nil || res.IsError {
		t.Errorf("without a workspace: %v\n%s", err, text(res))
	}

	// A workspace in no project (no git, no .clada/) is not taken as a
	// root: outside the served root, the call is refused.
	plain := t.TempDir()
	res = s.callMeta("run", map[string]any{"command": "touch plain"}, codexMeta(plain, nil))
	if !res.IsError || !strings.Contains(text(res), "workspace "+plain+" is outside the project root") {
		t.Errorf("a workspace in no project: isError %v\n%s", res.IsError, text(res))
	}
	if _, err := os.Stat(filepath.Join(plain, "plain")); err == nil {
		t.Error("ran in a workspace that is no project")
	}
	res = s.callMeta("run", map[string]any{"command": "touch plain"}, codexMeta("/", nil))
	if !res.IsError {
		t.Errorf("the workspace / was served:\n%s", text(res))
	}

	// --root fixes the root: a workspace outside it refuses run.
	pinned := startMCP(t, start, nil)
	res = pinned.callMeta("run", map[string]any{"command": "touch pinned"}, codexMeta(other, nil))
	if !res.IsError || !strings.Contains(text(res), "workspace "+other+" is outside the project root") {
		t.Errorf("--root with a workspace outside: isError %v\n%s", res.IsError, text(res))
	}
	if _, err := os.Stat(filepath.Join(other, "pinned")); err == nil {
		t.Error("ran in a workspace outside --root")
	}
	res = pinned.callMeta("run", map[string]any{"command": "touch inside"}, codexMeta(filepath.Join(start, ".clada"), nil))
	if res.IsError {
		t.Errorf("--root with a workspace inside: %s", text(res))
	}
}
