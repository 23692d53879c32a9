package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestPromptJSON: --format json is the text as one JSON string, and the
// text follows the project (its allowed patterns, untrusted mode).
func TestPromptJSON(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	if err := os.WriteFile(filepath.Join(root, ".clada", "commands.toml"), []byte("allowed = [\"go test *\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trustRoot(t, root)
	var text, js, stderr bytes.Buffer
	if code := runInProcess([]string{"clada", "prompt", "--root", root, "--untrusted"}, strings.NewReader(""), &text, &stderr); code != exitOK {
		t.Fatalf("clada prompt exited %d: %s", code, &stderr)
	}
	if code := runInProcess([]string{"clada", "prompt", "--root", root, "--untrusted", "--format", "json"}, strings.NewReader(""), &js, &stderr); code != exitOK {
		t.Fatalf("clada prompt --format json exited %d: %s", code, &stderr)
	}
	var s string
	if err := json.Unmarshal(js.Bytes(), &s); err != nil {
		t.Fatalf("--format json is not one JSON string: %v\n%s", err, &js)
	}
	if s != text.String() {
		t.Errorf("the JSON string differs from the text (-text +json):\n%s", diffText(text.String(), s))
	}
	for _, want := range []string{"`go test *`", "Untrusted mode is on"} {
		if !strings.Contains(s, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, s)
		}
	}
	if code := runInProcess([]string{"clada", "prompt", "--root", root, "--format", "github"}, strings.NewReader(""), &js, &stderr); code != exitUsage {
		t.Errorf("clada prompt --format github exited %d, want %d", code, exitUsage)
	}
}

// TestModelReply is the newcomer's measure: a model that was given only
// `clada prompt` writes a reply that clada runs. testdata/prompt holds a
// small project (project.txtar, with the user's request), what clada
// prompt printed for it (prompt.txt; -update rewrites it: then read the
// reply again against the new prompt), and the reply, written as a model
// following that prompt would. Every block must run and succeed.
// promptPrograms are the programs TestModelReply's clada prompt finds
// installed: a Go project's tools and the usual file utilities.
var promptPrograms = []string{"awk", "cat", "cp", "diff", "echo", "find", "git", "go", "gofmt", "grep", "head",
	"ls", "make", "mkdir", "mv", "rm", "sed", "sort", "tail", "touch", "wc"}

func TestModelReply(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "testdata", "prompt")
	ar, err := txtar.ParseFile(filepath.Join(dir, "project.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, f := range ar.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."},
		{"-c", "user.name=New User", "-c", "user.email=new@example.com", "commit", "-q", "-m", "hello"}} {
		git := exec.Command("git", args...)
		git.Dir = root
		git.Env = append(os.Environ(), "HOME=/no-home", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args, err, out)
		}
	}

	// What the model was shown. clada prompt lists only the programs
	// installed here; PATH holds a fixed set, so the golden text is the
	// same on every machine (cargo, pytest and the rest are left out as
	// on a machine without them).
	fake := t.TempDir()
	for _, name := range promptPrograms {
		file, body := name, "#!/bin/sh\nexit 0\n"
		if runtime.GOOS == "windows" {
			file, body = name+".bat", "@exit 0\r\n" // found through PATHEXT
		}
		if err := os.WriteFile(filepath.Join(fake, file), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	prompt := cladaCmd(t, root, "prompt")
	prompt.Env = append(prompt.Env, "PATH="+fake)
	got, err := prompt.Output()
	if err != nil {
		t.Fatalf("clada prompt: %v", err)
	}
	golden := filepath.Join(dir, "prompt.txt")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffText(string(want), string(got)); diff != "" {
		t.Errorf("clada prompt changed; run go test ./cmd/clada -run TestModelReply -update and check that "+
			"testdata/prompt/reply.csl still follows it (-want +got):\n%s", diff)
	}

	// The model's reply, run for real with nobody to ask.
	reply, err := filepath.Abs(filepath.Join(dir, "reply.csl"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := cladaCmd(t, root, "run", "--no-prompt", reply)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if code := exitCodeOf(t, err); code != exitOK {
		t.Errorf("clada run of the reply exited %d, want 0\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	if !regexp.MustCompile(`(?m)^summary: 7 ran: 7 ok`).Match(stdout.Bytes()) {
		t.Errorf("want all 7 blocks to run and succeed:\n%s", &stdout)
	}
	for _, want := range []string{"func Greet(name string) string", "greet/greet_test.go:6:", "hello"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, &stdout)
		}
	}
}
