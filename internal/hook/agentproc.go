package hook

import "strings"

// AgentProcess is what a hook can see of the agent process that runs it:
// enough to tell whether a person is there to answer an approval dialog.
type AgentProcess struct {
	Args []string // the agent's command line, program first
	// StdinTTY and StdoutTTY report whether the agent's standard input
	// and output are terminals.
	StdinTTY, StdoutTTY bool
}

// geminiHeadless reports whether Gemini CLI runs without a person to
// answer its approval dialog, as Gemini CLI 0.61.0 decides it
// (packages/core/src/utils/headless.ts isHeadlessMode and the cli's
// config: interactive = --prompt-interactive || --acp ||
// --experimental-acp || !isHeadlessMode(...)): CI or GITHUB_ACTIONS set
// to "true" (unless GEMINI_CLI_INTEGRATION_TEST is "true"), a standard
// input or output that is not a terminal, or a -p/--prompt on its command
// line. The environment is the hook's, which Gemini CLI passes on from
// its own; the process is read where the platform shows it (Linux: /proc).
//
// What clada cannot see it takes as interactive: a prompt given as a
// positional argument (`gemini "fix the tests"` in a terminal) and, on
// systems other than Linux, a terminal-less run without CI set. The
// person can make that explicit with CLADA_HEADLESS=1 in the environment
// Gemini CLI runs in.
func geminiHeadless(env Env) bool {
	if env.getenv("CLADA_HEADLESS") == "1" {
		return true
	}
	if env.getenv("GEMINI_CLI_INTEGRATION_TEST") != "true" &&
		(env.getenv("CI") == "true" || env.getenv("GITHUB_ACTIONS") == "true") {
		if p, ok := env.agent(); !ok || !geminiForcedInteractive(p.Args) {
			return true
		}
	}
	p, ok := env.agent()
	if !ok || geminiForcedInteractive(p.Args) {
		return false
	}
	if !p.StdinTTY || !p.StdoutTTY {
		return true
	}
	for _, a := range p.Args[min(1, len(p.Args)):] {
		if a == "--" {
			break
		}
		if a == "-p" || a == "--prompt" || strings.HasPrefix(a, "--prompt=") || strings.HasPrefix(a, "-p=") {
			return true
		}
	}
	return false
}

// geminiForcedInteractive reports whether Gemini CLI's command line makes
// it interactive whatever its terminal: --prompt-interactive (-i) and the
// Agent Client Protocol modes, whose client asks the person.
func geminiForcedInteractive(args []string) bool {
	for _, a := range args[min(1, len(args)):] {
		if a == "--" {
			break
		}
		switch {
		case a == "-i", a == "--prompt-interactive", strings.HasPrefix(a, "--prompt-interactive="), strings.HasPrefix(a, "-i="),
			a == "--acp", a == "--experimental-acp":
			return true
		}
	}
	return false
}
