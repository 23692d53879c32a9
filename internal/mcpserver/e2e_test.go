//go:build linux

//lint:file-ignore SA1019 MCP roots are deprecated only from protocol 2026-07-28, which clada mcp does not speak; it checks roots, so the tests offer them

package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/leftover"
	"github.com/clada/clada/internal/testproc"
)

// The end-to-end tests of clada mcp: the real binary, driven over stdio by
// the official Go SDK's client (mcp_ts_test.go does the same with the
// TypeScript SDK).

// lockedBuffer collects the server's stderr while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type mcpSession struct {
	t      *testing.T
	cs     *mcp.ClientSession
	cmd    *exec.Cmd
	stderr *lockedBuffer
	out    map[string]*jsonschema.Resolved // each tool's output schema
}

// startMCP starts `clada mcp --root root args...` and connects the Go
// SDK's client to it; opts may set the client's elicitation handler.
func startMCP(t *testing.T, root string, opts *mcp.ClientOptions, args ...string) *mcpSession {
	t.Helper()
	return connectMCP(t, root, mcp.NewClient(&mcp.Implementation{Name: "clada-test", Version: "0"}, opts), args...)
}

// connectMCP starts clada-mcp --root root args... (what clada mcp
// starts; this test binary under that name, see TestMain) and connects
// client.
func connectMCP(t *testing.T, root string, client *mcp.Client, args ...string) *mcpSession {
	t.Helper()
	cmd := serverCmd(t, root, append([]string{"--root", root}, args...)...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	// A bound against a hang, not a speed check: a race-built server on
	// a loaded 2-core CI runner took more than 20 s to answer.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to clada mcp: %v\nstderr:\n%s", err, stderr)
	}
	s := &mcpSession{t: t, cs: cs, cmd: cmd, stderr: stderr, out: map[string]*jsonschema.Resolved{}}
	t.Cleanup(func() { s.cs.Close() })
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		data, _ := json.Marshal(tool.OutputSchema)
		var schema jsonschema.Schema
		if err := json.Unmarshal(data, &schema); err != nil {
			t.Fatalf("%s's output schema: %v", tool.Name, err)
		}
		if s.out[tool.Name], err = schema.Resolve(nil); err != nil {
			t.Fatalf("%s's output schema: %v", tool.Name, err)
		}
	}
	return s
}

// call calls a tool and fails the test on a protocol error.
func (s *mcpSession) call(name string, args map[string]any) *mcp.CallToolResult {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s %v: %v\nstderr:\n%s", name, args, err, s.stderr)
	}
	// Every structured result fits the tool's declared output schema.
	if res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		var v any
		json.Unmarshal(data, &v)
		if err := s.out[name].Validate(v); err != nil {
			s.t.Errorf("%s %v: structuredContent does not fit the output schema: %v\n%s", name, args, err, data)
		}
	} else if !res.IsError {
		s.t.Errorf("%s %v: a result without structuredContent", name, args)
	}
	return res
}

