package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	}
	data, err := readPayload(in)
	if err == nil {
		err = decodePayload(data, &p)
	}
	if err != nil {
		return claudeBlock(stderr, err)
	}
	if p.Event != "PreToolUse" || p.ToolName != "Bash" {
		return 0 // no opinion: not a shell command
	}
	command, err := stringField(p.ToolInput, "tool_input", "command")
	if err != nil {
		return claudeBlock(stderr, err)
	}
	a := Decide(Request{Command: command, Dir: p.Cwd, Root: env.getenv("CLAUDE_PROJECT_DIR"), Agent: "claude-code"})
	o := claudeOutput{Event: "PreToolUse", Decision: string(a.Decision), Reason: a.Reason}
	if line := a.Rewrite(env.Self); line != "" {
		o.UpdatedInput = withCommand(p.ToolInput, line)
		o.Reason += "; it runs through clada exec"
	}
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
