package codex_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// fakeResponses is a scripted OpenAI Responses API on 127.0.0.1, as
// Codex's `wire_api = "responses"` provider calls it: each POST
// /v1/responses gets the next turn (a function call of one of clada's MCP
// tools, or text), and a text "done" once the script is over, so that a
// conversation has a fixed number of turns. It keeps every request.
type fakeResponses struct {
	srv *httptest.Server

	mu       sync.Mutex
	turns    []turn
	requests []map[string]any
}

// turn is the model's answer to one request: a call of clada's tool
// (Tool, Args) or Text.
type turn struct {
	Tool string
	Args map[string]any
	Text string
	// Builtin calls Codex's own tool Tool (exec_command), not clada's.
	Builtin bool
}

// run is a turn that calls clada's run tool with command.
func run(command string) turn { return turn{Tool: "run", Args: map[string]any{"command": command}} }

func newFakeResponses(t *testing.T, turns []turn) *fakeResponses {
	f := &fakeResponses{turns: turns}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeResponses) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	json.Unmarshal(body, &req)
	f.mu.Lock()
	n := len(f.requests)
	f.requests = append(f.requests, req)
	tr := turn{Text: "done"}
	if n < len(f.turns) {
		tr = f.turns[n]
	}
	f.mu.Unlock()
	id := fmt.Sprintf("resp_%d", n)
	var item map[string]any
	if tr.Tool != "" {
		args, _ := json.Marshal(tr.Args)
		// Codex 0.171.0 offers MCP tools in a namespace, mcp__SERVER.
		item = map[string]any{"type": "function_call", "namespace": "mcp__clada", "name": tr.Tool,
			"arguments": string(args), "call_id": fmt.Sprintf("call_%d", n)}
		if tr.Builtin {
			delete(item, "namespace")
		}
	} else {
		item = map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%d", n),
			"content": []any{map[string]any{"type": "output_text", "text": tr.Text}}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": id}},
		{"type": "response.output_item.done", "item": item},
		{"type": "response.completed", "response": map[string]any{"id": id, "usage": map[string]any{
			"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}},
	} {
		data, _ := json.Marshal(e)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e["type"], data)
	}
}

// outputs returns what the model received back for each call, in order:
// the function_call_output of request i+1 for the call of turn i.
func (f *fakeResponses) outputs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for i, req := range f.requests[min(1, len(f.requests)):] {
		input, _ := req["input"].([]any)
		got := ""
		for _, it := range input {
			m, _ := it.(map[string]any)
			if m["type"] == "function_call_output" && m["call_id"] == fmt.Sprintf("call_%d", i) {
				got = fmt.Sprint(m["output"])
			}
		}
		out = append(out, got)
	}
	return out
}
