package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoOutsideDocs: the repository must stand on its own. No file may
// point to design notes that a clone does not have; what users and
// contributors need is in README.md, docs/ and the doc comments.
func TestNoOutsideDocs(t *testing.T) {
	t.Parallel()
	// Spelled in pieces, so this file does not match itself.
	bad := []string{"../" + "shared", "/work/" + "shared", "DESIGN" + ".md", "STYLE" + ".md", "CSL" + ".md"}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci" && d.Name() != ".github" && d.Name() != ".clada" {
				return filepath.SkipDir
			}
			if d.Name() == "node_modules" {
				return filepath.SkipDir // npm packages (testdata/mcp-ts), not part of the repository
			}
			return nil
		}
		if strings.Contains(path, string(filepath.Separator)+"fuzz"+string(filepath.Separator)) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 1<<20 {
			return err // binaries built in the tree are no documentation
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range bad {
			if i := bytes.Index(data, []byte(s)); i >= 0 {
				line := bytes.Count(data[:i], []byte("\n")) + 1
				t.Errorf("%s:%d refers to %s, which is not in the repository; point to README.md or docs/ instead", path, line, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWhereCIRuns: CONTRIBUTING.md says where CI runs as the workflow
// does: every system of its matrix; and no page of the documentation has
// a sentence that denies one.
func TestWhereCIRuns(t *testing.T) {
	t.Parallel()
	wf, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	contributing, err := os.ReadFile(filepath.Join("..", "..", "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(contributing)), " ")
	systems := map[string]string{"ubuntu-latest": "Linux", "macos-latest": "macOS", "windows-latest": "Windows"}
	var named []string
	for runner, name := range systems {
		if bytes.Contains(wf, []byte(runner)) {
			named = append(named, name)
		}
	}
	if len(named) == 0 {
		t.Fatal("ci.yml names none of ubuntu-latest, macos-latest, windows-latest")
	}
	if !strings.Contains(text, "`.github/workflows/ci.yml` runs it on Linux, macOS and Windows") || len(named) != 3 {
		t.Errorf("CONTRIBUTING.md does not say that ci.yml runs .ci/run on %v", named)
	}
	for _, page := range docPages(t) {
		data, err := os.ReadFile(filepath.Join("..", "..", page))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(data)), " ")
		for _, bad := range []string{"nothing in CI runs on Windows or macOS", "only on macOS CI"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s says %q, but ci.yml runs on %v", page, bad, named)
			}
		}
	}
}
