package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/clada/clada/internal/gateway"
)

// ClaudeCode answers Claude Code's PreToolUse command hook: the JSON
// payload on in, the answer on out and stderr, and the exit code to
// return.
//
// The contract, as read from Claude Code's own published packages
// (@anthropic-ai/claude-code 2.1.197: the Zod schema of hook output and
// the hook runner in the linux-x64 binary; @anthropic-ai/claude-agent-sdk
// 0.3.331: sdk.d.ts types BaseHookInput, PreToolUseHookInput,
// PreToolUseHookSpecificOutput and the settings type; sdk-tools.d.ts
// BashInput):
//
//   - in: hook_event_name ("PreToolUse"), tool_name ("Bash" for the shell
//     tool), tool_input (for Bash an object with command, plus timeout,
//     description, run_in_background …, which are kept as they are), cwd
//     (the shell's working directory); session_id, transcript_path and
//     permission_mode are not used. The hook also gets
//     CLAUDE_PROJECT_DIR in its environment: the root, when set.
//   - out, exit 0: {"hookSpecificOutput": {"hookEventName": "PreToolUse",
//     "permissionDecision": "allow"|"deny"|"ask",
//     "permissionDecisionReason": "…", "updatedInput": {…}}}. deny's
//     reason is shown to the model, ask's in the person's prompt. Claude
//     Code applies updatedInput on allow and on ask; clada sends it on
//     allow only (see the package documentation).
//   - exit 2 blocks the tool call and shows stderr to the model: clada's
//     answer to a payload it cannot read. Printing nothing with exit 0 is
//     no opinion: the answer for every tool but Bash.
//   - Claude Code 2.1.332, read from its package and driven end to end
//     (e2e/claudecode): the Monitor tool's command comes as tool_name
//     "Monitor" with tool_input {command, description, timeout_ms}
//     under a matcher that names Monitor, and then an allow and
//     updatedInput are honoured (under the matcher "Bash" alone it comes
//     as "Bash", and both are ignored); permission_mode "plan" judges the
//     command it would run for being read-only, after the hook; in
//     claude -p an ask is refused and its reason is the tool result the
//     model gets.
//   - settings: hooks.PreToolUse is a list of {matcher, hooks: [{type:
//     "command", command, timeout (seconds)}]}, in .claude/settings.json
//     of the project or ~/.claude/settings.json; Claude Code reads them
//     as JSONC.
func ClaudeCode(in io.Reader, out, stderr io.Writer, env Env) int {
	var p struct {
		Event     string                     `json:"hook_event_name"`
		ToolName  string                     `json:"tool_name"`
		ToolInput map[string]json.RawMessage `json:"tool_input"`
		Cwd       string                     `json:"cwd"`
		Mode      string                     `json:"permission_mode"`
	}
	data, err := readPayload(in)
	if err == nil {
		err = decodePayload(data, &p)
	}
	if err != nil {
		return claudeBlock(stderr, err)
	}
	if p.Event != "PreToolUse" || (p.ToolName != "Bash" && p.ToolName != "Monitor") {
		return 0 // no opinion: not a shell command
	}
	if _, ok := p.ToolInput["command"]; !ok && p.ToolName == "Monitor" {
		return 0 // a Monitor that watches a WebSocket runs no command
	}
	command, err := stringField(p.ToolInput, "tool_input", "command")
	if err != nil {
		return claudeBlock(stderr, err)
	}
	projectDir := env.getenv("CLAUDE_PROJECT_DIR")
	a := Decide(Request{Command: command, Dir: p.Cwd, Root: projectDir, Agent: "claude-code"})
	o := claudeOutput{Event: "PreToolUse", Decision: string(a.Decision), Reason: a.Reason}
	personAsks := false
	if a.Decision != gateway.Deny {
		// The person's own Claude Code rules, matched against the command
		// as written (claudeperm.go): Claude Code would match them against
		// the rewritten line, where they no longer match.
		if projectDir == "" {
			projectDir = p.Cwd
		}
		rules, err := readClaudeRules(claudeSettingsFiles(env.getenv, projectDir, a.Root))
		if err != nil {
			o.Decision = string(gateway.Deny)
			o.Reason = "clada denied this command: " + err.Error() + ". Do instead: ask the person to fix that settings file"
			return writeClaudeAnswer(out, stderr, o)
		}
		if r, deny, matched := rules.match(command); r != nil && deny {
			o.Decision = string(gateway.Deny)
			o.Reason = fmt.Sprintf("clada denied this command: the person's Claude Code permission rule `%s` (deny, in %s) matches `%s`. "+
				"Do instead: do not run it or a variant of it; if it is needed, tell the person why and let them run it or change the rule", r.text, r.file, matched)
			return writeClaudeAnswer(out, stderr, o)
		} else if r != nil {
			personAsks = true
			o.Decision = string(gateway.Ask)
			o.Reason = fmt.Sprintf("clada asks: the person's Claude Code permission rule `%s` (ask, in %s) matches this command", r.text, r.file)
			if a.Decision == gateway.Ask {
				o.Reason += "; clada also asks: " + why(a.Result)
			}
			o.Reason += claudeNextStep
		}
	}
	if a.Decision == gateway.Ask && !personAsks {
		o.Reason = a.Reason + claudeNextStep
		if a.Result != nil && len(a.Result.Argv) > 0 && a.Result.Composite == nil {
			o.Reason += fmt.Sprintf(" or approve it for good with `%s` in the project", gateway.AllowCommand(a.Result.Argv))
		}
	}
	if a.Decision != gateway.Allow {
		return writeClaudeAnswer(out, stderr, o)
	}
	if p.Mode == "plan" {
		// Plan mode runs only what Claude Code itself deems read-only,
		// and it judges the command it runs: `clada exec …` never looks
		// read-only to it. So the command runs as the model wrote it, in
		// Claude Code's shell, once both agree (docs/agents.md).
		if !personAsks {
			o.Reason = a.Reason + "; in plan mode Claude Code runs it as written, if its own plan mode deems it read-only"
		}
		return writeClaudeAnswer(out, stderr, o)
	}
	a.Timeout = claudeTimeout(p.ToolName, p.ToolInput, env.getenv)
	if line := a.Rewrite(env.Self); line != "" {
		o.UpdatedInput = withCommand(p.ToolInput, line)
		if !personAsks {
			o.Reason += "; it runs through clada exec"
		}
	}
	return writeClaudeAnswer(out, stderr, o)
}

