package main

import (
	"fmt"
	"io"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/project"
	"github.com/urfave/cli/v2"
)

// untrustCommand is `clada untrust`.
func untrustCommand(_ io.Reader, stdout, _ io.Writer) *cli.Command {
	return &cli.Command{
		Name:        "untrust",
		Usage:       "forget that this project's .clada files are trusted",
		Description: "clada then uses only what the project's files tighten, until clada trust." + examples("clada untrust"),
		Flags:       []cli.Flag{rootFlag()},
		Action: func(c *cli.Context) error {
			if err := noArgs(c, "run clada untrust alone, in the project"); err != nil {
				return err
			}
			return untrustAction(c.String("root"), stdout)
		},
	}
}

// untrustAction is clada untrust.
func untrustAction(root string, stdout io.Writer) error {
	abs, how, err := project.Locate(root)
	if err != nil {
		return err
	}
	if err := approve.ForgetTrust(abs); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "root: %s\nclada: no file of this project is trusted now; clada uses only what they tighten until clada trust\n", project.Where(abs, how))
	return nil
}