// text is the result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured is the result's structuredContent as a map.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("structuredContent %s: %v", data, err)
	}
	return m
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	// A file the test writes in .clada is the person's: trusted, as
	// after clada trust.
	if dir := filepath.Dir(path); filepath.Base(dir) == approve.DirName {
		if err := approve.TrustCurrent(filepath.Dir(dir)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMCPToolsListed(t *testing.T) {
	t.Parallel()
	s := startMCP(t, newRoot(t), nil)
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	var names []string
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := []string{"check", "kill", "output", "run"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	if a := tools["check"].Annotations; a == nil || !a.ReadOnlyHint {
		t.Errorf("check is not annotated read-only: %+v", a)
	}
	if a := tools["run"].Annotations; a == nil || a.ReadOnlyHint || a.IdempotentHint {
		t.Errorf("run is annotated read-only or idempotent: %+v", a)
	}
	for name, fields := range map[string][]string{
		"run": {"command", "dir", "background_after"}, "check": {"command", "dir"}, "output": {"job"}, "kill": {"job"},
	} {
		data, _ := json.Marshal(tools[name].InputSchema)
		var schema struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		if err := json.Unmarshal(data, &schema); err != nil {
			t.Fatal(err)
		}
		var got []string
		for f := range schema.Properties {
			got = append(got, f)
		}
		slices.Sort(got)
		want := slices.Clone(fields)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s takes %v, want %v", name, got, want)
		}
		if !slices.Equal(schema.Required, fields[:1]) {
			t.Errorf("%s requires %v, want %v", name, schema.Required, fields[:1])
		}
	}
}

func TestMCPCheckAndRun(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	writeFile(t, filepath.Join(root, "a.txt"), "hello\n", 0o644)
	s := startMCP(t, root, nil)

	res := s.call("check", map[string]any{"command": "cat a.txt"})
	out := structured(t, res)
	if res.IsError || out["decision"] != "allow" || fmt.Sprint(out["argv"]) != "[cat a.txt]" {
		t.Errorf("check cat a.txt = %v %s", out, text(res))
	}
	res = s.call("check", map[string]any{"command": "cat $HOME"})
	if out := structured(t, res); out["decision"] != "deny" || out["rule"] != "expansion" || out["advice"] == "" {
		t.Errorf("check cat $HOME = %v", out)
	}
	if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
		t.Fatal("check ran something")
	}

	res = s.call("run", map[string]any{"command": "cat a.txt"})
	out = structured(t, res)
	if res.IsError || out["exit_code"] != float64(0) || !strings.Contains(text(res), "hello") {
		t.Errorf("run cat a.txt: isError %v, %v\n%s", res.IsError, out, text(res))
	}
	if _, ok := out["job"]; ok {
		t.Errorf("a command that finished at once has a job: %v", out)
	}
	// The structured result says how the command ran, as the JSON report does.
	if c, _ := out["confinement"].(string); !strings.HasPrefix(c, "confined: ") && !strings.HasPrefix(c, "unconfined: ") {
		t.Errorf("run cat a.txt: confinement %q, want how the sandbox ran it", out["confinement"])
	}
	if !strings.Contains(text(res), "confined: ") {
		t.Errorf("run cat a.txt: the text result does not say how the sandbox ran it:\n%s", text(res))
	}
	for cmd, rule := range map[string]string{"cat $HOME": "expansion", "sudo touch made": "hard-block", "ls | touch made &": "shell-syntax"} {
		res := s.call("run", map[string]any{"command": cmd})
		if out := structured(t, res); !res.IsError || out["decision"] != "deny" || out["rule"] != rule || out["status"] != "denied" {
			t.Errorf("run %s: isError %v, %v; want denied by %s", cmd, res.IsError, out, rule)
		}
	}
	res = s.call("run", map[string]any{"command": "touch made", "dir": "sub"})
	if !res.IsError || structured(t, res)["rule"] != "dir-not-found" {
		t.Errorf("run in a missing dir: isError %v\n%s", res.IsError, text(res))
	}
	res = s.call("run", map[string]any{"command": "touch made"})
	if res.IsError {
		t.Errorf("run touch made failed:\n%s", text(res))
	}
	if _, err := os.Stat(filepath.Join(root, "made")); err != nil {
		t.Errorf("touch did not run: %v", err)
	}
	// A commands.toml that another process broke is an error naming it,
	// until it is fixed; the server goes on serving.
	bad := filepath.Join(root, ".clada", "commands.toml")
	writeFile(t, bad, "allowed = [\n", 0o644)
	for _, tool := range []string{"check", "run"} {
		res := s.call(tool, map[string]any{"command": "ls"})
		if !res.IsError || !strings.Contains(text(res), "commands.toml") || res.StructuredContent != nil {
			t.Errorf("%s with a broken commands.toml: isError %v\n%s", tool, res.IsError, text(res))
		}
	}
	writeFile(t, bad, "allowed = ['true']\n", 0o644)
	if res := s.call("check", map[string]any{"command": "true"}); res.IsError || structured(t, res)["rule"] != "allowed-pattern" {
		t.Errorf("after the fix: isError %v, %v\n%s", res.IsError, res.StructuredContent, text(res))
	}
}

// elicitor answers clada's questions as a person in the client would,
// and remembers what it was asked.
type elicitor struct {
	mu     sync.Mutex
	answer func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)
	asked  []*mcp.ElicitParams
}

