package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/clada/clada/internal/project"
	"github.com/clada/clada/internal/specs"
	"github.com/urfave/cli/v2"
)

// specsCommand is `clada specs [NAME]` and `clada specs --check`.
func specsCommand(_ io.Reader, stdout, _ io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "specs",
		Usage:     "print the effective command specs (defaults plus .clada/specs.toml)",
		ArgsUsage: "[NAME]",
		Description: "Without NAME, lists every command that has a spec, one per line; with NAME, prints\n" +
			"that spec in full (git: clada's built-in git rules). --check checks .clada/specs.toml\n" +
			"(docs/specs.md)." + examples(
			"clada specs           # one line per command",
			"clada specs grep      # grep's spec in full",
			"clada specs git       # git's allowed, asked and denied forms and its hardening",
			"clada specs --check   # .clada/specs.toml parses and its examples hold"),
		Flags: []cli.Flag{
			rootFlag(),
			&cli.BoolFlag{Name: "check", Usage: "check .clada/specs.toml: it parses and its allow/deny examples hold"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 1 {
				return withHint(fmt.Errorf("clada specs takes at most one command name, got %d", c.Args().Len()), "clada specs grep")
			}
			return specsAction(c.String("root"), c.Args().First(), c.Bool("check"), stdout)
		},
	}
}

func specsAction(root, name string, check bool, stdout io.Writer) error {
	abs, _, err := project.Locate(root)
	if err != nil {
		return err
	}
	if check {
		path := filepath.Join(abs, ".clada", "specs.toml")
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stdout, "clada: no %s: only the embedded default specs are in use\n", path)
			return nil
		}
		set, err := specs.LoadFile(path)
		if err != nil {
			return withHint(err, "fix the file; docs/specs.md describes the format")
		}
		r, err := specs.NewResolver(abs)
		if err != nil {
			return err
		}
		if err := set.CheckExamples(r); err != nil {
			return withHint(err, "make each spec's allow/deny examples hold, or change the spec")
		}
		fmt.Fprintf(stdout, "clada: %s: ok (%d commands)\n", path, len(set.Names()))
		return nil
	}
	set, err := specs.Load(abs)
	if err != nil {
		return withHint(err, "fix .clada/specs.toml")
	}
	if name == "" {
		return set.List(stdout)
	}
	if err := set.Print(stdout, name); err != nil {
		return withHint(err, "`clada specs` lists every command")
	}
	return nil
}
