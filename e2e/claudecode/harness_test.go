package claudecode_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// claudeVersion is the Claude Code these tests pin (testdata/npm, which
// .ci/run installs with npm ci).
const claudeVersion = "2.1.332"

// npmDir is where `npm ci` installs the pinned Claude Code.
const npmDir = "testdata/npm"

var (
	claudeBin     string // the claude executable; "" when missing (why in claudeMissing)
	claudeMissing string
	cladaDir      string // a directory holding the clada built for these tests
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	claudeBin, claudeMissing = findClaude()
	if claudeBin != "" && !raceBuild {
		dir, err := os.MkdirTemp("", "clada-e2e-claude-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		name := "clada"
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		cmd := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", filepath.Join(dir, name), "../../cmd/clada")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building clada: %v\n%s", err, out)
			return 1
		}
		cladaDir = dir
	}
	return m.Run()
}

// findClaude returns the pinned Claude Code: $CLADA_E2E_CLAUDE, else the
// one npm ci installed in testdata/npm; why says what is missing.
func findClaude() (path, why string) {
	if p := os.Getenv("CLADA_E2E_CLAUDE"); p != "" {
		return p, ""
	}
	p, err := filepath.Abs(filepath.Join(npmDir, "node_modules", ".bin", "claude"))
	if err != nil {
		return "", err.Error()
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Sprintf("Claude Code %s is not installed: run `npm ci --prefix e2e/claudecode/%s`", claudeVersion, npmDir)
	}
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		return "", fmt.Sprintf("%s --version: %v", p, err)
	}
	if !strings.HasPrefix(string(out), claudeVersion+" ") {
		return "", fmt.Sprintf("%s is %q, these tests pin %s: run `npm ci --prefix e2e/claudecode/%s`", p, strings.TrimSpace(string(out)), claudeVersion, npmDir)
	}
	return p, ""
}

// needClaude skips the test without Claude Code, or fails it under CI,
// which must run these tests.
func needClaude(t *testing.T) {
	t.Helper()
	if raceBuild {
		t.Skip("not under -race: claude and clada run in processes of their own, built without the race detector; the plain go test ./... runs this suite")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the Claude Code end-to-end tests run on Linux (clada's sandbox and the pinned linux-x64 build)")
	}
	if claudeBin != "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI is set: CI must run the Claude Code end-to-end tests)", claudeMissing)
	}
	t.Skip(claudeMissing)
}

// session is one project, one isolated home and one fake model, for one
// or more runs of claude -p.
type session struct {
	t    testing.TB
	Root string // the project: a git repository
	Home string
	API  *fakeAPI
	// Dir is where claude starts, Root unless set.
	Dir string
	// Settings are written to Root/.claude/settings.local.json before
	// the run when not nil (the person's own rules).
	Env []string
}

// newSession makes a git repository holding files (name → content) with
// clada's hook installed by `clada hook install claude-code`, an empty
// home, and a fake model that plays script.
func newSession(t *testing.T, files map[string]string, script ...step) *session {
	t.Helper()
	needClaude(t)
	return makeSession(t, files, script...)
}

// newBenchSession is newSession for a benchmark, with a.txt.
func newBenchSession(b *testing.B, script []step) *session {
	b.Helper()
	if raceBuild || runtime.GOOS != "linux" {
		b.Skip("Linux, not under -race")
	}
	if claudeBin == "" {
		if os.Getenv("CI") != "" {
			b.Fatal(claudeMissing)
		}
		b.Skip(claudeMissing)
	}
	return makeSession(b, map[string]string{"a.txt": "hello e2e\n"}, script...)
}