func (e *elicitor) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	e.asked = append(e.asked, req.Params)
	answer := e.answer
	e.mu.Unlock()
	return answer(req)
}

func (e *elicitor) questions() []*mcp.ElicitParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.asked)
}

func answer(action, value string) func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		r := &mcp.ElicitResult{Action: action}
		if value != "" {
			r.Content = map[string]any{"answer": value}
		}
		return r, nil
	}
}

// TestMCPElicitation: a command that needs approval is asked through the
// client with the fixed schema; accept with yes or always runs it (always
// writes commands.toml, and the next identical command is not asked),
// accept with no or never, decline and cancel do not run it.
func TestMCPElicitation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, action, answer string
		wantRun              bool
		wantList             string // the list of commands.toml that gets the pattern
		wantNotApproved      string
	}{
		{name: "accept yes", action: "accept", answer: "yes", wantRun: true},
		{name: "accept always", action: "accept", answer: "always", wantRun: true, wantList: "allowed"},
		{name: "accept no", action: "accept", answer: "no", wantNotApproved: "answered no"},
		{name: "accept never", action: "accept", answer: "never", wantList: "blocked", wantNotApproved: "answered never"},
		{name: "decline", action: "decline", wantNotApproved: "declined in the MCP client"},
		{name: "cancel", action: "cancel", wantNotApproved: "dismissed in the MCP client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := newRoot(t)
			writeFile(t, filepath.Join(root, "mark.sh"), "#!/bin/sh\necho ran >> marks\n", 0o755)
			e := &elicitor{answer: answer(tt.action, tt.answer)}
			s := startMCP(t, root, &mcp.ClientOptions{ElicitationHandler: e.handle})
			res := s.call("run", map[string]any{"command": "./mark.sh"})
			out := structured(t, res)
			qs := e.questions()
			if len(qs) != 1 {
				t.Fatalf("asked %d times, want once", len(qs))
			}
			var got, want any
			schema, _ := json.Marshal(qs[0].RequestedSchema)
			json.Unmarshal(schema, &got)
			json.Unmarshal([]byte(`{"type":"object","properties":{"answer":{"type":"string","enum":["yes","no","always","never"]}},"required":["answer"]}`), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("requested schema %s", schema)
			}
			for _, want := range []string{"run `./mark.sh` in .?", "not in clada's specs", "within 60s", "It runs " + testproc.SandboxPhrase(t) + "."} {
				if !strings.Contains(qs[0].Message, want) {
					t.Errorf("question %q does not mention %q", qs[0].Message, want)
				}
			}
			marks, _ := os.ReadFile(filepath.Join(root, "marks"))
			if ran := len(marks) > 0; ran != tt.wantRun {
				t.Fatalf("ran = %v, want %v; isError %v\n%s", ran, tt.wantRun, res.IsError, text(res))
			}
			if res.IsError == tt.wantRun {
				t.Errorf("isError = %v for a command that ran = %v\n%s", res.IsError, tt.wantRun, text(res))
			}
			if tt.wantNotApproved != "" && out["not_approved"] != tt.wantNotApproved {
				t.Errorf("not_approved = %v, want %q", out["not_approved"], tt.wantNotApproved)
			}
			toml, _ := os.ReadFile(filepath.Join(root, ".clada", "commands.toml"))
			switch tt.wantList {
			case "":
				if len(toml) > 0 {
					t.Errorf("commands.toml written:\n%s", toml)
				}
			default:
				if !strings.Contains(string(toml), tt.wantList+" = [\n  './mark.sh'") && !strings.Contains(string(toml), tt.wantList+" = [\n  \"./mark.sh\"") {
					t.Errorf("commands.toml does not have ./mark.sh in %s:\n%s", tt.wantList, toml)
				}
				// The next identical command follows the pattern, unasked.
				res := s.call("run", map[string]any{"command": "./mark.sh"})
				if n := len(e.questions()); n != 1 {
					t.Errorf("asked again after %s", tt.answer)
				}
				if res.IsError != (tt.wantList == "blocked") {
					t.Errorf("after %s: isError %v\n%s", tt.answer, res.IsError, text(res))
				}
			}
		})
	}
}

