// Package hook answers the pre-shell-command hooks of coding agents with
// clada's decision, and installs those hooks into the agents' settings.
//
// Each agent has one file: claude.go (Claude Code's PreToolUse hook),
// gemini.go (Gemini CLI's BeforeTool hook) and cursor.go (Cursor's
// beforeShellExecution hook). They differ only in how they read the
// agent's JSON and write the answer; every one calls [Decide], which
// opens the project as every other way into clada does and takes the
// decision of `clada check` (gateway.Gateway.Check) for the command line
// the agent is about to run in its shell. The doc comment of each agent
// names the fields it relies on and where they were read.
//
// An allowed command is rewritten, where the agent can rewrite it, to
// `clada exec --root R --dir D -- ARGV…` (see [Rewrite]), quoted so that the
// agent's shell hands clada exec exactly the argv that was decided; clada
// exec decides again and runs it with clada's hardened runner. An asked
// command is never rewritten: the person sees, in the agent, the command
// as the model wrote it, and what runs when they approve is that command,
// in the agent's shell (clada exec never runs a command that needs
// approval, so rewriting it would make the approval run nothing). The
// one exception is Claude Code's: a command clada allows that the
// person's own Claude Code ask rule asks about is asked with the
// rewrite, so that what the person approves runs through clada exec
// (claudeperm.go). A
// malformed payload is denied, never allowed, with the agent's convention
// for a block.
//
// install.go and jsonc.go add the hook to an agent's settings file and
// remove it again, editing the file's text in place: comments, order and
// formatting of everything else are kept, and a file that does not parse
// is reported with its line and left alone.
//
// hook never reads os.Args, the process's standard streams or its
// environment: they come in as arguments.
package hook
