package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clada/clada/internal/approve"
)

// answerSchema is the form clada asks the client to show: one answer of
// four, as at the terminal prompt. It is a contract (docs/mcp.md, issue 11);
// keep it byte for byte.
var answerSchema = json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string","enum":["yes","no","always","never"]}},"required":["answer"]}`)

// Reasons for not running a command that needed approval, beyond those
// of package approve. They appear in reports.
const (
	noElicitation approve.NoReason = "the MCP client cannot ask the person (it did not declare elicitation)"
	noDeclined    approve.NoReason = "declined in the MCP client"
	noCancelled   approve.NoReason = "dismissed in the MCP client"
)

// canElicit reports whether the client declared form elicitation.
func canElicit(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	// {} means form (the 2025-06-18 shape); a client that declares only
	// URL elicitation cannot show a form.
	e := caps.Elicitation
	return e.Form != nil || e.URL == nil
}

// elicitMessage is the question as the client shows it: the command, its
// directory and why clada asks, like the terminal prompt.
func elicitMessage(q approve.Question, timeout time.Duration) string {
	dir := q.Dir
	if dir == "" {
		dir = "."
	}
	msg := fmt.Sprintf("clada: run `%s` in %s?\n", q.Command, dir)
	if q.Why != "" {
		msg += "Asked because " + q.Why + ".\n"
	}
	if q.Sandbox != "" {
		msg += "It runs " + q.Sandbox + ".\n"
	}
	return msg + fmt.Sprintf("yes runs it once; always runs it and adds it to allowed in .clada/commands.toml; "+
		"no does not run it; never does not run it and adds it to blocked. No answer within %ds counts as no.",
		int(timeout.Round(time.Second)/time.Second))
}

// elicit asks the person through the client. Anything but an accepted
// answer of yes or always is no: a decline, a dismissal, an error, the
// timeout, or the run being cancelled.
func elicit(ctx context.Context, ss *mcp.ServerSession, q approve.Question, timeout time.Duration) (approve.Answer, approve.NoReason) {
	askCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := ss.Elicit(askCtx, &mcp.ElicitParams{Mode: "form", Message: elicitMessage(q, timeout), RequestedSchema: answerSchema})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return approve.No, approve.NoInterrupted
	case errors.Is(askCtx.Err(), context.DeadlineExceeded):
		return approve.No, approve.NoTimeout
	default:
		return approve.No, approve.NoReason("the MCP client could not ask: " + err.Error())
	}
	switch res.Action {
	case "accept":
		// The SDK has checked the content against answerSchema.
		switch res.Content["answer"] {
		case "yes":
			return approve.Yes, ""
		case "always":
			return approve.Always, ""
		case "never":
			return approve.Never, ""
		case "no":
			return approve.No, approve.NoAnswered
		}
		return approve.No, approve.NoReason(fmt.Sprintf("the MCP client answered %v, not yes, no, always or never", res.Content["answer"]))
	case "decline":
		return approve.No, noDeclined
	case "cancel":
		return approve.No, noCancelled
	}
	return approve.No, approve.NoReason(fmt.Sprintf("the MCP client answered with action %q", res.Action))
}

// answered is a gateway.Asker whose answer is already known: clada mcp
// asks before the command starts, so that background_after counts from
// the start of the command, not from the question.
type answered struct {
	answer approve.Answer
	no     approve.NoReason
}

func (a answered) Ask(context.Context, approve.Question, time.Duration) (approve.Answer, approve.NoReason, error) {
	return a.answer, a.no, nil
}
