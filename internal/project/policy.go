package project

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/output"
	"github.com/clada/clada/internal/parser"
)

// Exit codes shared by every front end (docs/usage.md "Exit codes"). cmd/clada
// returns them; clada mcp and clada hook translate them.
const (
	ExitOK          = 0   // every block allowed and, when run, exited 0
	ExitFailed      = 1   // something was denied, not approved, skipped or failed
	ExitUsage       = 2   // usage error, unreadable .clada/ file, or malformed CSL (then nothing runs)
	ExitApproval    = 3   // dry-run and check: nothing denied, but something needs approval
	ExitInterrupted = 130 // Ctrl-C or SIGTERM: the run was stopped (128 + SIGINT)
)

// RunOptions are the person's choices for one run, before they are
// merged with config.toml and the environment. The zero value runs with
// the configuration's limits and asks where a terminal is available.
type RunOptions struct {
	NoPrompt    bool          // never ask (--no-prompt)
	TrustAll    bool          // approve every ask (--trust-all); deny stays deny
	StopOnError bool          // stop at the first failure anywhere
	Timeout     time.Duration // per command; 0 = config.toml's timeout
	MaxOutput   int64         // bytes; 0 = config.toml's max_output
	// ReportBudget is how much of each block's output a report shows;
	// zero = config.toml's report_budget, else output.DefaultBudget.
	ReportBudget approve.Budget
	// Getenv reads the environment (CI); nil is os.Getenv.
	Getenv func(string) string
}

// CheckRunOptions returns the first conflict between options, with a
// hint; nil when they fit together.
func CheckRunOptions(o RunOptions, untrusted bool) error {
	switch {
	case o.TrustAll && o.NoPrompt:
		return hint(errors.New("--trust-all can't be used with --no-prompt"), "choose one: --no-prompt runs nothing that needs approval, --trust-all runs all of it")
	case o.TrustAll && untrusted:
		return hint(errors.New("--trust-all can't be used with --untrusted"), "--untrusted asks about every command; --trust-all approves every ask")
	case o.Timeout < 0:
		return hint(fmt.Errorf("--timeout %s is not positive", o.Timeout), "give a duration such as 30s or 5m")
	case o.MaxOutput != 0 && (o.MaxOutput < approve.MinMaxOutput || o.MaxOutput > approve.MaxMaxOutput):
		return hint(fmt.Errorf("--max-output %d is out of range", o.MaxOutput), "give a size from 1KiB to 1GiB")
	}
	return nil
}

// ExecOptions merges o with config.toml and the environment: flags win
// over the file, and a CI environment (CI set, other than false or 0)
// never asks, since nobody is there to answer even when a terminal is.
// Output is saved under the root's .clada/out/, keeping the report
// budget's bytes at each end of each stream in memory; the caller closes
// x.Output after the run, which trims the history.
// The Asker is left nil; the caller sets it when NoAsk is "" and a
// block needs asking (see [NeedsAsk]).
func (p *Project) ExecOptions(o RunOptions, diag io.Writer) gateway.ExecOptions {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	x := gateway.ExecOptions{TrustAll: o.TrustAll, StopOnError: o.StopOnError, Diag: diag,
		ApprovalTimeout: p.Config.ApprovalTimeout, Output: output.NewStore(p.Root, p.ReportBudget(o).Bytes)}
	x.Runner.Timeout, x.Runner.MaxOutput = p.Config.Timeout, p.Config.MaxOutput
	if o.Timeout > 0 {
		x.Runner.Timeout = o.Timeout
	}
	if o.MaxOutput > 0 {
		x.Runner.MaxOutput = o.MaxOutput
	}
	switch ci := getenv("CI"); {
	case o.NoPrompt:
		x.NoAsk = "--no-prompt"
	case IsCI(getenv):
		x.NoAsk = "CI=" + approve.NoReason(ci)
	}
	return x
}

// IsCI reports whether getenv says clada runs in CI: CI is set, other
// than to "false" or "0".
func IsCI(getenv func(string) string) bool {
	ci := getenv("CI")
	return ci != "" && ci != "false" && ci != "0"
}

// HintsExit is the exit code of a run or dry run whose code is code,
// once the documents with no RUN block are counted: in CI, a document
// with no RUN block but with lines that look like commands (a ```sh
// fence, a `$ make` line; [gateway.Plan.Hints]) was most likely meant to
// run them, and a job that passes without running anything hides that,
// so an exit code of 0 becomes [ExitFailed]. Outside CI such a reply (a
// model explaining code) is no failure: the report's note says that
// nothing of it ran, and the code stays as it is.
func HintsExit(p *gateway.Plan, code int, ci bool) int {
	if ci && code == ExitOK && len(p.Hints) > 0 {
		return ExitFailed
	}
	return code
}

// ReportBudget is the per-block report budget of a run: o.ReportBudget
// when set, else report_budget from config.toml, else
// output.DefaultBudget.
func (p *Project) ReportBudget(o RunOptions) output.Budget {
	b := o.ReportBudget
	if b.Bytes <= 0 {
		b = p.Config.ReportBudget
	}
	if b.Bytes <= 0 {
		return output.DefaultBudget
	}
	return output.Budget{Bytes: b.Bytes, Lines: b.Lines}
}

// NeedsAsk reports whether any block will be asked about, so a terminal
// is opened only when needed.
func NeedsAsk(p *gateway.Plan) bool {
	for _, r := range p.Results {
		if r.Decision == gateway.Ask {
			return true
		}
	}
	return false
}

// PlanExit is the exit code of a dry run or a check.
func PlanExit(p *gateway.Plan) int {
	if !p.OK() {
		return ExitUsage
	}
	code := ExitOK
	for _, r := range p.Results {
		switch r.Decision {
		case gateway.Deny:
			return ExitFailed
		case gateway.Ask:
			code = ExitApproval
		}
	}
	return code
}

// RunExit is the exit code of a run: 0 only when every block ran and
// exited 0; [ExitInterrupted] when interrupted is set.
func RunExit(p *gateway.Plan, interrupted bool) int {
	if interrupted {
		return ExitInterrupted
	}
	for _, r := range p.Results {
		if r.Status != gateway.StatusRan || !r.Run.OK() {
			return ExitFailed
		}
	}
	return ExitOK
}

// ReadDocuments parses every input: files in order, "-" or nothing for
// stdin. A file that cannot be read is an error. With windows set, a
// word whose backslashes the bash syntax removed is refused, as on
// Windows (`--os windows`).
func ReadDocuments(files []string, stdin io.Reader, windows bool) ([]*parser.Document, error) {
	if len(files) == 0 {
		files = []string{"-"}
	}
	ps := parser.New()
	if windows {
		ps.ForWindows(true)
	}
	var docs []*parser.Document
	stdinUsed := false
	for _, name := range files {
		var doc *parser.Document
		var err error
		if name == "-" {
			if stdinUsed {
				return nil, hint(errors.New("stdin (-) given twice"), "name - once")
			}
			stdinUsed = true
			doc, err = ps.Blocks("<stdin>", stdin)
		} else {
			f, openErr := os.Open(name)
			if openErr != nil {
				return nil, hint(openErr, "give the path of a CSL document, or - for stdin")
			}
			doc, err = ps.Blocks(name, f)
			f.Close()
		}
		if err != nil {
			return nil, hint(err, "split the reply into smaller documents")
		}
		docs = append(docs, doc)
	}
	return docs, nil
}
