//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/gateway"
)

// clada exec's exit code: the command's own when it ran, else the code
// that says what clada did (README "clada exec").
func TestExecExitCodes(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	files := map[string]string{
		"exit3.sh":           "#!/bin/sh\nexit 3\n",
		"badinterp.sh":       "#!/nonexistent/interpreter\n",
		"killself.sh":        "#!/bin/sh\nkill -TERM $$\n",
		".clada/config.toml": "timeout = \"1s\"\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"./exit3.sh", "./badinterp.sh", "./killself.sh", "sleep *"} {
		if _, err := approve.Add(root, approve.ListAllowed, p, gateway.ParsePattern); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		args   []string
		want   int
		stderr string
	}{
		{"allowed, exit 0", []string{"--", "ls"}, 0, ""},
		{"the command's own code", []string{"--", "./exit3.sh"}, 3, ""},
		{"denied", []string{"--", "touch", "/etc/passwd"}, execRefused, "rule path-outside-root"},
		{"needs approval", []string{"--", "git", "push"}, execRefused, "needs approval"},
		{"could not start", []string{"--", "./badinterp.sh"}, execNotFound, "could not start"},
		{"timed out", []string{"--", "sleep", "30"}, execTimedOut, "timed out after 1s"},
		{"killed by a signal", []string{"--", "./killself.sh"}, execSignaled + 15, ""},
		{"usage error", []string{"--nope", "ls"}, exitUsage, "unknown option --nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := cladaCmd(t, root, append([]string{"exec"}, tt.args...)...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			code := exitCodeOf(t, cmd.Run())
			if code != tt.want {
				t.Errorf("clada exec %q exited %d, want %d; stderr:\n%s", tt.args, code, tt.want, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("clada exec %q: stderr %q does not say %q", tt.args, stderr.String(), tt.stderr)
			}
		})
	}
}
