package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGoldenRun runs `clada run --no-prompt` for real on every
// testdata/golden/run/*.csl and compares the text and JSON reports with
// the golden files next to the input (-update rewrites them). Durations
// become N; the root becomes $ROOT. `false` is allowed by a pattern, so a
// TASKS group can fail in the middle; `true` has no spec and is not
// approved without a terminal.
func TestGoldenRun(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "run", "*.csl"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden run inputs: %v", err)
	}
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("HOME", "/no-home")
	durations := regexp.MustCompile(`(\d+) ms|"duration_ms":\d+`)
	// How a command ran depends on the machine's kernel (the sandbox
	// scripts test it); the golden files show where it is reported.
	confinement := regexp.MustCompile(`\b(confined: landlock v\d+|confined: sandbox-exec profile|unconfined: )[^\n"]*`)
	for _, in := range inputs {
		in, err := filepath.Abs(in)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(in), ".csl")
		for _, format := range []string{"text", "json"} {
			t.Run(name+"/"+format, func(t *testing.T) {
				root, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				for path, text := range map[string]string{
					".clada/commands.toml": "allowed = [\"false\"]\n",
					"sub/notes.txt":        "notes in sub\n",
				} {
					if err := os.MkdirAll(filepath.Dir(filepath.Join(root, path)), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(root, path), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				trustRoot(t, root)
				var stdout, stderr bytes.Buffer
				code := runInProcess([]string{"clada", "run", "--no-prompt", "--root", root, "--format", format, in},
					strings.NewReader(""), &stdout, &stderr)
				if code != exitFailed {
					t.Errorf("exit code %d, want %d (stderr: %s)", code, exitFailed, stderr.String())
				}
				got := strings.ReplaceAll(stdout.String(), root, "$ROOT")
				got = strings.ReplaceAll(got, filepath.Dir(in), "$TESTDATA")
				got = durations.ReplaceAllStringFunc(got, func(m string) string {
					if strings.HasPrefix(m, `"`) {
						return `"duration_ms":N`
					}
					return "N ms"
				})
				got = confinement.ReplaceAllString(got, "CONFINEMENT")
				checkGolden(t, strings.TrimSuffix(in, ".csl")+"."+format+".golden", got)
			})
		}
	}
}
