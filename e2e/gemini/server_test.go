package gemini_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeGemini is a scripted Gemini API on 127.0.0.1: each
// streamGenerateContent request gets the next turn's parts (a function
// call, or text), and a text "done" once the script is over, so that a
// conversation has a fixed number of turns. It keeps every request.
type fakeGemini struct {
	srv *httptest.Server

	mu       sync.Mutex
	turns    [][]map[string]any
	requests []map[string]any // streamGenerateContent bodies, in order
	other    []string         // other requests: method and path
}

func newFakeGemini(t *testing.T, turns [][]map[string]any) *fakeGemini {
	f := &fakeGemini{turns: turns}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// call is a turn whose one part calls run_shell_command with command.
func call(command string) []map[string]any {
	return []map[string]any{{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]any{"command": command}}}}
}

func (f *fakeGemini) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.Contains(r.URL.Path, ":") {
		f.mu.Lock()
		f.other = append(f.other, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	usage := map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
	switch method := r.URL.Path[strings.LastIndexByte(r.URL.Path, ':')+1:]; method {
	case "streamGenerateContent":
		var req map[string]any
		json.Unmarshal(body, &req)
		f.mu.Lock()
		n := len(f.requests)
		f.requests = append(f.requests, req)
		parts := []map[string]any{{"text": "done"}}
		if n < len(f.turns) {
			parts = f.turns[n]
		}
		f.mu.Unlock()
		data, _ := json.Marshal(map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": usage})
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\r\n\r\n", data)
	case "countTokens":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"totalTokens": 10}`)
	default: // generateContent: Gemini CLI's own questions (next speaker, routing)
		f.mu.Lock()
		f.other = append(f.other, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		data, _ := json.Marshal(map[string]any{
			"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{
				map[string]any{"text": `{"reasoning": "the task is done", "next_speaker": "user"}`}}}, "finishReason": "STOP"}},
			"usageMetadata": usage})
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	}
}

// responses returns what the model received back for each function call,
// in order: the functionResponse's response object, as fmt prints it.
func (f *fakeGemini) responses() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, req := range f.requests[min(1, len(f.requests)):] {
		contents, _ := req["contents"].([]any)
		if len(contents) == 0 {
			out = append(out, "")
			continue
		}
		last, _ := contents[len(contents)-1].(map[string]any)
		parts, _ := last["parts"].([]any)
		var b strings.Builder
		for _, p := range parts {
			if fr, ok := p.(map[string]any)["functionResponse"]; ok {
				fmt.Fprint(&b, fr.(map[string]any)["response"])
			}
		}
		out = append(out, b.String())
	}
	return out
}
