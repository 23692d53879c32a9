package main

import (
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// blockCommand is `clada block PATTERN`: the person's standing no, in
// .clada/commands.toml (store.go writes it).
func blockCommand(_ io.Reader, stdout, _ io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "block",
		Usage:     "never run commands matching PATTERN (adds it to blocked in .clada/commands.toml)",
		ArgsUsage: "PATTERN",
		Description: patternHelp + examples(
			"clada block 'git push *'    # git push with any further words",
			"clada block 'npm publish'   # exactly npm publish"),
		Flags: []cli.Flag{rootFlag()},
		Action: func(c *cli.Context) error {
			return storeAction("block", c.String("root"), strings.Join(c.Args().Slice(), " "), c.Args().Len(), false, stdout)
		},
	}
}
