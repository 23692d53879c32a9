//go:build !windows

package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/specs"
)

// TestVersionQuery: a lone --version or --help of a program without a
// spec is allowed only when PATH finds a program outside the project that
// is no launcher (version.go); everything around it stays asked.
func TestVersionQuery(t *testing.T) {
	root := t.TempDir()
	bin := t.TempDir()
	shims := filepath.Join(t.TempDir(), "shims")
	if err := os.Mkdir(shims, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(bin, "node"), "\x7fELF")
	write(filepath.Join(bin, "kubectl"), "#!/bin/sh\n")
	write(filepath.Join(bin, "jest"), "#!/usr/bin/env node\nrequire('import-local')\n")
	write(filepath.Join(bin, "turbo"), "#!/usr/local/bin/bun\n")
	write(filepath.Join(bin, "yarn"), "#!/bin/sh\n")
	write(filepath.Join(bin, "rustc"), "\x7fELF")
	write(filepath.Join(bin, "yes"), "\x7fELF")
	write(filepath.Join(bin, "rustup"), "\x7fELF")
	if err := os.Symlink(filepath.Join(bin, "rustup"), filepath.Join(bin, "tool-proxy")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(shims, "ruby"), "#!/usr/bin/env bash\nexec pyenv exec ruby \"$@\"\n")
	write(filepath.Join(root, ".venv", "bin", "black2"), "#!/bin/sh\n")
	write(filepath.Join(root, "tool"), "#!/bin/sh\n")
	t.Setenv("PATH", strings.Join([]string{bin, shims, filepath.Join(root, ".venv", "bin")}, string(os.PathListSeparator)))
	cmds, err := approve.LoadCommands(root, ParsePattern)
	if err != nil {
		t.Fatal(err)
	}
	set, err := specs.Default()
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Options{Root: root, Specs: set, Commands: cmds, Compose: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd, want string
		rule      rules.Rule
	}{
		{"node --version", "allow", rules.VersionQuery},
		{"node --help", "allow", rules.VersionQuery},
		{"kubectl --help", "allow", rules.VersionQuery},
		{filepath.Join(bin, "node") + " --version", "allow", rules.VersionQuery},
		{"node --version | head -1", "allow", rules.Composition},
		// Only the two words, alone.
		{"node -v", "ask", rules.NotInSpecs},
		{"node -V", "ask", rules.NotInSpecs},
		{"node -h", "ask", rules.NotInSpecs},
		{"node -version", "ask", "wrapper"}, // node reads it as -v -e rsion
		{"node version", "ask", rules.NotInSpecs},
		{"node --version x.js", "ask", rules.NotInSpecs},
		{"node --help --version", "ask", rules.NotInSpecs},
		{"node --versio", "ask", rules.NotInSpecs},
		// Launchers, shims and node scripts.
		{"jest --version", "ask", rules.NotInSpecs},
		{"turbo --version", "ask", rules.NotInSpecs},
		{"yarn --version", "ask", rules.NotInSpecs},
		{"rustc --version", "ask", rules.NotInSpecs},
		{"yes --help", "ask", rules.NotInSpecs}, // BSD yes prints --help forever
		{"tool-proxy --version", "ask", rules.NotInSpecs},
		{"ruby --version", "ask", rules.NotInSpecs},
		// Inside the project, or not installed.
		{"black2 --version", "ask", rules.ProjectProgram},
		{"./tool --version", "ask", rules.NotInSpecs},
		{"nosuchprogram --version", "ask", rules.NotInSpecs},
		// Hard blocks and wrappers come first.
		{"sudo --version", "deny", "hard-block"},
	} {
		res := g.Check(tc.cmd, "")
		if string(res.Decision) != tc.want || res.Rule != tc.rule {
			t.Errorf("`%s` is %s (rule %s: %s), want %s (rule %s)", tc.cmd, res.Decision, res.Rule, res.Reason, tc.want, tc.rule)
		}
	}
}
