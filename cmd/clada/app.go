package main

import (
	"errors"
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

// exitStatus is clada's exit status after an action returned err,
// printing err when it is one of clada's own failures.
func exitStatus(err error, stderr io.Writer) int {
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

// quickCheck reads the plain forms of clada check's arguments without
// building the urfave/cli app, which took ~0.2 ms of clada check's ~2 ms
// start (bench/README.md), and a hook or script may start clada check for
// every command: each flag at most once, as --name value or --name=value
// (--untrusted alone), then -- and the command's words, or the command as
// the one last word. ok is false for anything else (help, an unknown,
// single-dash or repeated flag, words after the command), which the app
// then reads, the same way or with its error. TestQuickCheck compares the
// two on every form.
func quickCheck(args []string) (o checkOptions, ok bool) {
	if len(args) < 3 || args[1] != "check" {
		return o, false
	}
	o.format = "text"
	seen := map[string]bool{}
	for i := 2; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			o.args = args[i+1:]
			return o, len(o.args) > 0
		case !strings.HasPrefix(a, "-"):
			o.args = args[i:]
			return o, len(o.args) == 1 && a != ""
		case !strings.HasPrefix(a, "--"):
			return o, false // -h, -format: single-dash forms
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		if seen[name] {
			return o, false
		}
		seen[name] = true
		var field *string
		switch name {
		case "untrusted":
			if hasVal {
				return o, false
			}
			o.untrusted = true
			continue
		case "root":
			field = &o.root
		case "dir":
			field = &o.dir
		case "format":
			field = &o.format
		case "os":
			field = &o.os
		default:
			return o, false
		}
		if !hasVal {
			if i+1 >= len(args) {
				return o, false
			}
			i++
			val = args[i]
		}
		*field = val
	}
	return o, false
}

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
		Commands: []*cli.Command{
			{
				Name:      "run",
				Usage:     "check, ask about and run the RUN blocks of CSL documents",
				ArgsUsage: "[FILE...|-]",
				Description: "Reads CSL documents (stdin when no FILE or -), decides allow / ask / deny for every\n" +
					"RUN block, asks on the terminal about the ones that need approval, runs the approved\n" +
					"ones without a shell and reports to stdout. Any CSL error: nothing runs, exit 2.\n" +
					"Flags come before the files." + examples(
					"clada run reply.csl                          # decide, ask, run, report",
					"model-reply | clada run                      # the reply on stdin",
					"clada run --dry-run --format json reply.csl  # decide only; JSON Lines",
					"clada run --dry-run --format github *.csl    # annotations for CI",
					"clada run --timeout 5m --no-prompt reply.csl # run what is allowed, ask nothing",
					"clada run --dry-run --os darwin reply.csl    # decide as on macOS (CI on Linux)"),
				Flags: []cli.Flag{
					rootFlag(),
					&cli.BoolFlag{Name: "dry-run", Usage: "decide every block and report; run nothing, ask nothing"},
					osFlag(),
					formatFlag("report format: text, json or github"),
					&cli.BoolFlag{Name: "no-prompt", Usage: "never ask: commands that need approval are not run"},
					&cli.BoolFlag{Name: "trust-all", Usage: "approve every command that would be asked (deny stays deny); prints a warning"},
					&cli.BoolFlag{Name: "untrusted", Usage: "ask even for commands the specs allow"},
					trustProjectFlag(),
					&cli.StringFlag{Name: "timeout", Usage: "per-command timeout: 30s, 5m, or whole seconds (1s to 24h)", DefaultText: "60s, or timeout in .clada/config.toml"},
					&cli.StringFlag{Name: "max-output", Usage: "cap on stdout+stderr per command, e.g. 512KiB; past it the command is killed", DefaultText: "10MB, or max_output in .clada/config.toml"},
					&cli.StringFlag{Name: "report-budget", Usage: "how much of each command's output the report shows (all of it is saved in .clada/out/): a size, or a size and a line count, e.g. 32KiB,800", DefaultText: "10KiB,256, or report_budget in .clada/config.toml"},
					&cli.BoolFlag{Name: "stop-on-error", Usage: "stop at the first refused, declined or failed command anywhere"},
					&cli.BoolFlag{Name: "keep-going", Usage: "outside TASKS groups, go on after a failure", DefaultText: "on unless --stop-on-error"},
					sandboxFlag(),
				},
				Action: func(c *cli.Context) error {
					o, err := runOptionsFrom(c)
					if err != nil {
						return err
					}
					return runAction(o, stdin, stdout, stderr)
				},
			},
			{
				Name:      "check",
				Usage:     "decide one command (allow / ask / deny) without running it",
				ArgsUsage: "-- COMMAND [ARG...]  |  'COMMAND LINE'",
				Description: "With several words after --, they are the argv; with one word, it is parsed as a command\n" +
					"line exactly as a RUN body is. Exit 0 allow, 1 deny, 3 ask, 2 usage error." + examples(
					"clada check -- git log -n 5           # the words are the argv",
					"clada check 'grep -rn TODO .'         # one word: parsed as a RUN body",
					"clada check --dir sub 'ls -la'        # as <---RUN dir=\"sub\"--->",
					"clada check --format json 'rm -rf x'  # one JSON line and a summary",
					"clada check --os darwin 'ls . -la'    # decide as on macOS"),
				Flags: []cli.Flag{
					rootFlag(),
					&cli.StringFlag{Name: "dir", Usage: "working directory relative to the root, as a RUN block's dir attribute"},
					formatFlag("report format: text or json"),
					&cli.BoolFlag{Name: "untrusted", Usage: "ask even for commands the specs allow"},
					trustProjectFlag(),
					osFlag(),
				},
				Action: func(c *cli.Context) error {
					return checkAction(checkOptions{root: c.String("root"), dir: c.String("dir"), format: c.String("format"),
						untrusted: c.Bool("untrusted"), trustProject: c.Bool("trust-project"), os: c.String("os"), args: c.Args().Slice()}, stdout, stderr)
				},
			},
			{
				Name:  "mcp",
				Usage: "serve clada's run, check, output and kill tools to an agent over MCP (stdio)",
				Description: "An MCP server on stdin/stdout: register it with your agent (docs/mcp.md). Approvals are\n" +
					"asked through the client (elicitation), never on the terminal; commands still running after\n" +
					"background_after become jobs. When the client disconnects, every job is killed." + examples(
					"clada mcp                    # what an agent starts; docs/mcp.md shows how to register it",
					"clada mcp --root ~/src/app   # serve that project, wherever the agent starts it"),
				Flags: []cli.Flag{
					rootFlag(),
					&cli.BoolFlag{Name: "trust-all", Usage: "approve every command that would be asked (deny stays deny); prints a warning"},
					&cli.BoolFlag{Name: "untrusted", Usage: "ask even for commands the specs allow"},
					sandboxFlag(),
				},
				Action: func(c *cli.Context) error {
					return mcpAction(mcpOptions{root: c.String("root"), trustAll: c.Bool("trust-all"), untrusted: c.Bool("untrusted"),
						sandbox: c.String("sandbox"), args: c.Args().Len()}, stdin, stdout, stderr)
				},
			},
			{
				Name:  "prompt",
				Usage: "print instructions for a model's system prompt: how to write RUN blocks for this project",
				Description: "Prints, for this project's specs, approvals and limits, how to write RUN blocks and dir,\n" +
					"what clada refuses and what to write instead, and what needs a person. Paste it into the\n" +
					"system prompt of the model whose replies you run with clada run." + examples(
					"clada prompt                 # plain text, under 60 lines",
					"clada prompt --format json   # the same text as one JSON string",
					"clada prompt --untrusted     # when replies run with --untrusted"),
				Flags: []cli.Flag{
					rootFlag(),
					formatFlag("text, or json for one JSON string"),
					&cli.BoolFlag{Name: "untrusted", Usage: "say that every command is asked, as clada run --untrusted does"},
				},
				Action: func(c *cli.Context) error {
					if err := noArgs(c, "clada prompt --format json"); err != nil {
						return err
					}
					return promptAction(promptOptions{root: c.String("root"), format: c.String("format"), untrusted: c.Bool("untrusted")}, stdout)
				},
			},
			{
				Name:  "trust",
				Usage: "trust this project's own .clada files: show what they change, then use them",
				Description: "A project's config.toml, commands.toml and specs.toml loosen nothing until you trust them\n" +
					"(docs/config.md, \"Scopes and trust\"). clada trust shows what each file allows or loosens beyond clada's defaults,\n" +
					"then records their content hashes in your state directory; a later change to a file\n" +
					"(a git pull, a command) makes it untrusted again. What clada writes itself after you answered\n" +
					"stays trusted." + examples(
					"clada trust",
					"clada trust --root ~/src/app"),
				Flags: []cli.Flag{rootFlag()},
				Action: func(c *cli.Context) error {
					if err := noArgs(c, "run clada trust alone, in the project"); err != nil {
						return err
					}
					return trustAction(c.String("root"), stdout)
				},
			},
			{
				Name:  "init",
				Usage: "set up clada in this project: a commented .clada/config.toml and .clada/.gitignore",
				Description: "Writes the files that do not exist yet (an existing file is never replaced), trusts\n" +
					"what it wrote, and prints the next steps." + examples("clada init", "clada init --root ~/src/app"),
				Flags: []cli.Flag{&cli.StringFlag{Name: "root", Usage: "the project's root", DefaultText: "the working directory"}},
				Action: func(c *cli.Context) error {
					if err := noArgs(c, "run clada init alone, at the project's root"); err != nil {
						return err
					}
					return initAction(c.String("root"), stdout)
				},
			},
			{
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
			},
			{
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
			},
			storeCommand("allow", "always run commands matching PATTERN (adds it to allowed in .clada/commands.toml)", stdout,
				"clada allow 'npm test'      # exactly npm test",
				"clada allow 'go test *'     # go test with any further words",
				"clada allow npm run build   # several words are joined into one pattern"),
			storeCommand("block", "never run commands matching PATTERN (adds it to blocked in .clada/commands.toml)", stdout,
				"clada block 'git push *'    # git push with any further words",
				"clada block 'npm publish'   # exactly npm publish"),
			storeCommand("forget", "remove PATTERN from allowed and blocked", stdout,
				"clada forget 'npm test'     # the pattern as it was added",
				"clada forget 'git push *'"),
			{
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
			},
			{
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
			},
		},
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
	app.Commands = append(app.Commands, execCommand(stdout, stderr), hookCommand(stdin, stdout, stderr), sandboxCommand(stdout),
		logCommand(stdout), whyCommand(stdout), completionCommand(stdout))
	for _, c := range app.Commands {
		c.OnUsageError = usageError
		c.HideHelpCommand = true
	}
	return app
}

