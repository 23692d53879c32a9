package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clada/clada/internal/hook"
	"github.com/clada/clada/internal/project"
)

// answerHook answers `clada hook AGENT` without building the command
// line interface, when args are exactly that: the agent runs it before
// every shell command, so its start-up counts (bench/README.md), and
// urfave/cli's setup is a fifth of clada's own work there. ok is false for
// anything else (flags, help, install), which goes through the app as
// usual; the answer is the same either way (TestHookFastPath).
func answerHook(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int, ok bool) {
	if len(args) != 3 || args[1] != "hook" {
		return 0, false
	}
	for _, a := range hook.Hooks() {
		if args[2] == a.Name {
			return a.Answer(stdin, stdout, stderr, hookEnv(selfPathOf(args[0]))), true
		}
	}
	return 0, false
}

// hookEnv is what a hook's answer depends on besides its payload: this
// clada, the environment and the agent process that ran the hook.
func hookEnv(self string) hook.Env {
	return hook.Env{Self: self, Getenv: os.Getenv, Agent: func() (hook.AgentProcess, bool) {
		return hook.FindAgentProcess(os.Getppid())
	}}
}

// hookCommand is `clada hook AGENT`, `clada hook install AGENT` and
// `clada hook uninstall AGENT`.
func hookCommand(stdin io.Reader, stdout, stderr io.Writer) *cli.Command {
	var subs []*cli.Command
	for _, a := range hook.Hooks() {
		subs = append(subs, &cli.Command{
			Name:  a.Name,
			Usage: "answer " + a.Title + "'s hook: its JSON on stdin, clada's decision on stdout (run by " + a.Title + ")",
			Action: func(c *cli.Context) error {
				if c.Args().Len() > 0 {
					return withHint(fmt.Errorf("clada hook %s takes no arguments", a.Name), "%s runs it with the hook's JSON on stdin", a.Title)
				}
				return exitCode(a.Answer(stdin, stdout, stderr, hookEnv(selfPath(c))), nil)
			},
		})
	}
	for _, verb := range []string{"install", "uninstall"} {
		subs = append(subs, &cli.Command{
			Name:      verb,
			Usage:     verb + " clada's hook in an agent's settings (" + strings.Join(hook.Agents(), ", ") + ")",
			ArgsUsage: "[--user] [--root DIR] AGENT",
			Description: "The project's settings file by default, yours with --user. Only clada's hook entry is\n" +
				"added or removed; the rest of the file, comments included, stays as it is, and a file clada\n" +
				"cannot read is reported with its line and left alone." + examples(
				"clada hook "+verb+" claude-code          # .claude/settings.json of the project",
				"clada hook "+verb+" --user gemini        # ~/.gemini/settings.json",
				"clada hook "+verb+" cursor               # .cursor/hooks.json of the project"),
			Flags: []cli.Flag{
				rootFlag(),
				&cli.BoolFlag{Name: "user", Usage: "your settings in the home directory, for every project, instead of the project's"},
			},
			Action: func(c *cli.Context) error {
				if c.Args().Len() > 1 && strings.HasPrefix(c.Args().Get(1), "-") {
					return withHint(fmt.Errorf("flag %s comes after the agent", c.Args().Get(1)),
						"put flags first: clada hook %s %s %s", verb, c.Args().Get(1), c.Args().First())
				}
				if c.Args().Len() != 1 {
					return withHint(errors.New("name one agent"), "clada hook %s %s", verb, strings.Join(hook.Agents(), "|"))
				}
				return installAction(verb == "install", c.Args().First(), c.String("root"), c.Bool("user"), selfPath(c), stdout)
			},
		})
	}
	return &cli.Command{
		Name:  "hook",
		Usage: "gate an agent's shell commands: its pre-command hook asks clada, or install that hook",
		Description: "Claude Code, Gemini CLI and Cursor run a hook before each shell command. clada hook AGENT\n" +
			"answers it with clada check's decision: allow, ask (the agent asks you) or deny (the model is\n" +
			"told why). Claude Code and Gemini CLI run an allowed command through clada exec." + examples(
			"clada hook install claude-code   # once, in the project",
			"clada hook uninstall claude-code"),
		Subcommands: subs,
	}
}

