package main

import (
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// forgetCommand is `clada forget PATTERN`: a pattern of clada allow or
// clada block removed (store.go).
func forgetCommand(_ io.Reader, stdout, _ io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "forget",
		Usage:     "remove PATTERN from allowed and blocked",
		ArgsUsage: "PATTERN",
		Description: patternHelp + examples(
			"clada forget 'npm test'     # the pattern as it was added",
			"clada forget 'git push *'"),
		Flags: []cli.Flag{rootFlag()},
		Action: func(c *cli.Context) error {
			return storeAction("forget", c.String("root"), strings.Join(c.Args().Slice(), " "), c.Args().Len(), false, stdout)
		},
	}
}