// jobRoot is a project root whose commands.toml allows the scripts the job
// tests run: slow.sh prints, sleeps and prints again; spawn.sh leaves a
// grandchild in the background and records its own pid, then the
// grandchild's (in that order: a test that waits for bg.pid finds fg.pid
// written).
func jobRoot(t *testing.T) string {
	t.Helper()
	root := newRoot(t)
	writeFile(t, filepath.Join(root, ".clada", "commands.toml"), "allowed = ['./slow.sh *', './spawn.sh']\n", 0o644)
	writeFile(t, filepath.Join(root, "slow.sh"), "#!/bin/sh\necho start $1\nsleep $1\necho end $1\n", 0o755)
	writeFile(t, filepath.Join(root, "spawn.sh"), "#!/bin/sh\necho $$ > fg.pid\nsleep 60 &\necho $! > bg.pid\necho spawned\nsleep 60\n", 0o755)
	return root
}

// jobOf returns the job id of a run result that went to the background.
func jobOf(t *testing.T, res *mcp.CallToolResult) float64 {
	t.Helper()
	out := structured(t, res)
	id, ok := out["job"].(float64)
	if res.IsError || !ok || out["status"] != "running" {
		t.Fatalf("run did not go to the background: isError %v, %v\n%s", res.IsError, out, text(res))
	}
	if !strings.Contains(text(res), fmt.Sprintf("job %d: running", int(id))) {
		t.Errorf("the text does not name the job:\n%s", text(res))
	}
	return id
}

// waitFile waits up to 10 s for a file a command writes.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if data, err := os.ReadFile(path); err == nil && len(data) > 0 && data[len(data)-1] == '\n' {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not written", path)
		}
	}
}

// waitJob polls a job until it is no longer running and returns the
// output tool's structured result, with its text under "text".
func waitJob(t *testing.T, s *mcpSession, id float64) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res := s.call("output", map[string]any{"job": id})
		if out := structured(t, res); out["status"] != "running" {
			out["text"] = text(res)
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %v still running after 20 s", id)
		}
	}
}

func TestMCPBackgroundJob(t *testing.T) {
	t.Parallel()
	s := startMCP(t, jobRoot(t), nil)
	res := s.call("run", map[string]any{"command": "./slow.sh 1", "background_after": 0.2})
	id := jobOf(t, res)
	// What it printed so far is shown, and where it is saved.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res = s.call("output", map[string]any{"job": id})
		out := structured(t, res)
		if res.IsError || out["status"] != "running" || out["job"] != id {
			t.Fatalf("output of a running job: %v\n%s", out, text(res))
		}
		if out["stdout"] == "start 1\n" {
			file, _ := out["stdout_file"].(string)
			if !strings.HasPrefix(file, ".clada/out/") || !strings.Contains(text(res), "start 1") || !strings.Contains(text(res), file) {
				t.Errorf("output so far: %v\n%s", out, text(res))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the output so far never showed start 1: %v\n%s", out, text(res))
		}
	}
	out := waitJob(t, s, id)
	if out["status"] != "exited" || out["exit_code"] != float64(0) || out["stdout"] != "start 1\nend 1\n" || !strings.Contains(out["text"].(string), "end 1") {
		t.Errorf("finished job: %v", out)
	}
	res = s.call("output", map[string]any{"job": 99})
	if !res.IsError || !strings.Contains(text(res), "no job 99") {
		t.Errorf("output of an unknown job: isError %v\n%s", res.IsError, text(res))
	}
	// A short command with a long background_after is no job.
	res = s.call("run", map[string]any{"command": "./slow.sh 0", "background_after": 10})
	if out := structured(t, res); out["job"] != nil || out["exit_code"] != float64(0) {
		t.Errorf("a quick command became a job: %v", out)
	}
}