// installAction adds or removes clada's hook in an agent's settings.
func installAction(install bool, agent, root string, user bool, self string, stdout io.Writer) (err error) {
	o := hook.InstallOptions{Agent: agent, User: user, Clada: cladaName(self)}
	var dirs []string // the directories whose project settings change
	if !user {
		abs, how, err := project.Locate(root)
		if err != nil {
			return err
		}
		o.Root = abs
		dirs = append(dirs, abs)
		fmt.Fprintf(stdout, "clada: project root %s\n", project.Where(abs, how))
		// An agent that reads the project's settings only where it
		// starts: run from a subdirectory, the install goes there too,
		// where an agent started there reads it.
		if wd, err := os.Getwd(); err == nil && root == "" && hook.ReadsStartDir(agent) && !sameFile(wd, abs) {
			dirs = append(dirs, wd)
		}
	} else {
		home, err := os.UserHomeDir()
		if err != nil {
			return withHint(err, "set HOME, or install the hook in the project without --user")
		}
		o.Home = home
	}
	if _, err := o.Path(); err != nil {
		return withHint(err, "clada hook install %s", strings.Join(hook.Agents(), "|"))
	}
	if agent == "gemini" {
		defer func() {
			if err == nil {
				geminiPolicyAction(install, self, stdout)
			}
		}()
	}
	if user {
		dirs = []string{""}
	}
	for _, d := range dirs {
		if !user {
			o.Root = d
		}
		if err := installOne(install, o, stdout); err != nil {
			return err
		}
	}
	if install {
		fmt.Fprintf(stdout, "clada: %s\n", hook.WhereRead(agent))
	}
	return nil
}

// installOne adds or removes clada's hook in the one settings file o
// names.
func installOne(install bool, o hook.InstallOptions, stdout io.Writer) error {
	if !install {
		path, n, err := hook.Uninstall(o)
		if err != nil {
			return settingsError(err)
		}
		if n == 0 {
			fmt.Fprintf(stdout, "clada: no clada hook in %s\n", path)
			return nil
		}
		fmt.Fprintf(stdout, "clada: removed clada's hook from %s\n", path)
		return nil
	}
	path, changed, err := hook.Install(o)
	if err != nil {
		return settingsError(err)
	}
	if !changed {
		fmt.Fprintf(stdout, "clada: clada's hook is already in %s\n", path)
		return nil
	}
	fmt.Fprintf(stdout, "clada: added `%s` to %s\n", o.HookCommand(), path)
	return nil
}

// geminiPolicyAction writes or removes, with Gemini CLI's hook, the policy
// rule that lets the commands clada rewrote run without a second
// confirmation (internal/hook/gemini_policy.go). Gemini CLI reads it from your
// home only, for a project install too. A failure is reported, not fatal:
// the hook works without it, with Gemini CLI confirming allowed commands
// showing the rewritten line.
func geminiPolicyAction(install bool, self string, stdout io.Writer) {
	home, err := os.UserHomeDir()
	if err != nil {
		fmt.Fprintf(stdout, "clada: no home directory, so no Gemini CLI policy rule: %v\n", err)
		return
	}
	if !install {
		if path, removed, err := hook.UninstallGeminiPolicy(home); err != nil {
			fmt.Fprintf(stdout, "clada: warning: %v\n", err)
		} else if removed {
			fmt.Fprintf(stdout, "clada: removed clada's policy rule %s (Gemini CLI reads it for every project: where clada's hook stays, it confirms allowed commands again until `clada hook install gemini` there)\n", path)
		}
		return
	}
	path, changed, err := hook.InstallGeminiPolicy(home, self)
	switch {
	case err != nil:
		fmt.Fprintf(stdout, "clada: warning: %v; without it, Gemini CLI confirms each command clada allowed, showing the clada exec line\n", err)
	case changed:
		fmt.Fprintf(stdout, "clada: added %s: Gemini CLI runs the commands clada allowed (rewritten to clada exec) without asking again; what clada asks about, it still asks\n", path)
	}
}

func settingsError(err error) error {
	var se *hook.SettingsError
	if errors.As(err, &se) {
		return withHint(err, "fix the file, or add the hook by hand (docs/hooks.md); clada never rewrites a file it cannot read")
	}
	return err
}

// selfPath is the running clada as the agent started it: the path it was
// run by when that is this executable, else the executable's own path.
func selfPath(c *cli.Context) string {
	arg0, _ := c.App.Metadata["arg0"].(string)
	return selfPathOf(arg0)
}

// selfPathOf is selfPath for clada started as arg0.
func selfPathOf(arg0 string) string {
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	}
	cand := arg0
	if cand != "" && !strings.ContainsAny(cand, `/\`) {
		cand, _ = exec.LookPath(cand)
	}
	if cand != "" {
		if abs, err := filepath.Abs(cand); err == nil && sameFile(abs, exe) {
			return abs
		}
	}
	return exe
}

// cladaName is how a hook command names clada: "clada" when that finds
// the running clada on PATH (so a project's settings work for everyone
// who has clada installed), else its absolute path.
func cladaName(self string) string {
	if p, err := exec.LookPath("clada"); err == nil && sameFile(p, self) {
		return "clada"
	}
	return self
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
