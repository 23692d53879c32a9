package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/clada/clada/internal/decisionlog"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/hook"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/project"
	"github.com/clada/clada/internal/runner"
	"github.com/clada/clada/internal/sandbox"
)

// Exit codes of clada exec besides the command's own (docs/usage.md "clada
// exec"). They follow the shell's conventions, so an agent that reads
// exit codes the way it does for any command understands them.
const (
	execRefused  = 126 // not allowed: denied, or needs approval; nothing ran
	execNotFound = 127 // allowed, but the program could not be started
	execTimedOut = 124 // killed at the timeout, as timeout(1) reports it
	execSignaled = 128 // plus the signal number: killed by a signal, as the shell reports it
)

// execCommand is `clada exec`. Its arguments are read by
// gateway.ParseExec, the same function the gateway uses to judge a
// command that runs clada exec, so the two cannot disagree.
func execCommand(_ io.Reader, stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "exec",
		Usage:     "decide one command and, only when it is allowed, run it with its output passed through",
		ArgsUsage: "[--root DIR] [--dir DIR] [--sandbox MODE] (-- COMMAND [ARG...] | --line 'COMMAND LINE' | --line64 ENCODED)",
		Description: "The decision is clada check's. An allowed command runs as clada run runs it (absolute\n" +
			"program, git hardening, stdin closed, timeout and output cap from .clada/config.toml), and\n" +
			"its stdout, stderr and exit code are passed through unchanged, with no report. --line runs a\n" +
			"command line, which may be a composition (pipelines, &&, ||, cd, redirections): each part is\n" +
			"decided and clada runs the whole itself, without a shell (--line64 takes it base64url-encoded\n" +
			"behind an L, the form clada hook writes so that no shell can change it). Anything\n" +
			"else exits 126 with the reason on stderr: clada exec never asks. This is what clada hook\n" +
			"rewrites an allowed command to. Exit codes besides the command's own: 126 refused, 127 the\n" +
			"program could not start, 124 timed out, 128+N killed by signal N, 2 usage error." + examples(
			"clada exec -- git status",
			"clada exec --dir sub -- ls -la",
			"clada exec --line 'go test ./... 2>&1 | tail -30'",
			"clada exec --root /src/app --dir /src/app/sub -- grep -rn TODO ."),
		// The options are gateway.ParseExec's; these are for --help.
		SkipFlagParsing: true,
		Flags: []cli.Flag{
			rootFlag(),
			&cli.StringFlag{Name: "dir", Usage: "working directory, relative to where you stand inside the root, or absolute"},
			sandboxFlag(),
			&cli.StringFlag{Name: "agent", Usage: "the agent (claude-code, gemini) whose scratch output the command may read, as its hook allowed"},
			&cli.StringFlag{Name: "timeout", Usage: "the agent's own time limit for the command (120s, 10m), in place of timeout in .clada/config.toml (clada hook passes the one the agent's tool call has)"},
		},
		Action: func(c *cli.Context) error {
			x, err := gateway.ParseExec(c.Args().Slice())
			if err != nil {
				return withHint(err, "clada exec [--root DIR] [--dir DIR] [--sandbox MODE] -- COMMAND [ARG...]")
			}
			if x.Help {
				return cli.ShowSubcommandHelp(c)
			}
			return execAction(x, stdout, stderr)
		},
	}
}