func TestMCPKill(t *testing.T) {
	t.Parallel()
	root := jobRoot(t)
	s := startMCP(t, root, nil)
	id := jobOf(t, s.call("run", map[string]any{"command": "./spawn.sh", "background_after": 0.2}))
	waitFile(t, filepath.Join(root, "bg.pid"))
	start := time.Now()
	res := s.call("kill", map[string]any{"job": id})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("kill took %s", took)
	}
	if out := structured(t, res); out["status"] != "killed" || !strings.Contains(text(res), "stopped (by the kill tool)") {
		t.Errorf("kill: %v\n%s", out, text(res))
	}
	testproc.WaitGone(t, filepath.Join(root, "bg.pid"), "kill")
	testproc.WaitGone(t, filepath.Join(root, "fg.pid"), "kill")
	res = s.call("kill", map[string]any{"job": id})
	if out := structured(t, res); res.IsError || out["status"] != "killed" || !strings.Contains(text(res), "had already ended") {
		t.Errorf("kill of an ended job: %v\n%s", out, text(res))
	}
}

// TestMCPJobDaemonGone: a job's end also ends what the job daemonized
// (a double fork into sessions of its own), which its process group no
// longer holds, whether the kill tool ended it or SIGTERM ended the
// server; it writes nothing afterwards.
func TestMCPJobDaemonGone(t *testing.T) {
	t.Parallel()
	for _, end := range []string{"the kill tool", "SIGTERM to the server"} {
		t.Run(end, func(t *testing.T) {
			t.Parallel()
			root := newRoot(t)
			writeFile(t, filepath.Join(root, ".clada", "commands.toml"), "allowed = ['./leftover *']\n", 0o644)
			// The test binary lies outside the root, where the gateway
			// would not run it by path: a script in the root runs it.
			writeFile(t, filepath.Join(root, "leftover"),
				"#!/bin/sh\n"+leftoverEnv+"=1 exec '"+testproc.Self(t)+"' \"$@\"\n", 0o755)
			if err := os.Mkdir(filepath.Join(root, "out"), 0o755); err != nil {
				t.Fatal(err)
			}
			marker := filepath.Join(root, "out", "daemon-wrote")
			s := startMCP(t, root, nil)
			start := time.Now()
			id := jobOf(t, s.call("run", map[string]any{"command": "./leftover daemonize " + marker + " sleep", "background_after": 0.2}))
			leftover.WaitStarted(t, marker)
			os.Remove(marker) // had it been written already, while the job ran, that was allowed
			if end == "the kill tool" {
				if out := structured(t, s.call("kill", map[string]any{"job": id})); out["status"] != "killed" {
					t.Errorf("kill: %v", out)
				}
			} else {
				// The server cancels its jobs and exits; Gone gives it
				// time.
				if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			leftover.Gone(t, marker, start, end)
		})
	}
}

// TestMCPDisconnectKillsJobs: when the client closes the connection, the
// server kills every job's process group and exits; nothing is left.
func TestMCPDisconnectKillsJobs(t *testing.T) {
	t.Parallel()
	root := jobRoot(t)
	s := startMCP(t, root, nil)
	jobOf(t, s.call("run", map[string]any{"command": "./spawn.sh", "background_after": 0.2}))
	waitFile(t, filepath.Join(root, "bg.pid"))
	start := time.Now()
	if err := s.cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	// Close waits for the server to exit; it sends SIGTERM only after 5 s.
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("clada mcp took %s to exit after stdin closed", took)
	}
	if st := s.cmd.ProcessState; st == nil || !st.Exited() || st.ExitCode() != 0 {
		t.Errorf("clada mcp did not exit 0 on its own: %v\nstderr:\n%s", st, s.stderr)
	}
	testproc.WaitGone(t, filepath.Join(root, "bg.pid"), "the client disconnected")
	testproc.WaitGone(t, filepath.Join(root, "fg.pid"), "the client disconnected")
}

