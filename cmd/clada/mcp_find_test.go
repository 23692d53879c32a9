package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestFindMCP: clada mcp starts a clada-mcp found on PATH only outside
// the project root and the working directory: one a model wrote into the
// project (a bin/ or node_modules/.bin the agent put on PATH) is never the
// one started, also from a subdirectory, and without any the error says
// how to install it.
func TestFindMCP(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the PATH entries below are Unix executables")
	}
	project := t.TempDir()
	outside := t.TempDir()
	for _, dir := range []string{filepath.Join(project, "bin"), outside} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, mcpProgram), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(project)
	// Neither os.Args[0] (the test binary) nor the executable's directory
	// holds a clada-mcp, so only PATH can give one.
	t.Setenv("PATH", filepath.Join(project, "bin")+string(filepath.ListSeparator)+"bin")
	if p, err := findMCP(project); err == nil {
		t.Fatalf("found %s inside the working directory", p)
	} else if !strings.Contains(err.Error(), "clada-mcp") {
		t.Errorf("error %q does not name clada-mcp", err)
	}
	t.Setenv("PATH", filepath.Join(project, "bin")+string(filepath.ListSeparator)+outside)
	p, err := findMCP(project)
	if err != nil || p != filepath.Join(outside, mcpProgram) {
		t.Errorf("findMCP() = %q, %v; want the one in %s", p, err, outside)
	}
	// From a subdirectory, the project's bin/ is still the project's.
	sub := filepath.Join(project, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	t.Setenv("PATH", filepath.Join(project, "bin")+string(filepath.ListSeparator)+outside)
	if p, err := findMCP(project); err != nil || p != filepath.Join(outside, mcpProgram) {
		t.Errorf("from sub/: findMCP() = %q, %v; want the one in %s, not the project's bin/", p, err, outside)
	}
}