// claudeNextStep follows the reason of an ask: the person reads it in
// Claude Code's prompt; in a headless run (claude -p) nobody is asked,
// the call is refused and the model gets the reason, so it says what
// the model should do.
const claudeNextStep = ". If no one can approve it here (a headless run, claude -p), it is not run: do not retry it; go on without it, and tell the person the command so that they can run it themselves"

// Claude Code's time limits for its tools, in milliseconds (sdk-tools.d.ts
// of @anthropic-ai/claude-code 2.1.332, and its documentation): a Bash
// command in the foreground runs 2 minutes unless the model or
// BASH_DEFAULT_TIMEOUT_MS says otherwise, at most 10 minutes (or
// BASH_MAX_TIMEOUT_MS); in the background 30 minutes by default, at most
// 2 hours; a Monitor 5 minutes by default, at most 30.
const (
	claudeBashDefault       = 120_000
	claudeBashMax           = 600_000
	claudeBackgroundDefault = 1_800_000
	claudeBackgroundMax     = 7_200_000
	claudeMonitorDefault    = 300_000
	claudeMonitorMax        = 1_800_000
)

// claudeTimeout is how long Claude Code lets the tool call run: the
// model's own timeout where it gave one, else Claude Code's default,
// capped as Claude Code caps it. clada exec gets the same limit, so that
// clada's own default (60 s) does not cut a command short that the model
// let run longer, or in the background.
func claudeTimeout(tool string, input map[string]json.RawMessage, getenv func(string) string) time.Duration {
	num := func(key string) int64 {
		var f float64
		if raw, ok := input[key]; ok && json.Unmarshal(raw, &f) == nil && f > 0 && f < 1e12 {
			return int64(f)
		}
		return 0
	}
	envNum := func(key string, def int64) int64 {
		if n, err := strconv.ParseInt(getenv(key), 10, 64); err == nil && n > 0 {
			return n
		}
		return def
	}
	var ms, def, limit int64
	switch {
	case tool == "Monitor":
		ms, def, limit = num("timeout_ms"), claudeMonitorDefault, claudeMonitorMax
	case string(input["run_in_background"]) == "true":
		ms, def, limit = num("timeout"), claudeBackgroundDefault, claudeBackgroundMax
	default:
		ms, def, limit = num("timeout"), envNum("BASH_DEFAULT_TIMEOUT_MS", claudeBashDefault), envNum("BASH_MAX_TIMEOUT_MS", claudeBashMax)
		limit = max(limit, def)
	}
	if ms == 0 {
		ms = def
	}
	return time.Duration(min(ms, limit)) * time.Millisecond
}

func writeClaudeAnswer(out, stderr io.Writer, o claudeOutput) int {
	return writeJSON(out, stderr, struct {
		Out claudeOutput `json:"hookSpecificOutput"`
	}{o})
}

type claudeOutput struct {
	Event        string                     `json:"hookEventName"`
	Decision     string                     `json:"permissionDecision"`
	Reason       string                     `json:"permissionDecisionReason"`
	UpdatedInput map[string]json.RawMessage `json:"updatedInput,omitempty"`
}

// claudeBlock blocks the tool call the way Claude Code reads a hook's
// refusal without JSON: exit 2, the reason on stderr.
func claudeBlock(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "clada denied this command: %v\n", err)
	return 2
}

// decodePayload decodes one JSON object, and nothing after it.
func decodePayload(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", errMalformed, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: more than one JSON value on stdin", errMalformed)
	}
	return nil
}

// stringField returns obj[key] when it is a JSON string; where names obj
// in the error.
func stringField(obj map[string]json.RawMessage, where, key string) (string, error) {
	raw, ok := obj[key]
	if !ok {
		return "", fmt.Errorf("%w: %s has no %q", errMalformed, where, key)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%w: %s.%s is not a string", errMalformed, where, key)
	}
	return s, nil
}

// withCommand returns a copy of input with command set to line.
func withCommand(input map[string]json.RawMessage, line string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(input)+1)
	for k, v := range input {
		out[k] = v
	}
	out["command"], _ = json.Marshal(line) // a string always marshals
	return out
}

// writeJSON writes v and a newline to out; exit 0, or 1 when out fails
// (the agent then treats the hook as failed; the error is on stderr).
func writeJSON(out, stderr io.Writer, v any) int {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the reasons quote `&&` and `<`, for people to read
	err := enc.Encode(v)
	if err == nil {
		_, err = out.Write(b.Bytes())
	}
	if err != nil {
		fmt.Fprintf(stderr, "clada: writing the hook answer: %v\n", err)
		return 1
	}
	return 0
}
