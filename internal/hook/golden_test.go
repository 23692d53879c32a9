package hook

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/gateway"
)

var update = flag.Bool("update", false, "rewrite the expected answers in testdata")

// fakeSelf is the clada the golden answers rewrite to.
const fakeSelf = "/usr/local/bin/clada"

// goldenProject makes the project every golden case runs in: a.txt,
// sub/b.txt, an allowed `make test`, and a git work tree.
func goldenProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{".clada", ".git", "sub"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n", "it's.txt": "q\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := approve.Add(root, approve.ListAllowed, "make test", gateway.ParsePattern); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestGolden runs each agent's hook on the payloads in testdata/AGENT/*.txtar:
// the sections env (NAME=VALUE lines), agent (the agent process: args=…
// and tty=stdin,stdout) and stdin are the input, with $ROOT
// standing for the project ($PARENT for the directory above it); stdout, stderr and exit are the expected
// answer (go test ./hook -update rewrites them; read the diff).
func TestGolden(t *testing.T) {
	answers := map[string]func(io.Reader, io.Writer, io.Writer, Env) int{
		"claude-code": ClaudeCode, "gemini": Gemini, "cursor": Cursor,
	}
	for agent, answer := range answers {
		files, err := filepath.Glob(filepath.Join("testdata", agent, "*.txtar"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no golden cases for %s: %v", agent, err)
		}
		for _, file := range files {
			t.Run(agent+"/"+strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
				t.Parallel()
				runGolden(t, file, answer)
			})
		}
	}
}

func runGolden(t *testing.T, file string, answer func(io.Reader, io.Writer, io.Writer, Env) int) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	root := goldenProject(t)
	// The gateway resolves the root; golden files show it as $ROOT too.
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	section := func(name string) (string, bool) {
		for _, f := range ar.Files {
			if f.Name == name {
				return strings.ReplaceAll(string(f.Data), "$ROOT", root), true
			}
		}
		return "", false
	}
	vars := map[string]string{}
	envText, _ := section("env")
	for _, line := range strings.Split(strings.TrimSpace(envText), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			vars[k] = v
		}
	}
	// file:PATH sections are files of the project (the person's Claude
	// Code settings, say), $ROOT replaced.
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "file:"); ok {
			p := filepath.Join(root, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(f.Data), "$ROOT", root)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	stdin, ok := section("stdin")
	if !ok {
		t.Fatalf("%s has no stdin section", file)
	}
	var stdout, stderr bytes.Buffer
	env := Env{Self: fakeSelf, Getenv: func(k string) string { return vars[k] }}
	if text, ok := section("agent"); ok {
		// The agent process: args (split at spaces) and which of stdin
		// and stdout are terminals.
		var p AgentProcess
		for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
			k, v, _ := strings.Cut(line, "=")
			switch k {
			case "args":
				p.Args = strings.Fields(v)
			case "tty":
				p.StdinTTY, p.StdoutTTY = strings.Contains(v, "stdin"), strings.Contains(v, "stdout")
			default:
				t.Fatalf("%s: agent section: unknown line %q", file, line)
			}
		}
		env.Agent = func() (AgentProcess, bool) { return p, true }
	}
	code := answer(strings.NewReader(stdin), &stdout, &stderr, env)
	hide := func(s string) string {
		s = strings.ReplaceAll(s, realRoot, "$ROOT")
		s = strings.ReplaceAll(s, root, "$ROOT")
		s = strings.ReplaceAll(s, filepath.Dir(realRoot), "$PARENT")
		return strings.ReplaceAll(s, filepath.Dir(root), "$PARENT")
	}
	got := map[string]string{"stdout": hide(stdout.String()), "stderr": hide(stderr.String()), "exit": strconv.Itoa(code) + "\n"}
	if *update {
		var files []txtar.File
		for _, f := range ar.Files {
			if _, expected := got[f.Name]; !expected {
				files = append(files, f)
			}
		}
		for _, name := range []string{"stdout", "stderr", "exit"} {
			files = append(files, txtar.File{Name: name, Data: []byte(got[name])})
		}
		ar.Files = files
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, name := range []string{"stdout", "stderr", "exit"} {
		var want string
		for _, f := range ar.Files {
			if f.Name == name {
				want = string(f.Data)
			}
		}
		if got[name] != want {
			t.Errorf("%s: %s\n got: %q\nwant: %q", file, name, got[name], want)
		}
	}
}