// execAction decides x.Argv as clada check would and runs it only when it
// is allowed, passing its output and exit code through.
func execAction(x gateway.ExecArgs, stdout, stderr io.Writer) error {
	p, err := project.Open(project.Options{Root: x.Root})
	if err != nil {
		return err
	}
	// --agent: the hook allowed a read of the agent's scratch output.
	p.Dirs = append(p.Dirs, hook.ScratchDirs(x.Agent)...)
	g, err := p.Gateway()
	if err != nil {
		return err
	}
	// The words are the argv; quoting them gives the body that parses
	// back to exactly these words, and the parser's checks on each word
	// apply as they do for clada check -- ARGV.
	body := x.Line
	if body == "" {
		body = parser.Quote(x.Argv)
	}
	r := g.Check(body, x.Dir)
	if r.Decision != gateway.Allow {
		refuse(stderr, r)
		r.Status = gateway.StatusDenied
		if r.Decision == gateway.Ask {
			r.Status, r.NotApproved = gateway.StatusNotApproved, "clada exec never asks"
		}
		execLogger(p, x.Agent, stderr).log(r)
		return exitError(execRefused)
	}
	// The command runs: in clada's namespace, started again (main.go).
	if code, ok := inNamespace(p.SandboxMode(x.Sandbox), os.Stdin, stdout, stderr); ok {
		return exitError(code)
	}
	sb, warning, err := p.Sandbox(x.Sandbox)
	if err != nil {
		return err
	}
	defer sb.Close()
	if warning != "" && x.Sandbox != "" {
		// sandbox = off in config.toml is the person's standing
		// choice: an agent's hook runs clada exec for every command,
		// and the warning would follow each one.
		fmt.Fprintln(stderr, warning)
	}
	cfg := p.ExecOptions(project.RunOptions{}, stderr).Runner
	if x.Timeout > 0 {
		cfg.Timeout = x.Timeout
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var res runner.Result
	var conf gateway.Confinement
	if r.Composite != nil {
		res, conf = runCompositeStreaming(ctx, g, r.Composite, cfg, sb, stdout, stderr)
	} else {
		if len(r.Argv) > 0 {
			cfg.Name = r.Argv[0] // as the model wrote it
		}
		res, conf = runStreaming(ctx, r.Verdict, cfg, sb, stdout, stderr)
	}
	r.Status, r.ApprovedBy, r.Run, r.Confinement = gateway.StatusRan, string(r.Rule), &res, conf
	execLogger(p, x.Agent, stderr).log(r)
	code := execExit(res, cfg, stderr)
	// The sandbox is mentioned only when it matters: what the integrity
	// check found, and a failure the confinement may have caused.
	for _, c := range conf.Changes {
		fmt.Fprintf(stderr, "clada: WARNING: %s\n", c)
	}
	if conf.Hint != "" {
		fmt.Fprintf(stderr, "clada: %s (%s)\n", conf.Hint, conf.Text)
	}
	return exitCode(code, nil)
}

// execLogger is clada exec's decision logger: the agent is --agent,
// which the hook's rewrite passes, else what the environment says.
func execLogger(p *project.Project, agent string, stderr io.Writer) *decisionLogger {
	l := newDecisionLogger(p, decisionlog.EntryExec, stderr)
	if agent != "" {
		l.agent = agent
	}
	return l
}

// refuse writes why r does not run, for the model: the rule, the word,
// the reason and what to do instead.
func refuse(w io.Writer, r *gateway.Result) {
	word := ""
	if r.Word != "" {
		word = fmt.Sprintf(" `%s`", r.Word)
	}
	switch r.Decision {
	case gateway.Ask:
		fmt.Fprintf(w, "clada: not run: needs approval (rule %s)%s: %s\n", r.Rule, word, r.Reason)
		fmt.Fprintf(w, "clada: clada exec never asks; run the command itself, so that the person is asked, or the person can run %s\n",
			allowAdvice(r))
	default:
		fmt.Fprintf(w, "clada: denied, not run (rule %s)%s: %s\n", r.Rule, word, r.Reason)
		if r.Advice != "" {
			fmt.Fprintf(w, "clada: do instead: %s\n", r.Advice)
		}
	}
}

// allowAdvice is the `clada allow` command (or commands) with which the
// person consents to the asked r: the command itself, or for a
// composition each part that is asked, since a pattern is matched
// against one command, never a whole pipeline or list.
func allowAdvice(r *gateway.Result) string {
	argvs := [][]string{r.Argv}
	if r.Composite != nil {
		argvs = nil
		for _, p := range r.Composite.Parts {
			if p.Decision == gateway.Ask {
				argvs = append(argvs, p.Argv)
			}
		}
	}
	var cmds []string
	for _, argv := range argvs {
		if len(argv) > 0 {
			cmds = append(cmds, "`"+gateway.AllowCommand(argv)+"`")
		}
	}
	if len(cmds) == 0 {
		return "`clada allow 'COMMAND'` for the command"
	}
	return strings.Join(cmds, " and ")
}

// execExit is the exit code of clada exec for a command that was started
// (or failed to start), saying on stderr what clada itself did to it.
func execExit(res runner.Result, cfg runner.Config, stderr io.Writer) int {
	switch res.Status {
	case runner.StatusExited:
		return res.ExitCode
	case runner.StatusStartFailed:
		fmt.Fprintf(stderr, "clada: could not start: %v\n", res.Err)
		return execNotFound
	case runner.StatusTimedOut:
		fmt.Fprintf(stderr, "clada: timed out after %s: the command and everything it started were killed\n", cfg.Timeout)
		return execTimedOut
	case runner.StatusTruncated:
		fmt.Fprintf(stderr, "clada: output passed max_output (%d bytes): the command was killed\n", cfg.MaxOutput)
		return execSignaled + runner.SignalNumber("SIGKILL")
	case runner.StatusCanceled:
		fmt.Fprintln(stderr, "clada: interrupted: the command and everything it started were killed")
		return exitInterrupted
	}
	if n := runner.SignalNumber(res.Signal); n > 0 {
		return execSignaled + n
	}
	return exitFailed
}

// runStreaming runs an allowed verdict with its output passed to stdout
// and stderr as it comes, in chunks: clada holds no more than the
// runner's buffer of it, however much the command prints.
func runStreaming(ctx context.Context, v gateway.Verdict, cfg runner.Config, sb *sandbox.Sandbox, stdout, stderr io.Writer) (runner.Result, gateway.Confinement) {
	cfg.Stdout, cfg.Stderr = stdout, stderr
	res, conf := gateway.RunVerdict(ctx, v, cfg, sb, nil)
	if res.WriteErr != nil {
		fmt.Fprintf(stderr, "clada: passing the output on: %v\n", res.WriteErr)
	}
	return res, conf
}

// runCompositeStreaming runs an allowed composition with its output passed
// to stdout and stderr as it comes.
func runCompositeStreaming(ctx context.Context, g *gateway.Gateway, c *gateway.Composite, cfg runner.Config, sb *sandbox.Sandbox, stdout, stderr io.Writer) (runner.Result, gateway.Confinement) {
	cfg.Stdout, cfg.Stderr = stdout, stderr
	cr := g.RunComposite(ctx, c, cfg, sb, nil)
	if cr.Result.WriteErr != nil {
		fmt.Fprintf(stderr, "clada: passing the output on: %v\n", cr.Result.WriteErr)
	}
	return cr.Result, cr.Confinement
}
