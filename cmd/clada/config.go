package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/project"
	"github.com/urfave/cli/v2"
)

// configCommand is `clada config`: every setting and where it comes from.
func configCommand(_ io.Reader, stdout, _ io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "show the effective settings and the file each comes from (user, project, personal, managed)",
		Description: "Every config.toml key with its effective value and its origin, as git config\n" +
			"--show-origin does; docs/config.md, \"Scopes and trust\", has the precedence." + examples("clada config"),
		Flags: []cli.Flag{rootFlag()},
		Action: func(c *cli.Context) error {
			if err := noArgs(c, "run clada config alone"); err != nil {
				return err
			}
			return configAction(c.String("root"), stdout)
		},
	}
}

// configAction is clada config: every setting's effective value and the
// file it comes from (as git config --show-origin), with the scopes'
// files and which of them are not trusted.
func configAction(root string, stdout io.Writer) error {
	p, err := project.Open(project.Options{Root: root})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "root: %s\n", project.Where(p.Root, p.Discovered))
	fmt.Fprintf(stdout, "scopes (a later one wins for values; a block in any scope beats an allow in any; managed wins over all):\n")
	dot := filepath.Join(p.Root, approve.DirName)
	user := "(no user configuration directory)"
	if d := approve.UserDir(); d != "" {
		user = d
	}
	for _, s := range [][2]string{{"user", user}, {"project", dot}, {"personal", filepath.Join(dot, "*.local.toml")}, {"managed", approve.ManagedDir()}} {
		fmt.Fprintf(stdout, "  %-8s %s\n", s[0], s[1])
	}
	if note := p.UntrustedNote(); note != "" {
		fmt.Fprintf(stdout, "note: %s\n", note)
	}
	for _, key := range approve.ConfigKeys {
		origin := p.Config.Origins[key]
		if origin == "" {
			origin = "default"
		}
		fmt.Fprintf(stdout, "%s = %s\t# %s\n", key, p.Config.ShowValue(key), origin)
	}
	return nil
}