// TestMCPConcurrentRuns: ten runs at once each get their own command's
// result.
func TestMCPConcurrentRuns(t *testing.T) {
	t.Parallel()
	root := jobRoot(t)
	s := startMCP(t, root, nil)
	const n = 10
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			arg := fmt.Sprintf("%.2f", float64(i)*0.05) // sleeps of 0 to 0.45 s
			res := s.call("run", map[string]any{"command": "./slow.sh " + arg})
			out := structured(t, res)
			if res.IsError || out["exit_code"] != float64(0) || out["stdout"] != fmt.Sprintf("start %s\nend %s\n", arg, arg) {
				t.Errorf("run %d: %v\n%s", i, out, text(res))
			}
		}()
	}
	wg.Wait()
}

// TestMCPRoots: while the client offers a root outside the project root,
// run and check are refused; once its roots change to the project, they
// work again.
func TestMCPRoots(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	other := t.TempDir()
	client := mcp.NewClient(&mcp.Implementation{Name: "clada-test", Version: "0"}, nil)
	client.AddRoots(&mcp.Root{URI: "file://" + root}, &mcp.Root{URI: "file://" + other})
	s := connectMCP(t, root, client)
	for _, tool := range []string{"check", "run"} {
		res := s.call(tool, map[string]any{"command": "touch made"})
		if !res.IsError || res.StructuredContent != nil || !strings.Contains(text(res), other+" is outside the project root") ||
			!strings.Contains(text(res), "--root") {
			t.Errorf("%s with a root outside: isError %v, %v\n%s", tool, res.IsError, res.StructuredContent, text(res))
		}
	}
	if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
		t.Fatal("run ran a command while a root was outside the project")
	}
	client.RemoveRoots("file://" + other)
	client.AddRoots(&mcp.Root{URI: "file://" + root + "/sub"})
	// The list_changed notification reaches the server asynchronously.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res := s.call("run", map[string]any{"command": "touch made"})
		if !res.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still refused after the roots changed:\n%s", text(res))
		}
	}
	if _, err := os.Stat(filepath.Join(root, "made")); err != nil {
		t.Errorf("touch did not run: %v", err)
	}
}

// TestMCPTrustFlags: --trust-all runs what would be asked without asking;
// --untrusted asks even for what the specs allow; a client that cannot
// elicit gets the command not run and is told how to approve it.
func TestMCPTrustFlags(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	writeFile(t, filepath.Join(root, "mark.sh"), "#!/bin/sh\necho ran >> marks\n", 0o755)
	s := startMCP(t, root, nil)
	res := s.call("run", map[string]any{"command": "./mark.sh"})
	out := structured(t, res)
	if !res.IsError || out["status"] != "not-approved" || !strings.Contains(text(res), "clada allow ./mark.sh") ||
		!strings.Contains(text(res), "elicitation") {
		t.Errorf("ask without elicitation: isError %v, %v\n%s", res.IsError, out, text(res))
	}
	if _, err := os.Stat(filepath.Join(root, "marks")); err == nil {
		t.Fatal("a command that needs approval ran without it")
	}
	s.cs.Close()

	s = startMCP(t, root, nil, "--trust-all")
	res = s.call("run", map[string]any{"command": "./mark.sh"})
	if out := structured(t, res); res.IsError || out["approved_by"] != "trust-all" {
		t.Errorf("--trust-all: isError %v, %v\n%s", res.IsError, out, text(res))
	}
	if !strings.Contains(s.stderr.String(), "--trust-all") {
		t.Errorf("no warning about --trust-all on stderr: %q", s.stderr)
	}
	s.cs.Close()

	e := &elicitor{answer: answer("decline", "")}
	s = startMCP(t, root, &mcp.ClientOptions{ElicitationHandler: e.handle}, "--untrusted")
	res = s.call("run", map[string]any{"command": "touch made"})
	if out := structured(t, res); !res.IsError || out["rule"] != "untrusted" || len(e.questions()) != 1 {
		t.Errorf("--untrusted: isError %v, asked %d times, %v", res.IsError, len(e.questions()), out)
	}
	if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
		t.Error("--untrusted ran a declined command")
	}
}

