//go:build linux

package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/runner"
)

// TestComposeDifferential runs every composition of
// testdata/compose/cases.txt twice, each time in a fresh copy of the
// fixture (testdata/compose/fixture.sh): once by clada (decided by the
// gate, run by RunComposite without a shell) and once by `bash -c`. The
// stdout, stderr, exit status and the files left behind must be the
// same. bash's own messages say `bash: line N:` where clada's say
// `clada:`; that prefix is the one difference allowed.
func TestComposeDifferential(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here to compare with")
	}
	data, err := os.ReadFile(filepath.Join("testdata", "compose", "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, rec := range strings.Split(string(data), "\n#---\n") {
		if rec = strings.Trim(rec, "\n"); rec != "" {
			cases = append(cases, rec)
		}
	}
	if len(cases) < 300 {
		t.Fatalf("%d cases; the differential test needs at least 300", len(cases))
	}
	script, err := filepath.Abs(filepath.Join("testdata", "compose", "fixture.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// The fixture is built once and copied for every run.
	fixture := t.TempDir()
	if out, err := exec.Command(bash, script, fixture).CombinedOutput(); err != nil {
		t.Fatalf("fixture: %v\n%s", err, out)
	}
	// Both sides sort globs and text in the C locale.
	for _, kv := range []string{"LC_ALL=C", "LANG=C"} {
		k, v, _ := strings.Cut(kv, "=")
		old, had := os.LookupEnv(k)
		os.Setenv(k, v)
		if had {
			defer os.Setenv(k, old)
		} else {
			defer os.Unsetenv(k)
		}
	}
	t.Run("cases", func(t *testing.T) {
		for i, body := range cases {
			t.Run(fmt.Sprint(i+1), func(t *testing.T) {
				t.Parallel()
				want := runBash(t, bash, fixture, body)
				got := runClada(t, fixture, body)
				if got != want {
					t.Errorf("case %d differs from bash:\n%s\n--- bash:\n%s\n--- clada:\n%s", i+1, body, want, got)
				}
			})
		}
	})
}

// outcome is what a run left: its streams, status and files.
func outcome(dir string, stdout, stderr []byte, code int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "exit %d\nstdout:\n%s\nstderr:\n%s\nfiles:\n", code, stdout, bashPrefix.ReplaceAll(stderr, []byte("clada: ")))
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			files = append(files, rel+"/")
			return nil
		}
		data, _ := os.ReadFile(p)
		files = append(files, fmt.Sprintf("%s %x", rel, sha256.Sum256(data)))
		return nil
	})
	slices.Sort(files)
	b.WriteString(strings.Join(files, "\n"))
	return b.String()
}

var bashPrefix = regexp.MustCompile(`(?m)^(\S*/)?bash: line \d+: `)

func newFixture(t *testing.T, fixture string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "p")
	if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runBash(t *testing.T, bash, fixture, body string) string {
	dir := newFixture(t, fixture)
	cmd := exec.Command(bash, "-c", body)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return outcome(dir, stdout.Bytes(), stderr.Bytes(), code)
}

func runClada(t *testing.T, fixture, body string) string {
	dir := newFixture(t, fixture)
	s, err := parser.New().Script(body)
	if err != nil {
		t.Fatalf("clada refuses the composition: %v", err)
	}
	g, err := New(Options{Root: dir, Compose: true})
	if err != nil {
		t.Fatal(err)
	}
	c := g.DecideScript(s, "")
	if c.Decision == Deny {
		t.Fatalf("clada denies the composition (rule %s): %s", c.Rule, c.Reason)
	}
	var stdout, stderr bytes.Buffer
	run := g.RunComposite(context.Background(), c, runner.Config{Stdout: &stdout, Stderr: &stderr}, nil, nil)
	if run.Result.Status != runner.StatusExited {
		t.Fatalf("clada: %v (%v)", run.Result.Status, run.Result.Err)
	}
	return outcome(dir, stdout.Bytes(), stderr.Bytes(), run.Result.ExitCode)
}
