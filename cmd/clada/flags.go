package main

import "github.com/urfave/cli/v2"

// The flags that several commands share; a flag of one command only is
// in that command's file.

func rootFlag() cli.Flag {
	return &cli.StringFlag{Name: "root", Usage: "project root: every path must stay inside it, and .clada/ lives here",
		DefaultText: "the nearest directory upwards with .clada/, else the git work tree's top, else the working directory"}
}

// sandboxFlag is --sandbox of run, exec and mcp.
func sandboxFlag() cli.Flag {
	return &cli.StringFlag{Name: "sandbox", Usage: "confine commands to the project by the kernel: auto (where the machine can), required (refuse to run unconfined) or off (a person's choice; prints a warning)",
		DefaultText: "auto, or sandbox in .clada/config.toml"}
}

func formatFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: "format", Value: "text", Usage: usage}
}

// trustProjectFlag is --trust-project of run and check.
func trustProjectFlag() cli.Flag {
	return &cli.BoolFlag{Name: "trust-project", Usage: "use the project's own .clada files without `clada trust` (in CI: the workflow's author vouches for the repository)"}
}

// osFlag is --os of check and run --dry-run: decide for another system.
func osFlag() cli.Flag {
	return &cli.StringFlag{Name: "os", Usage: "decide as on this system: darwin, freebsd, linux or windows (its programs' options, and Windows' path rules); only to decide, never to run",
		DefaultText: "the system clada runs on"}
}
