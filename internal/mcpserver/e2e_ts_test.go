//go:build linux

package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tsClientDir holds client.mjs, the second, independent client of clada
// mcp: the official TypeScript SDK (@modelcontextprotocol/sdk from npm,
// version pinned in package.json and package-lock.json). `npm ci` there
// installs it; .ci/run does.
const tsClientDir = "testdata/mcp-ts"

// TestMCPTypeScriptClient runs the flows of the Go SDK tests in this
// package once more with the TypeScript SDK's client, against this test
// binary as clada-mcp: tools listed; check and run; a denial as isError;
// elicitation accept, decline and always; a background job that
// finishes; kill; disconnect kills the jobs. Without node or the
// installed SDK it is skipped, saying what to install; in CI (CI set) it
// fails instead, since CI must run it.
func TestMCPTypeScriptClient(t *testing.T) {
	t.Parallel()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf(format+" (CI is set: CI must run this test)", args...)
		}
		t.Skipf(format, args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed: the TypeScript SDK client test needs node ≥ 20 and `npm ci --prefix cmd/clada-mcp/mcpserver/%s`", tsClientDir)
	}
	var pkg, installed struct {
		Dependencies map[string]string `json:"dependencies"`
		Version      string            `json:"version"`
	}
	data, err := os.ReadFile(filepath.Join(tsClientDir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	want := pkg.Dependencies["@modelcontextprotocol/sdk"]
	data, err = os.ReadFile(filepath.Join(tsClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	if errors.Is(err, os.ErrNotExist) {
		missing("the TypeScript SDK is not installed: run `npm ci --prefix cmd/clada-mcp/mcpserver/%s`", tsClientDir)
	} else if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &installed); err != nil {
		t.Fatal(err)
	}
	if installed.Version != want {
		t.Fatalf("@modelcontextprotocol/sdk %s is installed, package.json pins %s: run `npm ci --prefix cmd/clada-mcp/mcpserver/%s`", installed.Version, want, tsClientDir)
	}

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// TestMain runs this binary as clada-mcp under that name.
	server := filepath.Join(t.TempDir(), "clada-mcp")
	if err := os.Symlink(exe, server); err != nil {
		t.Fatal(err)
	}
	// ... and as clada-trust, which trusts a root's .clada files.
	trust := filepath.Join(filepath.Dir(server), "clada-trust")
	if err := os.Symlink(exe, trust); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join(tsClientDir, "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, server, t.TempDir(), trust)
	cmd.Dir = tsClientDir
	out, err := cmd.CombinedOutput()
	t.Logf("node client.mjs (@modelcontextprotocol/sdk %s):\n%s", installed.Version, out)
	if err != nil {
		t.Fatalf("the TypeScript client failed: %v", err)
	}
	for _, flow := range []string{"tools listed", "check and run", "deny as isError", "elicitation accept, decline, always",
		"background job finishes", "kill", "disconnect kills jobs"} {
		if !strings.Contains(string(out), "\nok "+flow+"\n") && !strings.HasPrefix(string(out), "ok "+flow+"\n") {
			t.Errorf("flow %q did not pass", flow)
		}
	}
}