func makeSession(t testing.TB, files map[string]string, script ...step) *session {
	t.Helper()
	base := t.TempDir()
	s := &session{t: t, Root: filepath.Join(base, "project"), Home: filepath.Join(base, "home")}
	s.Dir = s.Root
	for _, d := range []string{s.Root, s.Home, filepath.Join(s.Home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range files {
		p := filepath.Join(s.Root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.API = newFakeAPI(t, script...)
	s.git("init", "-q")
	s.git("add", "-A")
	s.git("commit", "-q", "--allow-empty", "-m", "e2e")
	return s
}

func (s *session) env() []string {
	return append([]string{
		"PATH=" + cladaDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + s.Home,
		"USER=e2e",
		"LANG=C.UTF-8",
		"TMPDIR=" + os.TempDir(),
		// Claude Code's scratch files (background output) in the
		// session's home, not in the machine's /tmp/claude-UID.
		"CLAUDE_CODE_TMPDIR=" + filepath.Join(s.Home, "tmp"),
		"ANTHROPIC_BASE_URL=" + s.API.URL,
		"ANTHROPIC_API_KEY=sk-ant-e2e-dummy",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.com",
		"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.com",
	}, s.Env...)
}

func (s *session) git(args ...string) {
	s.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = s.Root
	cmd.Env = s.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// clada runs the clada under test in dir with args and returns its
// output; it fails the test when clada fails.
func (s *session) clada(dir string, args ...string) string {
	s.t.Helper()
	cmd := exec.Command(filepath.Join(cladaDir, "clada"), args...)
	cmd.Dir = dir
	cmd.Env = s.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("clada %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// install installs clada's hook in the project, from dir.
func (s *session) install(dir string, args ...string) string {
	return s.clada(dir, append(append([]string{"hook", "install"}, args...), "claude-code")...)
}

// writeFile writes content to path, made with its directory.
func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeJSON writes v as JSON to path (made with its directory).
func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// transcript is what claude -p --output-format stream-json printed: one
// JSON object a line.
type transcript struct {
	Lines  []map[string]any
	Raw    string
	Stderr string
	Took   time.Duration
}

// runLimit bounds one run of claude.
const runLimit = 90 * time.Second

// claude runs `claude -p prompt --output-format stream-json --verbose` in
// s.Dir with extra args, and returns what it printed. A run that fails
// or hangs fails the test.
func (s *session) claude(prompt string, extra ...string) *transcript {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	args := append([]string{"-p", prompt, "--output-format", "stream-json", "--verbose"}, extra...)
	cmd := exec.CommandContext(ctx, claudeBin, args...)
	cmd.Dir = s.Dir
	cmd.Env = s.env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	tr := &transcript{Raw: stdout.String(), Stderr: stderr.String(), Took: time.Since(start)}
	sc := bufio.NewScanner(strings.NewReader(tr.Raw))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			tr.Lines = append(tr.Lines, m)
		}
	}
	if ctx.Err() != nil {
		s.t.Fatalf("claude ran longer than %s; stdout:\n%s\nstderr:\n%s", runLimit, tr.Raw, tr.Stderr)
	}
	if err != nil {
		s.t.Fatalf("claude: %v\nstdout:\n%s\nstderr:\n%s", err, tr.Raw, tr.Stderr)
	}
	return tr
}

// toolResults are the tool_result texts the person's stream shows (the
// "user" lines of the stream), by tool_use id.
func (tr *transcript) toolResults() map[string]string {
	out := map[string]string{}
	for _, l := range tr.Lines {
		if l["type"] != "user" {
			continue
		}
		msg, _ := l["message"].(map[string]any)
		content, _ := msg["content"].([]any)
		for _, c := range content {
			b, _ := c.(map[string]any)
			if b["type"] != "tool_result" {
				continue
			}
			id, _ := b["tool_use_id"].(string)
			raw, _ := json.Marshal(b["content"])
			out[id] = resultText(raw)
		}
	}
	return out
}

// marker reports whether the file name exists in the project.
func (s *session) exists(name string) bool {
	_, err := os.Stat(filepath.Join(s.Root, filepath.FromSlash(name)))
	return err == nil
}

// toolDurations are, for each tool call, the milliseconds from the
// assistant's tool_use to its tool_result, by Claude Code's timestamps.
func (tr *transcript) toolDurations() []float64 {
	start := map[string]time.Time{}
	var out []float64
	for _, l := range tr.Lines {
		ts, _ := l["timestamp"].(string)
		at, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			continue
		}
		msg, _ := l["message"].(map[string]any)
		content, _ := msg["content"].([]any)
		for _, c := range content {
			blk, _ := c.(map[string]any)
			switch blk["type"] {
			case "tool_use":
				id, _ := blk["id"].(string)
				start[id] = at
			case "tool_result":
				id, _ := blk["tool_use_id"].(string)
				if s, ok := start[id]; ok {
					out = append(out, float64(at.Sub(s))/float64(time.Millisecond))
				}
			}
		}
	}
	return out
}

// quantile is the q-quantile of xs (nearest rank), 0 for none.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}

// prompt is one permission prompt Claude Code put to the person (a
// can_use_tool control request, --permission-prompt-tool stdio).
type prompt struct {
	Tool   string
	Input  map[string]any
	Reason string // decision_reason: what the person's dialog shows
}

// claudeAsked runs claude as claude (stream-json in and out), with the
// test as the person answering its permission prompts: answer says
// allow or not for each. It returns the transcript and the prompts.
func (s *session) claudeAsked(text string, answer func(prompt) bool) (*transcript, []prompt) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, claudeBin, "-p", "--input-format", "stream-json", "--output-format", "stream-json",
		"--verbose", "--permission-prompt-tool", "stdio")
	cmd.Dir = s.Dir
	cmd.Env = s.env()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	send := func(v any) {
		b, _ := json.Marshal(v)
		stdin.Write(append(b, '\n'))
	}
	send(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	tr := &transcript{}
	var prompts []prompt
	var raw strings.Builder
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		raw.Write(sc.Bytes())
		raw.WriteByte('\n')
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		tr.Lines = append(tr.Lines, m)
		switch m["type"] {
		case "control_request":
			req, _ := m["request"].(map[string]any)
			id, _ := m["request_id"].(string)
			if req["subtype"] != "can_use_tool" {
				send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": id, "response": map[string]any{}}})
				continue
			}
			p := prompt{}
			p.Tool, _ = req["tool_name"].(string)
			p.Input, _ = req["input"].(map[string]any)
			p.Reason, _ = req["decision_reason"].(string)
			prompts = append(prompts, p)
			resp := map[string]any{"behavior": "deny", "message": "the person said no"}
			if answer(p) {
				resp = map[string]any{"behavior": "allow", "updatedInput": p.Input}
			}
			send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": id, "response": resp}})
		case "result":
			stdin.Close()
		}
	}
	err = cmd.Wait()
	tr.Raw, tr.Stderr, tr.Took = raw.String(), stderr.String(), time.Since(start)
	if ctx.Err() != nil {
		s.t.Fatalf("claude ran longer than %s; stdout:\n%s\nstderr:\n%s", runLimit, tr.Raw, tr.Stderr)
	}
	if err != nil {
		s.t.Fatalf("claude: %v\nstdout:\n%s\nstderr:\n%s", err, tr.Raw, tr.Stderr)
	}
	return tr, prompts
}
