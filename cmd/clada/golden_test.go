package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goldenPrograms are the programs the golden inputs name. TestGolden puts
// an executable stub of each in a private PATH, so the reports do not
// depend on what this machine has installed or where.
var goldenPrograms = []string{
	"cat", "cp", "date", "echo", "find", "git", "go", "grep", "head", "ls",
	"mkdir", "rm", "sudo", "touch", "wc",
}

// TestGolden runs `clada run --dry-run` in-process on every
// testdata/golden/*.csl and compares the text and JSON reports with
// NAME.text.golden and NAME.json.golden next to the input. -update rewrites
// them. The project root is a fresh directory, written as $ROOT in the
// reports, and programs resolve to stubs under $BIN.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "*.csl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) < 4 {
		t.Fatalf("found %d golden inputs, want at least 4", len(inputs))
	}
	for i, in := range inputs {
		abs, err := filepath.Abs(in)
		if err != nil {
			t.Fatal(err)
		}
		inputs[i] = abs
	}

	bin := t.TempDir()
	for _, p := range goldenPrograms {
		if err := os.WriteFile(filepath.Join(bin, p), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	t.Setenv("HOME", "/no-home")

	root := goldenRoot(t)
	t.Chdir(root)

	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".csl")
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name+".csl"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"text", "json"} {
			t.Run(name+"/"+format, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				code := runInProcess([]string{"clada", "run", "--dry-run", "--root", root, "--format", format, name + ".csl"},
					strings.NewReader(""), &stdout, &stderr)
				if code == exitUsage && stderr.Len() > 0 {
					t.Fatalf("clada exited %d: %s", code, stderr.String())
				}
				got := stabilize(stdout.String(), root, bin)
				if format == "json" && !strings.Contains(got, `"exit_code":`+string(rune('0'+code))) {
					t.Errorf("exit code %d is not the summary's exit_code:\n%s", code, got)
				}
				checkGolden(t, strings.TrimSuffix(in, ".csl")+"."+format+".golden", got)
			})
		}
	}
}

// checkGolden compares got with the golden file, or rewrites the file
// with -update.
func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/clada -update to create it)", err)
	}
	if diff := diffText(string(want), got); diff != "" {
		t.Errorf("report differs from %s (-want +got):\n%s", golden, diff)
	}
}

// goldenRoot makes the project the golden inputs talk about: .clada/,
// a sub/ directory, a notes file, a build script and a symlink to /etc.
func goldenRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".clada", ".git", "sub", "gateway", "scripts"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range map[string]string{
		"README.md":        "# project\n",
		"notes.txt":        "notes\n",
		".git/config":      "[core]\n",
		"scripts/build.sh": "#!/bin/sh\nexit 0\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc", filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	return root
}

// stabilize replaces what differs between machines and runs: the stub
// directory becomes $BIN, the root $ROOT, and paths in the root's parent
// (../secrets.txt resolves to $PARENT/secrets.txt) start with $PARENT.
func stabilize(s, root, bin string) string {
	s = strings.ReplaceAll(s, bin, "$BIN")
	s = strings.ReplaceAll(s, root, "$ROOT")
	parent := filepath.Dir(root)
	s = regexp.MustCompile(regexp.QuoteMeta(parent)+`(/[^\s"`+"`"+`,]*)?`).ReplaceAllString(s, "$$PARENT$1")
	return s
}