// TestMCPBadArguments: arguments that do not fit a tool's input are an
// error result naming what is wrong; nothing runs.
func TestMCPBadArguments(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	s := startMCP(t, root, nil)
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"run", map[string]any{}, "command is required"},
		{"run", map[string]any{"command": "touch made", "shell": true}, `unknown field "shell"`},
		{"run", map[string]any{"command": "touch made", "background_after": -1}, "background_after -1 is out of range"},
		{"run", map[string]any{"command": "touch made", "background_after": "soon"}, "background_after"},
		{"run", map[string]any{"command": []string{"touch", "made"}}, "command"},
		{"check", map[string]any{"dir": "."}, "command is required"},
		{"output", map[string]any{"job": "1"}, "job"},
		{"output", map[string]any{}, "job is required"},
		{"kill", map[string]any{"job": 1.5}, "job"},
	}
	for _, tt := range tests {
		res := s.call(tt.tool, tt.args)
		if !res.IsError || !strings.Contains(text(res), "invalid arguments for "+tt.tool) || !strings.Contains(text(res), tt.want) {
			t.Errorf("%s %v: isError %v, want an error about %q:\n%s", tt.tool, tt.args, res.IsError, tt.want, text(res))
		}
	}
	if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
		t.Error("a call with bad arguments ran its command")
	}
}

// TestMCPJobLimits: config.toml's background_after is the default when a
// call gives none; a job is still bound by job_timeout (status "timed
// out", its process group killed) and by job_max_output (killed at the
// cap, the report saying so), while the run's own timeout and max_output
// do not apply to clada mcp's commands. The two halves run at once, each
// with its own server, so the test waits about 1 s, not the sum.
func TestMCPJobLimits(t *testing.T) {
	t.Parallel()
	t.Run("background_after from config", func(t *testing.T) {
		t.Parallel()
		root := jobRoot(t)
		writeFile(t, filepath.Join(root, ".clada", "config.toml"),
			"background_after = \"1s\"\ntimeout = \"1s\"\n", 0o644)
		s := startMCP(t, root, nil)
		// Backgrounded after config's 1 s, not the 30 s default; it
		// outlives the 1 s run timeout, which does not apply, and exits
		// on its own.
		start := time.Now()
		res := s.call("run", map[string]any{"command": "./slow.sh 1.3"})
		id := jobOf(t, res)
		if took := time.Since(start); took < 900*time.Millisecond || took > 10*time.Second {
			t.Errorf("run returned after %s, want about background_after = 1s", took)
		}
		if out := waitJob(t, s, id); out["status"] != "exited" || out["exit_code"] != float64(0) || out["stdout"] != "start 1.3\nend 1.3\n" {
			t.Errorf("slow.sh 1.3 past the 1s run timeout: %v", out)
		}
	})

	t.Run("job_timeout and job_max_output", func(t *testing.T) {
		t.Parallel()
		root := jobRoot(t)
		writeFile(t, filepath.Join(root, ".clada", "config.toml"),
			"job_timeout = \"1s\"\njob_max_output = \"64KiB\"\nmax_output = \"1KiB\"\n", 0o644)
		writeFile(t, filepath.Join(root, ".clada", "commands.toml"), "allowed = ['./spawn.sh', './loud.sh']\n", 0o644)
		writeFile(t, filepath.Join(root, "loud.sh"), "#!/bin/sh\nexec yes loud\n", 0o755)
		s := startMCP(t, root, nil)

		// spawn.sh goes to the background at once and runs until
		// job_timeout kills it; the checks below run while its 1 s passes.
		spawned := jobOf(t, s.call("run", map[string]any{"command": "./spawn.sh", "background_after": 0.2}))
		waitFile(t, filepath.Join(root, "bg.pid"))

		// Killed at job_max_output (64 KiB), not at max_output (1 KiB); the
		// saved file holds what came before the cap.
		res := s.call("run", map[string]any{"command": "./loud.sh", "background_after": 10})
		out := structured(t, res)
		if _, ok := out["job"]; ok {
			out = waitJob(t, s, out["job"].(float64))
		} else {
			out["text"] = text(res)
		}
		if out["outcome"] != "truncated" || out["max_output"] != float64(64<<10) || out["signal"] != "SIGKILL" {
			t.Errorf("loud.sh past job_max_output: %v", out)
		}
		if !strings.Contains(out["text"].(string), "job_max_output") {
			t.Errorf("the report of a job killed at its cap does not name job_max_output:\n%s", out["text"])
		}
		file, _ := out["stdout_file"].(string)
		info, err := os.Stat(filepath.Join(root, file))
		if err != nil || info.Size() < 64<<10 || info.Size() > 64<<10+1<<20 {
			t.Errorf("saved stdout %q: %v, %d bytes; want 64 KiB (and < 1 MiB past it)", file, err, sizeOf(info))
		}

		// spawn.sh: killed at job_timeout, with its process group.
		out = waitJob(t, s, spawned)
		if out["status"] != "timed out" || out["timed_out"] != true || !strings.Contains(out["text"].(string), fmt.Sprintf("job %d: timed out after 1.", int(spawned))) {
			t.Errorf("spawn.sh past job_timeout: %v", out)
		}
		testproc.WaitGone(t, filepath.Join(root, "bg.pid"), "job_timeout")
		testproc.WaitGone(t, filepath.Join(root, "fg.pid"), "job_timeout")
	})
}

