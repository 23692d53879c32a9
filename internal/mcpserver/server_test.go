package mcpserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clada/clada/internal/approve"
)

func TestOutside(t *testing.T) {
	t.Parallel()
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(top, "proj")
	for _, d := range []string{"proj/sub", "projx", "other"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(top, "other"), filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "sub"), filepath.Join(top, "link-in")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, uri string
		refused   bool
	}{
		{"the root", "file://" + root, false},
		{"the root with a slash", "file://" + root + "/", false},
		{"a subdirectory", "file://" + root + "/sub", false},
		{"a subdirectory that does not exist yet", "file://" + root + "/new/deeper", false},
		{"a link from outside to inside", "file://" + top + "/link-in", false},
		{"the parent", "file://" + top, true},
		{"a sibling sharing the prefix", "file://" + top + "/projx", true},
		{"dot-dot out", "file://" + root + "/../other", true},
		{"a link inside pointing outside", "file://" + root + "/escape", true},
		{"a percent-encoded path inside", "file://" + top + "/pro%6A/sub", false},
		{"a percent-encoded path outside", "file://" + top + "/oth%65r", true},
		{"a host that is not this machine", "file://example.com" + root, true},
		{"not a file URI", "https://example.com" + root, true},
		{"not a URI", "::", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			why := outside(root, tt.uri)
			if (why != "") != tt.refused {
				t.Errorf("outside(%s) = %q, want refused %v", tt.uri, why, tt.refused)
			}
		})
	}
}

func TestCanElicit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		caps *mcp.ClientCapabilities
		want bool
	}{
		{"no capabilities", nil, false},
		{"no elicitation", &mcp.ClientCapabilities{}, false},
		{"empty elicitation (2025-06-18)", &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}, true},
		{"form", &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}, true},
		{"URL only", &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}, false},
	}
	for _, tt := range tests {
		if got := canElicit(tt.caps); got != tt.want {
			t.Errorf("%s: canElicit = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// session connects a server session to an in-memory client with handler
// as its elicitation handler (nil: no elicitation capability).
func session(t *testing.T, handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ServerSession {
	t.Helper()
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "test"}, &mcp.ServerOptions{SupportedProtocolVersions: legacyProtocols})
	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, &mcp.ClientOptions{ElicitationHandler: handler})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return ss
}

// TestElicit: only an accepted yes, always or never is an answer other
// than no; everything else is no with its reason.
func TestElicit(t *testing.T) {
	t.Parallel()
	reply := func(action string, content map[string]any, err error) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if err != nil {
				return nil, err
			}
			return &mcp.ElicitResult{Action: action, Content: content}, nil
		}
	}
	block := func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	tests := []struct {
		name    string
		handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
		cancel  bool // the run is cancelled while asking
		want    approve.Answer
		wantNo  string // a prefix of the reason
	}{
		{name: "yes", handler: reply("accept", map[string]any{"answer": "yes"}, nil), want: approve.Yes},
		{name: "always", handler: reply("accept", map[string]any{"answer": "always"}, nil), want: approve.Always},
		{name: "never", handler: reply("accept", map[string]any{"answer": "never"}, nil), want: approve.Never},
		{name: "no", handler: reply("accept", map[string]any{"answer": "no"}, nil), wantNo: string(approve.NoAnswered)},
		{name: "decline", handler: reply("decline", nil, nil), wantNo: string(noDeclined)},
		{name: "cancel", handler: reply("cancel", nil, nil), wantNo: string(noCancelled)},
		{name: "an answer outside the schema", handler: reply("accept", map[string]any{"answer": "sure"}, nil), wantNo: "the MCP client could not ask"},
		{name: "accept without an answer", handler: reply("accept", map[string]any{}, nil), wantNo: "the MCP client could not ask"},
		{name: "client error", handler: reply("", nil, errors.New("no window")), wantNo: "the MCP client could not ask"},
		{name: "no answer in time", handler: block, wantNo: string(approve.NoTimeout)},
		{name: "run cancelled", handler: block, cancel: true, wantNo: string(approve.NoInterrupted)},
		{name: "no elicitation capability", handler: nil, wantNo: "the MCP client could not ask"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ss := session(t, tt.handler)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				time.AfterFunc(50*time.Millisecond, cancel)
			}
			q := approve.Question{Command: "npm test", Dir: "sub/", Why: "`npm` is not in clada's specs"}
			timeout := 10 * time.Second
			if tt.wantNo == string(approve.NoTimeout) {
				timeout = 100 * time.Millisecond
			}
			start := time.Now()
			ans, no := elicit(ctx, ss, q, timeout)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("elicit took %s", took)
			}
			if ans != tt.want || !strings.HasPrefix(string(no), tt.wantNo) || (tt.wantNo == "") != (no == "") {
				t.Errorf("elicit = %v, %q; want %v, %q…", ans, no, tt.want, tt.wantNo)
			}
		})
	}
}

func TestElicitMessage(t *testing.T) {
	t.Parallel()
	msg := elicitMessage(approve.Question{Command: "npm test", Dir: "web/", Why: "`npm` is not in clada's specs"}, time.Minute)
	for _, want := range []string{"run `npm test` in web/?", "Asked because `npm` is not in clada's specs.", "within 60s counts as no", "always", "never"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if msg := elicitMessage(approve.Question{Command: "make"}, 10*time.Second); !strings.Contains(msg, "run `make` in .?") {
		t.Errorf("a question in the root: %q", msg)
	}
}

// TestJobsKeepNewest: only the newest finished background jobs are kept,
// and foreground ones are not.
func TestJobsKeepNewest(t *testing.T) {
	t.Parallel()
	js := newJobs()
	var all []*job
	for i := range keepFinished + 5 {
		release := make(chan struct{})
		j, err := js.start(runningView{}, func(context.Context) *finished {
			<-release
			return &finished{status: statusExited}
		})
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 || i >= 5 {
			js.toBackground(j)
		}
		close(release)
		<-j.done
		all = append(all, j)
	}
	for i, j := range all {
		kept := js.get(j.id) != nil
		background := i%2 == 0 || i >= 5
		want := background && i >= len(all)-keepFinished
		if kept != want {
			t.Errorf("job %d (background %v): kept %v, want %v", j.id, background, kept, want)
		}
	}
	if js.toBackground(all[1]) {
		t.Error("an ended job was sent to the background")
	}
}

// TestJobsLimitAndClose: at most maxRunning commands run; close stops
// every job and waits for it; no job starts afterwards.
func TestJobsLimitAndClose(t *testing.T) {
	t.Parallel()
	js := newJobs()
	var mu sync.Mutex
	var causes []error
	for range maxRunning {
		_, err := js.start(runningView{}, func(ctx context.Context) *finished {
			<-ctx.Done()
			mu.Lock()
			causes = append(causes, context.Cause(ctx))
			mu.Unlock()
			return &finished{status: statusKilled}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := js.start(runningView{}, nil); !errors.Is(err, errTooMany) {
		t.Errorf("job %d: %v, want errTooMany", maxRunning+1, err)
	}
	js.close()
	if len(causes) != maxRunning {
		t.Fatalf("%d jobs ended at close, want %d", len(causes), maxRunning)
	}
	for _, c := range causes {
		if !errors.Is(c, errShutdown) {
			t.Errorf("cause %v, want errShutdown", c)
		}
	}
	if _, err := js.start(runningView{}, nil); !errors.Is(err, errClosed) {
		t.Errorf("start after close: %v, want errClosed", err)
	}
}
