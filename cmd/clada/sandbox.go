package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clada/clada/internal/sandbox"
)

// sandboxCommand is `clada sandbox` (also `clada doctor`): what this
// machine offers for confining commands, and why.
func sandboxCommand(_ io.Reader, stdout, _ io.Writer) *cli.Command {
	return &cli.Command{
		Name:    "sandbox",
		Aliases: []string{"doctor"},
		Usage:   "say what this machine offers for confining commands (Landlock, seccomp, namespaces, sandbox-exec) and why",
		Description: "Prints one fact per line: the kernel's Landlock ABI and what it restricts, the seccomp\n" +
			"filter, whether user namespaces let .git and .clada be read-only mounts, and how commands\n" +
			"run in this project's sandbox mode (--sandbox, else sandbox in .clada/config.toml)." + examples(
			"clada sandbox",
			"clada sandbox --sandbox required   # would commands be refused here?"),
		Flags: []cli.Flag{rootFlag(), sandboxFlag()},
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return withHint(fmt.Errorf("clada sandbox takes no arguments, got %q", c.Args().First()), "run clada sandbox alone")
			}
			return sandboxAction(c.String("root"), c.String("sandbox"), stdout)
		},
	}
}

func sandboxAction(root, mode string, stdout io.Writer) error {
	p, err := openProject(root, false, "")
	if err != nil {
		return err
	}
	if mode == "" {
		mode = p.Config.Sandbox
	}
	m, err := sandbox.ParseMode(mode)
	if err != nil {
		return withHint(err, "give --sandbox auto, required or off")
	}
	sb, err := sandbox.New(sandbox.Options{Mode: m, Root: p.Root})
	if err != nil {
		return err
	}
	defer sb.Close()
	var b strings.Builder
	for _, l := range sb.Diagnose() {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "mode: %s\n", m)
	fmt.Fprintf(&b, "project: %s\n", sb.Root())
	b.WriteString("a confined command may: read every file except the credential stores of the home directory (" +
		strings.Join(sandbox.CredentialStores, " ") + "); write only in the project (never in .git/ or .clada/), " +
		"its private TMPDIR, the build caches its spec grants, /dev/null and /dev/shm; make no device nodes; use the network only when its spec grants it\n")
	switch sup := sb.Support(); {
	case m == sandbox.ModeOff || !sup.Confines():
		b.WriteString("network: not filtered (commands run unconfined)\n")
	case sup.FiltersNetwork():
		b.WriteString("network: by host name, through clada's proxy on 127.0.0.1: a command reaches only the hosts granted to it (its registries when its spec grants the network, hosts = [...] in config.toml, the hosts remembered for its pattern); under clada run at a terminal, a connection to another host is asked about while the command runs (docs/rules.md, \"The network\"); network = \"open\" and approved git remotes get the whole network\n")
	default:
		b.WriteString("network: cannot be filtered by host here (Landlock before ABI 4): a command the network is granted to gets all of it, as every report says (network on)\n")
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}
