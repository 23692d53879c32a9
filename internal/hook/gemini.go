package hook

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/parser"
)

// Gemini answers Gemini CLI's BeforeTool command hook: the JSON payload
// on in, the answer on out, and the exit code to return.
//
// The contract, as read from @google/gemini-cli 0.61.0's published bundle
// (bundle/chunk-*.js: HookEventHandler.fireBeforeToolEvent and
// createBaseInput, HookRunner.executeCommandHook and
// convertPlainTextToHookOutput, DefaultHookOutput and
// BeforeToolHookOutput, evaluateBeforeToolHook, the scheduler's
// _processToolCall, ShellTool and getShellDeclaration, the settings
// schema of hooks and hooksConfig):
//
//   - in: hook_event_name ("BeforeTool"), tool_name ("run_shell_command",
//     also known as "ShellTool"), tool_input (command; dir_path, the
//     directory relative to the project, when given), cwd (the project
//     directory); session_id, transcript_path and timestamp are not
//     used. The hook's environment has GEMINI_PROJECT_DIR (the same
//     directory): the root, when set.
//   - out, exit 0: {"decision": "allow"|"deny"|"ask", "reason": "…",
//     "systemMessage": "…", "hookSpecificOutput": {"hookEventName":
//     "BeforeTool", "tool_input": {…}}}. deny blocks the call and shows
//     the model "Tool execution blocked: REASON"; ask makes Gemini CLI
//     ask the person, showing systemMessage, and in headless mode (-p, no
//     terminal, CI) waits for an answer that never comes, so clada denies
//     there instead ([geminiHeadless]); a systemMessage is shown to the
//     person on every decision (clada sends one on deny and ask); an exit
//     other than 0 and 2 is a warning and the call proceeds, so a failed
//     answer exits 2; allow leaves the decision to
//     Gemini CLI's own policy (it may still ask). hookSpecificOutput's
//     tool_input is merged into the call's parameters, on allow and ask;
//     clada sends it on allow only.
//   - Gemini CLI reads stdout as JSON, or stderr when stdout is empty,
//     even on exit 0: so clada writes nothing to stderr unless it blocks.
//     Exit 2 with text on stderr is a deny with that text as the reason:
//     clada's answer to a payload it cannot read. Printing nothing with
//     exit 0 is no opinion.
//   - settings: hooks.BeforeTool is a list of {matcher (a regular
//     expression on the tool name), hooks: [{name, type: "command",
//     command, timeout (milliseconds)}]}, in .gemini/settings.json of the
//     project (used only in trusted folders) or ~/.gemini/settings.json;
//     comments are allowed.
func Gemini(in io.Reader, out, stderr io.Writer, env Env) int {
	var p struct {
		Event     string                     `json:"hook_event_name"`
		ToolName  string                     `json:"tool_name"`
		ToolInput map[string]json.RawMessage `json:"tool_input"`
		Cwd       string                     `json:"cwd"`
	}
	data, err := readPayload(in)
	if err == nil {
		err = decodePayload(data, &p)
	}
	if err != nil {
		return geminiBlock(stderr, err)
	}
	if p.Event != "BeforeTool" || (p.ToolName != "run_shell_command" && p.ToolName != "ShellTool") {
		return 0
	}
	command, err := stringField(p.ToolInput, "tool_input", "command")
	if err != nil {
		return geminiBlock(stderr, err)
	}
	project := env.getenv("GEMINI_PROJECT_DIR")
	if project == "" {
		project = p.Cwd
	}
	dir := project
	if _, ok := p.ToolInput["dir_path"]; ok {
		d, err := stringField(p.ToolInput, "tool_input", "dir_path")
		if err != nil {
			return geminiBlock(stderr, err)
		}
		// Gemini CLI resolves dir_path against the project directory
		// with Node's path.resolve, which cleans "..": so does Join.
		if d != "" {
			if filepath.IsAbs(d) {
				dir = filepath.Clean(d)
			} else {
				dir = filepath.Join(project, d)
			}
		}
	}
	a := Decide(Request{Command: command, Dir: dir, Root: env.getenv("GEMINI_PROJECT_DIR"), Agent: "gemini"})
	if a.Decision == gateway.Ask && geminiHeadless(env) {
		a.Decision, a.Reason = gateway.Deny, headlessReason(a.Result, command)
	}
	o := geminiOutput{Decision: string(a.Decision), Reason: a.Reason}
	if a.Decision != gateway.Allow {
		// Gemini CLI shows a hook's systemMessage to the person: the
		// reason of an ask above its dialog, a denial in the
		// conversation (the model reads the reason).
		o.SystemMessage = a.Reason
	}
	if line := a.Rewrite(env.Self); line != "" {
		o.Specific = &geminiSpecific{Event: "BeforeTool", ToolInput: withCommand(p.ToolInput, line)}
		o.Reason += "; it runs through clada exec"
	}
	if writeJSON(out, stderr, o) != 0 {
		// Gemini CLI reads a hook's exit 1 as a warning and runs the
		// command; exit 2 blocks it (with stderr as the reason).
		return 2
	}
	return 0
}

// headlessReason is the denial of a command clada would ask about, when
// Gemini CLI runs headless (-p, no terminal, CI): it has no person to ask
// and would end the whole run without a word. The model reads why, and
// how the person can allow the command for the next run.
func headlessReason(r *gateway.Result, command string) string {
	s := "clada denied this command"
	if r != nil {
		s += fmt.Sprintf(" (rule %s)", r.Rule)
		if r.Word != "" {
			s += fmt.Sprintf(" `%s`", r.Word)
		}
		s += ": " + strings.TrimSuffix(why(r), ".") + ", so it needs the person's approval,"
	} else {
		s += ": it needs the person's approval,"
	}
	return s + " and Gemini CLI runs headless here (-p, no terminal, or CI), with nobody to ask. Do instead: " +
		"use a command clada's specs allow (see `clada specs`), or tell the person to approve this one before the next run with " +
		"`clada allow " + parser.QuoteWord(command) + "` in the project, or to run Gemini CLI interactively so that it asks them"
}

type geminiOutput struct {
	Decision      string          `json:"decision"`
	Reason        string          `json:"reason"`
	SystemMessage string          `json:"systemMessage,omitempty"`
	Specific      *geminiSpecific `json:"hookSpecificOutput,omitempty"`
}

type geminiSpecific struct {
	Event     string                     `json:"hookEventName"`
	ToolInput map[string]json.RawMessage `json:"tool_input"`
}

// geminiBlock blocks the call as Gemini CLI reads a hook's plain-text
// refusal: exit 2, the reason on stderr and nothing on stdout.
func geminiBlock(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "clada denied this command: %v\n", err)
	return 2
}
