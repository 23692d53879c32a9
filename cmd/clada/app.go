package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// run is main without os.Exit, so tests can call it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	err := app.Run(args)
	if err == nil {
		return exitOK
	}
	var code exitError
	if errors.As(err, &code) {
		return int(code)
	}
	printError(stderr, err)
	return exitUsage
}

func rootFlag() cli.Flag {
	return &cli.StringFlag{Name: "root", Usage: "project root: every path must stay inside it, and .clada/ lives here",
		DefaultText: "the nearest directory upwards with .clada/, else the git work tree's top, else the working directory"}
}

func formatFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: "format", Value: "text", Usage: usage}
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:                 "clada",
		Usage:                "a shell-free gateway for the commands a model proposes",
		Version:              version,
		Reader:               stdin,
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		ExitErrHandler:       func(*cli.Context, error) {},
		Commands: []*cli.Command{
			{
				Name:      "run",
				Usage:     "check, ask about and run the RUN blocks of CSL documents",
				ArgsUsage: "[FILE...|-]",
				Description: "Reads CSL documents (stdin when no FILE or -), decides allow / ask / deny for every\n" +
					"RUN block, asks on the terminal about the ones that need approval, runs the approved\n" +
					"ones without a shell and reports to stdout. Any CSL error: nothing runs, exit 2.",
				Flags: []cli.Flag{
					rootFlag(),
					&cli.BoolFlag{Name: "dry-run", Usage: "decide every block and report; run nothing, ask nothing"},
					formatFlag("report format: text, json or github"),
					&cli.BoolFlag{Name: "no-prompt", Usage: "never ask: commands that need approval are not run"},
					&cli.BoolFlag{Name: "trust-all", Usage: "approve every command that would be asked (deny stays deny); prints a warning"},
					&cli.BoolFlag{Name: "untrusted", Usage: "ask even for commands the specs allow"},
					&cli.DurationFlag{Name: "timeout", Usage: "per-command timeout", DefaultText: "60s, or timeout in .clada/config.toml"},
					&cli.StringFlag{Name: "max-output", Usage: "cap on stdout+stderr per command, e.g. 512KiB", DefaultText: "10MB, or max_output in .clada/config.toml"},
					&cli.BoolFlag{Name: "stop-on-error", Usage: "stop at the first refused, declined or failed command anywhere"},
					&cli.BoolFlag{Name: "keep-going", Usage: "outside TASKS groups, go on after a failure", DefaultText: "on unless --stop-on-error"},
				},
				Action: func(c *cli.Context) error {
					return runAction(runOptions{
						root: c.String("root"), files: c.Args().Slice(), dryRun: c.Bool("dry-run"),
						format: c.String("format"), noPrompt: c.Bool("no-prompt"), trustAll: c.Bool("trust-all"),
						untrusted: c.Bool("untrusted"), timeout: c.Duration("timeout"), timeoutSet: c.IsSet("timeout"),
						maxOutput: c.String("max-output"), stopOnError: c.Bool("stop-on-error"), keepGoing: c.Bool("keep-going"),
					}, stdin, stdout, stderr)
				},
			},
			{
				Name:      "check",
				Usage:     "decide one command (allow / ask / deny) without running it",
				ArgsUsage: "-- COMMAND [ARG...]  |  'COMMAND LINE'",
				Description: "With several words after --, they are the argv; with one word, it is parsed as a command\n" +
					"line exactly as a RUN body is. Exit 0 allow, 1 deny, 3 ask, 2 usage error.",
				Flags: []cli.Flag{
					rootFlag(),
					&cli.StringFlag{Name: "dir", Usage: "working directory relative to the root, as a RUN block's dir attribute"},
					formatFlag("report format: text or json"),
					&cli.BoolFlag{Name: "untrusted", Usage: "ask even for commands the specs allow"},
				},
				Action: func(c *cli.Context) error {
					return checkAction(checkOptions{root: c.String("root"), dir: c.String("dir"), format: c.String("format"),
						untrusted: c.Bool("untrusted"), args: c.Args().Slice()}, stdout, stderr)
				},
			},
			{
				Name:  "mcp",
				Usage: "serve clada's run, check, output and kill tools to an agent over MCP (stdio)",
				Description: "An MCP server on stdin/stdout: register it with your agent (README \"MCP\"). Approvals are\n" +
					"asked through the client (elicitation), never on the terminal; commands still running after\n" +
					"background_after become jobs. When the client disconnects, every job is killed.",
				Flags: []cli.Flag{
					rootFlag(),
					&cli.BoolFlag{Name: "trust-all", Usage: "approve every command that would be asked (deny stays deny); prints a warning"},
					&cli.BoolFlag{Name: "untrusted", Usage: "ask even for commands the specs allow"},
				},
				Action: func(c *cli.Context) error {
					return mcpAction(mcpOptions{root: c.String("root"), trustAll: c.Bool("trust-all"), untrusted: c.Bool("untrusted"),
						args: c.Args().Len()}, stdin, stdout, stderr)
				},
			},
			storeCommand("allow", "always run commands matching PATTERN (adds it to allowed in .clada/commands.toml)", stdout),
			storeCommand("block", "never run commands matching PATTERN (adds it to blocked in .clada/commands.toml)", stdout),
			storeCommand("forget", "remove PATTERN from allowed and blocked", stdout),
			{
				Name:  "list",
				Usage: "show the allowed and blocked patterns and the file they are in",
				Flags: []cli.Flag{rootFlag()},
				Action: func(c *cli.Context) error {
					if c.Args().Len() > 0 {
						return withHint(fmt.Errorf("clada list takes no arguments, got %q", c.Args().First()), "run clada list alone")
					}
					return listAction(c.String("root"), stdout)
				},
			},
			{
				Name:      "specs",
				Usage:     "print the effective command specs (defaults plus .clada/specs.toml)",
				ArgsUsage: "[NAME]",
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
			},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return withHint(fmt.Errorf("unknown command %q", c.Args().First()), "run `clada --help` for the commands")
			}
			return cli.ShowAppHelp(c)
		},
	}
}

func storeCommand(name, usage string, stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: "PATTERN",
		Description: "PATTERN is a command line parsed like a RUN body (shell syntax is refused). It matches\n" +
			"commands with the same argv, or, when its last word is *, commands starting with the rest:\n" +
			"clada allow 'npm test'   clada allow 'npm run *'",
		Flags: []cli.Flag{rootFlag()},
		Action: func(c *cli.Context) error {
			return storeAction(name, c.String("root"), strings.Join(c.Args().Slice(), " "), c.Args().Len(), stdout)
		},
	}
}