func storeCommand(name, usage string, stdout io.Writer, example ...string) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: "PATTERN",
		Description: "PATTERN is a command line parsed like a RUN body (shell syntax is refused). It matches\n" +
			"commands with the same argv, or, when its last word is *, commands starting with the rest." +
			examples(example...),
		Flags: storeFlags(name),
		Action: func(c *cli.Context) error {
			return storeAction(name, c.String("root"), strings.Join(c.Args().Slice(), " "), c.Args().Len(), c.Bool("force"), stdout)
		},
	}
}

// storeFlags are the flags of clada allow, block and forget: allow also
// takes --force.
func storeFlags(name string) []cli.Flag {
	if name != "allow" {
		return []cli.Flag{rootFlag()}
	}
	return []cli.Flag{rootFlag(), &cli.BoolFlag{Name: "force",
		Usage: "add a pattern that hands the model any code (bash *, python3 *, env *): only if you mean it"}}
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

// runOptionsFrom copies clada run's flags into runOptions.
// trustProjectFlag is --trust-project of run and check.
func trustProjectFlag() cli.Flag {
	return &cli.BoolFlag{Name: "trust-project", Usage: "use the project's own .clada files without `clada trust` (in CI: the workflow's author vouches for the repository)"}
}

// osFlag is --os of check and run --dry-run: decide for another system.
func osFlag() cli.Flag {
	return &cli.StringFlag{Name: "os", Usage: "decide as on this system: darwin, freebsd, linux or windows (its programs' options, and Windows' path rules); only to decide, never to run",
		DefaultText: "the system clada runs on"}
}

func runOptionsFrom(c *cli.Context) (runOptions, error) {
	o := runOptions{
		root: c.String("root"), files: c.Args().Slice(), dryRun: c.Bool("dry-run"),
		format: c.String("format"), noPrompt: c.Bool("no-prompt"), trustAll: c.Bool("trust-all"),
		untrusted: c.Bool("untrusted"), trustProject: c.Bool("trust-project"), timeoutSet: c.IsSet("timeout"),
		maxOutput: c.String("max-output"), budget: c.String("report-budget"), stopOnError: c.Bool("stop-on-error"), keepGoing: c.Bool("keep-going"),
		os:      c.String("os"),
		sandbox: c.String("sandbox"),
	}
	files, flag, file := runFiles(o.files)
	o.files = files
	if flag != "" {
		return o, withHint(fmt.Errorf("flag %s comes after the file %s, so it would be read as a file name", flag, file),
			"put flags before the files: clada run %s %s (write a file named %s as ./%s)", flag, file, flag, flag)
	}
	if o.timeoutSet {
		d, err := parseTimeout(c.String("timeout"))
		if err != nil {
			return o, err
		}
		o.timeout = d
	}
	return o, nil
}
