package claudecode_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// step is one turn of the scripted model: a call of the tool Tool with
// Input, or, when Tool is "", a final text.
type step struct {
	Tool  string
	Input map[string]any
	Text  string
}

// bash is a step that calls Claude Code's Bash tool with command (and the
// model's own extra fields, such as timeout).
func bash(command string, extra ...any) step {
	in := map[string]any{"command": command, "description": "e2e step"}
	for i := 0; i+1 < len(extra); i += 2 {
		in[extra[i].(string)] = extra[i+1]
	}
	return step{Tool: "Bash", Input: in}
}

// toolResult is a tool_result the model received: the text of its
// content and whether Claude Code marked it as an error.
type toolResult struct {
	ID      string
	Text    string
	IsError bool
}

// fakeAPI is Anthropic's Messages API as far as Claude Code uses it in
// -p mode, scripted: the conversation's requests (those that offer the
// Bash tool) are answered with the script's steps in order, one per
// request, as a streamed tool_use; once every step has had its
// tool_result, with a short text. Every other request (a title, a quota
// probe) gets a short text. It serves at most maxRequests requests, so a
// run that loops ends.
type fakeAPI struct {
	t      testing.TB
	script []step
	URL    string

	mu       sync.Mutex
	requests int
	results  []toolResult // every tool_result seen, first time only
	seen     map[string]bool
	paths    []string
}

const maxRequests = 40

func newFakeAPI(t testing.TB, script ...step) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, script: script, seen: map[string]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: f}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	f.URL = "http://" + ln.Addr().String()
	return f
}

// Results returns the tool results the model received, in order.
func (f *fakeAPI) Results() []toolResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]toolResult(nil), f.results...)
}

// Result returns the tool result of step i (0-based); it fails the test
// when there is none.
func (f *fakeAPI) Result(i int) toolResult {
	f.t.Helper()
	id := toolID(i)
	for _, r := range f.Results() {
		if r.ID == id {
			return r
		}
	}
	f.t.Fatalf("the model received no tool_result for step %d (%s); requests: %v; results: %+v", i, id, f.paths, f.Results())
	return toolResult{}
}

func toolID(i int) string { return fmt.Sprintf("toolu_e2e_%02d", i) }

type apiRequest struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests++
	n := f.requests
	f.paths = append(f.paths, r.Method+" "+r.URL.Path)
	f.mu.Unlock()
	if n > maxRequests {
		http.Error(w, `{"type":"error","error":{"type":"rate_limit_error","message":"fake API: request limit reached"}}`, http.StatusTooManyRequests)
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		// count_tokens and anything else: an empty success.
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":10}`)
		return
	}
	var req apiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	conversation := false
	for _, t := range req.Tools {
		if t.Name == "Bash" {
			conversation = true
		}
	}
	if !conversation {
		f.reply(w, req.Stream, step{Text: "e2e"})
		return
	}
	done := 0
	f.mu.Lock()
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		var blocks []block
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			if strings.HasPrefix(b.ToolUseID, "toolu_e2e_") {
				done++
			}
			if !f.seen[b.ToolUseID] {
				f.seen[b.ToolUseID] = true
				f.results = append(f.results, toolResult{ID: b.ToolUseID, Text: resultText(b.Content), IsError: b.IsError})
			}
		}
	}
	f.mu.Unlock()
	if done < len(f.script) {
		s := f.script[done]
		s.Text = toolID(done) // the tool_use id
		f.reply(w, req.Stream, s)
		return
	}
	f.reply(w, req.Stream, step{Text: "e2e: done"})
}

// resultText is the text of a tool_result's content: a string, or a list
// of text blocks.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, b := range blocks {
			parts = append(parts, b.Text)
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

// reply answers with s: a tool_use (s.Tool set, s.Text its id) or a text.
func (f *fakeAPI) reply(w http.ResponseWriter, stream bool, s step) {
	var content map[string]any
	stop := "end_turn"
	if s.Tool != "" {
		content = map[string]any{"type": "tool_use", "id": s.Text, "name": s.Tool, "input": s.Input}
		stop = "tool_use"
	} else {
		content = map[string]any{"type": "text", "text": s.Text}
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5}
	msg := map[string]any{"id": "msg_e2e", "type": "message", "role": "assistant", "model": "claude-e2e",
		"stop_reason": nil, "stop_sequence": nil, "usage": usage, "content": []any{}}
	if !stream {
		msg["content"], msg["stop_reason"] = []any{content}, stop
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"type": "message_start", "message": msg})
	if s.Tool != "" {
		input, _ := json.Marshal(s.Input)
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": s.Text, "name": s.Tool, "input": map[string]any{}}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": s.Text}})
	}
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	event("message_stop", map[string]any{"type": "message_stop"})
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
}
