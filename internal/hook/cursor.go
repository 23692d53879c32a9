package hook

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/clada/clada/internal/gateway"
)

// Cursor answers Cursor's beforeShellExecution hook: the JSON payload on
// in, the answer on out, and the exit code to return.
//
// Cursor publishes no package with the hook's types; the contract is read
// from its documentation (cursor.com/docs/agent/hooks, "Hooks"):
//
//   - in: hook_event_name ("beforeShellExecution"), command (the command
//     line), cwd (where it runs), workspace_roots (the open folders);
//     conversation_id and generation_id are not used.
//   - out, exit 0: {"permission": "allow"|"deny"|"ask", "user_message":
//     "…", "agent_message": "…"}; user_message is shown to the person,
//     agent_message to the model. Cursor's first releases documented the
//     messages as userMessage and agentMessage; clada writes both
//     spellings.
//   - exit 2 blocks the command (the same as "deny"): clada's answer to a
//     payload it cannot read, with a deny on stdout as well.
//   - Cursor cannot rewrite the command: it runs what the model wrote, in
//     its own shell. So clada allows only a command whose run as written
//     is what clada would run; git, which clada runs with hardening
//     arguments and variables, is asked instead, and the model is told
//     that `clada exec -- …` runs it hardened without asking.
//   - settings: hooks.beforeShellExecution is a list of {command} in
//     hooks.json ({"version": 1, "hooks": {…}}): .cursor/hooks.json of
//     the project or ~/.cursor/hooks.json.
//
// The root is the workspace root that holds cwd, else the one clada
// finds from cwd.
func Cursor(in io.Reader, out, stderr io.Writer, env Env) int {
	var p struct {
		Event string   `json:"hook_event_name"`
		Cmd   *string  `json:"command"`
		Cwd   string   `json:"cwd"`
		Roots []string `json:"workspace_roots"`
	}
	data, err := readPayload(in)
	if err == nil {
		err = decodePayload(data, &p)
	}
	if err == nil && p.Event == "beforeShellExecution" && p.Cmd == nil {
		err = fmt.Errorf("%w: no \"command\"", errMalformed)
	}
	if err != nil {
		fmt.Fprintf(stderr, "clada denied this command: %v\n", err)
		msg := "clada denied this command: " + err.Error()
		writeJSON(out, stderr, cursorOutput{Permission: "deny", UserMessage: msg, AgentMessage: msg,
			UserMessageOld: msg, AgentMessageOld: msg})
		return 2
	}
	if p.Event != "beforeShellExecution" {
		return 0
	}
	a := Decide(Request{Command: *p.Cmd, Dir: p.Cwd, Root: workspaceRoot(p.Roots, p.Cwd), Agent: "cursor"})
	user, agent := a.Reason, a.Reason
	if a.Decision == gateway.Allow && !a.asWritten() {
		exec := a.Rewrite("clada")
		a.Decision = gateway.Ask
		user = fmt.Sprintf("clada asks: it allows this command (rule %s) only run its own way, with hardening options or variables, and Cursor runs commands as written", a.Result.Rule)
		if _, plain := plainText(a.Result.Command); !plain && a.Result.Composite == nil {
			user = fmt.Sprintf("clada asks: it allows this command (rule %s) only when clada runs it, since not every shell reads its text the same way (quotes, a leading =, !, ~, commas), and Cursor runs commands as written", a.Result.Rule)
		}
		if a.Result.Composite != nil {
			user = fmt.Sprintf("clada asks: it allows this command line (rule %s) only when clada runs it itself, without a shell, and Cursor runs commands in its shell", a.Result.Rule)
		}
		agent = user + ". To run it without asking, run instead: " + exec
	}
	return writeJSON(out, stderr, cursorOutput{Permission: string(a.Decision), UserMessage: user, AgentMessage: agent,
		UserMessageOld: user, AgentMessageOld: agent})
}

type cursorOutput struct {
	Permission      string `json:"permission"`
	UserMessage     string `json:"user_message"`
	AgentMessage    string `json:"agent_message"`
	UserMessageOld  string `json:"userMessage"`
	AgentMessageOld string `json:"agentMessage"`
}

// workspaceRoot is the workspace root that holds dir, "" when none does.
func workspaceRoot(roots []string, dir string) string {
	for _, r := range roots {
		if !filepath.IsAbs(r) {
			continue
		}
		rel, err := filepath.Rel(r, dir)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return r
		}
	}
	return ""
}