func sizeOf(info os.FileInfo) int64 {
	if info == nil {
		return -1
	}
	return info.Size()
}

// TestMCPNeverRanIsNoJob: with background_after 0, a command that does not
// run (denied, asked without elicitation, declined) is reported as not run
// with its decision, never as a job running in the background; an allowed
// one does go to the background.
func TestMCPNeverRanIsNoJob(t *testing.T) {
	t.Parallel()
	root := jobRoot(t)
	writeFile(t, filepath.Join(root, "mark.sh"), "#!/bin/sh\necho ran >> marks\n", 0o755)
	e := &elicitor{answer: answer("decline", "")}
	for _, tt := range []struct {
		name, command, decision, status string
		opts                            *mcp.ClientOptions
	}{
		{"denied", "rm -rf .git", "deny", "denied", nil},
		{"asked, no elicitation", "./mark.sh", "ask", "not-approved", nil},
		{"asked, declined", "./mark.sh", "ask", "not-approved", &mcp.ClientOptions{ElicitationHandler: e.handle}},
	} {
		s := startMCP(t, root, tt.opts)
		res := s.call("run", map[string]any{"command": tt.command, "background_after": 0})
		out := structured(t, res)
		if !res.IsError || out["job"] != nil || out["status"] != tt.status || out["decision"] != tt.decision ||
			strings.Contains(text(res), "running") {
			t.Errorf("%s: isError %v, %v\n%s", tt.name, res.IsError, out, text(res))
		}
		s.cs.Close()
	}
	if _, err := os.Stat(filepath.Join(root, "marks")); err == nil {
		t.Error("a command that was not approved ran")
	}
	s := startMCP(t, root, nil)
	id := jobOf(t, s.call("run", map[string]any{"command": "./slow.sh 1", "background_after": 0}))
	if out := waitJob(t, s, id); out["status"] != "exited" || out["exit_code"] != float64(0) {
		t.Errorf("allowed job with background_after 0: %v", out)
	}
}
