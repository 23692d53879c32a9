package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/suggest"
	"github.com/urfave/cli/v2"
)

// version, when set at build time with -ldflags "-X main.version=…",
// replaces the module version from the build information in --version.
var version = ""

// testOnlyClock, when set, measures the approval timeout; only the test
// binary sets it (see TestMain), to wait out a 10 s timeout in 0.1 s.
var testOnlyClock approve.Clock

// run is main without os.Exit, so tests can call it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 2 && args[len(args)-1] == completeFlag && args[1] == "exec" {
		// exec reads its own arguments (SkipFlagParsing): the words
		// after it are a command, which a completion request must never
		// decide or run.
		return exitOK
	}
	if code, ok := answerHook(args, stdin, stdout, stderr); ok {
		return code
	}
	if o, ok := quickCheck(args); ok {
		return exitStatus(checkAction(o, stdout, stderr), stderr)
	}
	return runApp(args, stdin, stdout, stderr)
}

// runApp runs args with the urfave/cli app.
func runApp(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	if len(args) > 0 {
		// How clada was started, for the commands clada hook writes.
		app.Metadata = map[string]any{"arg0": args[0]}
	}
	return exitStatus(app.Run(args), stderr)
}

// verbs make clada's commands, in the order `clada --help` lists them.
// Each verb's file holds its command: flags, action and help (run.go,
// check.go, exec.go, hook.go, ...). Flags that several verbs share are in
// flags.go. `clada hook AGENT` and the plain forms of `clada check` are
// answered before any of this is built (run: answerHook, quickCheck).
var verbs = []func(stdin io.Reader, stdout, stderr io.Writer) *cli.Command{
	runCommand, checkCommand, mcpCommand, promptCommand, trustCommand, initCommand, configCommand, untrustCommand,
	allowCommand, blockCommand, forgetCommand, listCommand, specsCommand,
	execCommand, hookCommand, sandboxCommand, logCommand, whyCommand, completionCommand,
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:                 "clada",
		Usage:                "a shell-free gateway for the commands a model proposes",
		Version:              buildVersion(),
		Reader:               stdin,
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError:         usageError,
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				typed := c.Args().First()
				if near := suggest.Closest(typed, commandNames(c.App.Commands)); near != "" {
					return withHint(fmt.Errorf("unknown command %q", typed), "did you mean `clada %s`? `clada --help` lists the commands", near)
				}
				return withHint(fmt.Errorf("unknown command %q", typed), "run `clada --help` for the commands")
			}
			return cli.ShowAppHelp(c)
		},
	}
	for _, verb := range verbs {
		c := verb(stdin, stdout, stderr)
		c.OnUsageError = usageError
		c.HideHelpCommand = true
		for _, sub := range c.Subcommands {
			sub.OnUsageError = usageError
		}
		app.Commands = append(app.Commands, c)
	}
	return app
}

// noArgs refuses arguments to a command that takes none, with hint.
func noArgs(c *cli.Context, hint string) error {
	if c.Args().Len() == 0 {
		return nil
	}
	return withHint(fmt.Errorf("clada %s takes no arguments, got %q", c.Command.Name, c.Args().First()), "%s", hint)
}

// examples formats a command's examples for its help.
func examples(lines ...string) string {
	return "\n\nExamples:\n   " + strings.Join(lines, "\n   ")
}

// usageError replaces urfave/cli's answer to a flag it cannot parse (the
// whole help on stdout, which a model may be reading) with one error and
// a hint.
func usageError(c *cli.Context, err error, _ bool) error {
	name := c.App.Name
	var flags []cli.Flag
	if c.Command != nil && c.Command.Name != "" {
		name, flags = c.Command.HelpName, c.Command.Flags
	} else {
		flags = c.App.Flags
	}
	if typed, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: "); ok {
		var names []string
		for _, f := range flags {
			names = append(names, f.Names()...)
		}
		if near := suggest.Closest(typed, names); near != "" {
			return withHint(err, "did you mean --%s? see `%s --help`", near, name)
		}
	}
	return withHint(err, "see `%s --help`", name)
}

// commandNames are the names of the commands that --help shows.
func commandNames(cmds []*cli.Command) []string {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return names
}
