package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clada/clada/internal/decisionlog"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/project"
	"github.com/clada/clada/internal/report"
	"github.com/urfave/cli/v2"
)

// checkCommand is `clada check`: one command decided, nothing run.
func checkCommand(_ io.Reader, stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
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
	}
}

type checkOptions struct {
	root, dir, format string
	os                string // --os
	untrusted         bool
	trustProject      bool // --trust-project
	args              []string
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

func checkAction(o checkOptions, stdout, stderr io.Writer) error {
	format, err := report.ParseFormat(o.format)
	if err != nil || format == report.GitHub {
		return withHint(fmt.Errorf("unknown format %q for check", o.format), "--format text|json")
	}
	var body string
	switch len(o.args) {
	case 0:
		return withHint(errors.New("no command to check"), "clada check -- git status, or clada check 'git status'")
	case 1:
		body = o.args[0]
	default:
		// The words were already split by the caller's shell; quoting
		// them gives the body that parses back to exactly these words.
		body = parser.Quote(o.args)
	}
	p, note, err := openTrusted(o.root, o.untrusted, o.trustProject, false, o.os)
	if err != nil {
		return err
	}
	if note != "" {
		warnf(stderr, "%s", note)
	}
	g, err := p.DecideGateway()
	if err != nil {
		return err
	}
	r := g.Check(body, o.dir)
	newDecisionLogger(p, decisionlog.EntryCheck, stderr).log(r)
	plan := &gateway.Plan{Results: []*gateway.Result{r}}
	rep := report.New(stdout, format, report.Options{DryRun: true})
	rep.Block(r)
	code := project.PlanExit(plan)
	if format == report.JSON {
		rep.Summary(report.Summarize(plan), code)
	}
	return exitCode(code, rep.Err())
}
