//go:build linux

package mcpserver_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestUsage: clada-mcp's usage errors and unreadable .clada/ files stop it
// before it serves (exit 2, the error and a hint on stderr, nothing on
// stdout, which is the MCP channel); an empty stdin is a client that went
// away at once: exit 0. clada mcp hands its flags to clada-mcp
// (testdata/script/mcp_usage.txtar, in cmd/clada, checks that).
func TestUsage(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	bad := newRoot(t)
	if err := os.WriteFile(filepath.Join(bad, ".clada", "config.toml"), []byte("job_timeout = \"48h\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir    string
		env    string // one more NAME=value, or ""
		args   []string
		code   int
		stdout string // regexp; "" means stdout must stay empty
		stderr []string
	}{
		{root, "", []string{"extra"}, 2, "", []string{`^clada: error: clada mcp takes no arguments \(got "extra"\)`, `(?m)^clada: hint: register it with your agent as: clada mcp`}},
		{root, "", []string{"--bogus"}, 2, "", []string{`^clada: error: flag provided but not defined: -bogus`, `(?m)^clada: hint: clada-mcp --help lists the flags`}},
		{root, "", []string{"--trust-all", "--untrusted"}, 2, "", []string{`--trust-all can't be used with --untrusted`, `(?m)^clada: hint: `}},
		{root, "", []string{"--root", "missing"}, 2, "", []string{`^clada: error: project root .*/missing is not a directory`, `(?m)^clada: hint: pass an existing directory with --root`}},
		{bad, "", nil, 2, "", []string{`config\.toml:1: job_timeout: .*out of range`, `(?m)^clada: hint: fix the file`}},
		{root, "", []string{"--sandbox", "sometimes"}, 2, "", []string{`sometimes`}},
		{root, "", nil, 0, "", []string{`(?m)^clada mcp: serving ` + regexp.QuoteMeta(root) + `$`}},
		{root, "", []string{"--sandbox", "off"}, 0, "", []string{`(?m)^clada mcp: serving `}},
		{root, "", []string{"--help"}, 0, `^clada-mcp: clada's MCP server`, nil},
		// A kernel without Landlock (simulated by a switch only tests
		// set): sandbox = required refuses to serve, saying why.
		{root, "CLADA_SANDBOX_TEST_NO_LANDLOCK=1", []string{"--sandbox", "required"}, 2, "",
			[]string{`sandbox = required \(--sandbox\), and this machine cannot confine commands`, `(?m)^clada: hint: .*clada sandbox`}},
	}
	for _, tt := range tests {
		cmd := serverCmd(t, tt.dir, tt.args...)
		if tt.env != "" {
			cmd.Env = append(cmd.Env, tt.env)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &stdout, &stderr
		code := exitCodeOf(t, cmd.Run())
		ok := code == tt.code
		if tt.stdout == "" {
			ok = ok && stdout.Len() == 0
		} else {
			ok = ok && regexp.MustCompile(tt.stdout).MatchString(stdout.String())
		}
		for _, re := range tt.stderr {
			ok = ok && regexp.MustCompile(re).MatchString(stderr.String())
		}
		if !ok {
			t.Errorf("clada-mcp %q: exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", tt.args, code, tt.code, &stdout, &stderr)
		}
	}
}
