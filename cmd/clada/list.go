package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/project"
	"github.com/urfave/cli/v2"
)

// listCommand is `clada list`: the allowed and blocked patterns of every
// scope.
func listCommand(_ io.Reader, stdout, _ io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "show the allowed and blocked patterns and the file they are in",
		Description: "Prints the path of .clada/commands.toml, then its allowed and blocked patterns." + examples(
			"clada list",
			"clada list --root ../other-project"),
		Flags: []cli.Flag{rootFlag()},
		Action: func(c *cli.Context) error {
			if err := noArgs(c, "run clada list alone"); err != nil {
				return err
			}
			return listAction(c.String("root"), stdout)
		},
	}
}

func listAction(root string, stdout io.Writer) error {
	abs, how, err := project.Locate(root)
	if err != nil {
		return err
	}
	p, err := project.Open(project.Options{Root: abs})
	if err != nil {
		return err
	}
	// Every pattern as written, trusted or not, from the project's file.
	cmds, err := approve.LoadCommands(abs, gateway.ParsePattern)
	if err != nil {
		return withHint(err, "fix the file; clada never rewrites it")
	}
	fmt.Fprintf(stdout, "root: %s\n", project.Where(abs, how))
	fmt.Fprintf(stdout, "file: %s\n", cmds.Path)
	printLists := func(c *approve.Commands, indent string) {
		for _, l := range []struct {
			name string
			ps   []approve.Pattern
		}{{"allowed", c.Allowed}, {"blocked", c.Blocked}} {
			fmt.Fprintf(stdout, "%s%s (%d):\n", indent, l.name, len(l.ps))
			for _, p := range l.ps {
				fmt.Fprintf(stdout, "%s  %s\n", indent, p.Text)
			}
		}
		// The hosts remembered for patterns (always and never answered
		// while a command ran), when there are any.
		if len(c.Network) > 0 {
			fmt.Fprintf(stdout, "%snetwork (%d):\n", indent, len(c.Network))
			for _, r := range c.Network {
				var lists []string
				if len(r.Allow) > 0 {
					lists = append(lists, "may reach "+strings.Join(r.Allow, ", "))
				}
				if len(r.Deny) > 0 {
					lists = append(lists, "never "+strings.Join(r.Deny, ", "))
				}
				fmt.Fprintf(stdout, "%s  %s: %s\n", indent, r.Pattern.Text, strings.Join(lists, "; "))
			}
		}
	}
	printLists(cmds, "")
	untrusted := p.Untrusted()
	if slices.Contains(untrusted, approve.CommandsFile) || slices.Contains(untrusted, approve.LegacyFile) {
		fmt.Fprintf(stdout, "(not trusted: its allowed patterns are not used until clada trust)\n")
	}
	for _, l := range p.Commands.Layers() {
		if len(l.Allowed) == 0 && len(l.Blocked) == 0 && len(l.Network) == 0 {
			continue
		}
		fmt.Fprintf(stdout, "%s: %s\n", l.Scope(), l.Path)
		printLists(l, "  ")
	}
	return nil
}
