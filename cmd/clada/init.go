package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/clada/clada/internal/approve"
	"github.com/urfave/cli/v2"
)

// initCommand is `clada init`: .clada/config.toml and .clada/.gitignore
// written where they are missing.
func initCommand(_ io.Reader, stdout, _ io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "set up clada in this project: a commented .clada/config.toml and .clada/.gitignore",
		Description: "Writes the files that do not exist yet (an existing file is never replaced), trusts\n" +
			"what it wrote, and prints the next steps." + examples("clada init", "clada init --root ~/src/app"),
		Flags: []cli.Flag{&cli.StringFlag{Name: "root", Usage: "the project's root", DefaultText: "the working directory"}},
		Action: func(c *cli.Context) error {
			if err := noArgs(c, "run clada init alone, at the project's root"); err != nil {
				return err
			}
			return initAction(c.String("root"), stdout)
		},
	}
}

// initConfig is the commented config.toml clada init writes: every key at
// its default, commented out, so the file changes nothing until the
// person edits it.
const initConfig = `# clada's settings for this project (docs/config.md). Every line is
# commented out: clada's defaults apply until you change one. A change made
# by anything but clada needs ` + "`clada trust`" + ` again before it loosens anything.
#
# timeout = "60s"          # per command, 1s to 24h
# max_output = "10MB"      # stdout+stderr per command; past it the command is killed
# approval_timeout = "60s" # how long a question waits for an answer
# untrusted = false        # true: ask even for commands the specs allow
# hard_blocks = true       # the built-in hard blocks (sudo, rm -rf /, ...)
# sandbox = "auto"         # auto, required or off
# compose = true           # true: RUN blocks may be compositions too; false: nowhere
# secrets = []             # file name patterns whose reading is asked, besides the built-in ones
`

// initGitignore is .clada/.gitignore: what must not be committed.
const initGitignore = `# clada: what must not be committed.
out/
*.lock
# your personal settings and patterns, beside the project's
*.local.toml
`

// initAction is clada init: it writes a commented .clada/config.toml and
// .clada/.gitignore where they do not exist (an existing file is never
// replaced), trusts what it wrote, and prints the next steps.
func initAction(root string, stdout io.Writer) error {
	abs := root
	if abs == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		abs = wd
	}
	abs, err := filepath.Abs(abs)
	if err != nil {
		return err
	}
	if err := approve.EnsureDir(abs); err != nil {
		return err
	}
	dot := filepath.Join(abs, approve.DirName)
	hashes := map[string]string{}
	for _, f := range []struct{ name, text string }{{approve.ConfigFile, initConfig}, {".gitignore", initGitignore}} {
		path := filepath.Join(dot, f.name)
		w, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			fmt.Fprintf(stdout, "clada: %s exists; left as it is\n", path)
			continue
		}
		if err != nil {
			return err
		}
		_, err = w.WriteString(f.text)
		if err = errors.Join(err, w.Close()); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		fmt.Fprintf(stdout, "clada: wrote %s\n", path)
		if f.name == approve.ConfigFile {
			hashes[f.name] = approve.Hash([]byte(f.text))
		}
	}
	if len(hashes) > 0 {
		if err := approve.RecordTrust(abs, hashes, false); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, `next steps:
  clada check 'go test ./...'   # what clada decides for a command, and why
  clada allow 'go test *'       # let a command run without asking (clada trust shows what a cloned project allows)
  clada hook install claude-code  # or gemini, cursor; or register clada mcp with your agent
  commit .clada/config.toml and .clada/.gitignore; your own settings go in .clada/config.local.toml
`)
	return nil
}
