package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// helpDir holds one golden file per help screen: clada.txt for
// `clada --help`, clada_VERB.txt for `clada VERB --help`, and
// clada_VERB_SUB.txt for a subcommand's (an alias has its own), and
// complete_VERB.txt the words `clada [VERB] --generate-bash-completion`
// offers, and the flags it offers after a "-".
var helpDir = filepath.Join("..", "..", "testdata", "help")

// commandPaths are the words that reach every command and subcommand of
// the app, parents before their children, in the app's order.
func commandPaths(prefix []string, cmds []*cli.Command) [][]string {
	var paths [][]string
	for _, c := range cmds {
		p := append(slices.Clone(prefix), c.Name)
		paths = append(paths, p)
		paths = append(paths, commandPaths(p, c.Subcommands)...)
		for _, a := range c.Aliases {
			paths = append(paths, append(slices.Clone(prefix), a))
		}
	}
	return paths
}

// TestHelpGolden: `clada --help` and `clada VERB [SUB] --help` print, for
// every command of the app, what testdata/help holds (-update rewrites it),
// on stdout with nothing on stderr and exit 0; and every golden file is a
// command's, so a verb that disappears fails here too. The help is what
// a person and a model read to use clada: moving code must not change it.
func TestHelpGolden(t *testing.T) {
	t.Parallel()
	var null bytes.Buffer
	paths := append([][]string{nil}, commandPaths(nil, newApp(&null, &null, &null).Commands)...)
	want := map[string]bool{}
	for _, p := range paths {
		name := strings.Join(append([]string{"clada"}, p...), "_") + ".txt"
		want[name] = true
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"clada"}, p...), "--help")
			code := runInProcess(args, strings.NewReader(""), &stdout, &stderr)
			if code != exitOK || stderr.Len() > 0 {
				t.Fatalf("%s: exit %d, stderr %q", strings.Join(args, " "), code, stderr.String())
			}
			got := strings.ReplaceAll(stdout.String(), buildVersion(), "$VERSION")
			if *update {
				if err := os.MkdirAll(helpDir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			checkGolden(t, filepath.Join(helpDir, name), got)
		})
	}
	for _, p := range append([][]string{nil}, commandPaths(nil, newApp(&null, &null, &null).Commands)...) {
		name := strings.Join(append([]string{"complete"}, p...), "_") + ".txt"
		want[name] = true
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// A process of its own: urfave/cli reads the word before
			// the request from os.Args, not from the arguments run gets.
			// The words offered next, then the flags offered after "-".
			var stdout, stderr bytes.Buffer
			for _, last := range [][]string{{completeFlag}, {"-", completeFlag}} {
				fmt.Fprintf(&stdout, "after %q:\n", append(slices.Clone(p), last[:len(last)-1]...))
				cmd := exec.Command(cladaExe(t), append(slices.Clone(p), last...)...)
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil || stderr.Len() > 0 {
					t.Fatalf("clada %s %s: %v, stderr %q", strings.Join(p, " "), strings.Join(last, " "), err, stderr.String())
				}
			}
			checkGolden(t, filepath.Join(helpDir, name), stdout.String())
		})
	}
	files, err := filepath.Glob(filepath.Join(helpDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !want[filepath.Base(f)] {
			if *update {
				os.Remove(f)
				continue
			}
			t.Errorf("%s is the help of no command of the app (a verb was lost or renamed?)", f)
		}
	}
}

// TestUnknownFlagEveryVerb: a flag that no command has gets one error
// line and a hint on stderr, exit 2 and nothing on stdout, for every
// command and subcommand (a model may be reading stdout: urfave/cli's own
// answer printed the whole help there, as `clada hook install --x` and
// `clada hook claude-code --x` did).
func TestUnknownFlagEveryVerb(t *testing.T) {
	t.Parallel()
	var null bytes.Buffer
	for _, p := range commandPaths(nil, newApp(&null, &null, &null).Commands) {
		t.Run(strings.Join(p, "_"), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"clada"}, p...), "--no-such-flag")
			code := runInProcess(args, strings.NewReader(""), &stdout, &stderr)
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			if code != exitUsage || stdout.Len() > 0 || len(lines) != 2 ||
				!strings.HasPrefix(lines[0], "clada: error: ") || !strings.Contains(lines[0], "no-such-flag") || !strings.HasPrefix(lines[1], "clada: hint: ") {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, nothing on stdout, an error naming the flag and a hint",
					strings.Join(args, " "), code, stdout.String(), stderr.String(), exitUsage)
			}
		})
	}
}
