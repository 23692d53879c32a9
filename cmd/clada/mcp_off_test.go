//go:build clada_no_mcp

package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestMCPOff: a clada built with -tags clada_no_mcp answers clada mcp with
// a usage error that says how it was built, and writes nothing on stdout
// (the MCP channel).
func TestMCPOff(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := runInProcess([]string{"clada", "mcp"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitUsage || stdout.Len() > 0 || !strings.Contains(stderr.String(), "built with -tags clada_no_mcp") ||
		!strings.Contains(stderr.String(), "hint: build clada without that tag") {
		t.Errorf("clada mcp: exit %d, stdout %q, stderr %q", code, &stdout, &stderr)
	}
}
