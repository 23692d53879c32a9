package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clada/clada/gateway"
	"github.com/clada/clada/report"
	"github.com/clada/clada/runner"
)

// blockText is r as the text report shows it.
func blockText(r *gateway.Result, dryRun bool) string {
	var b strings.Builder
	report.New(&b, report.Text, dryRun).Block(r)
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// blockObject is r as a JSON report block line, decoded, so that the
// tools can add their fields (job, status) to the same object.
func blockObject(r *gateway.Result, dryRun bool) map[string]any {
	var b bytes.Buffer
	report.New(&b, report.JSON, dryRun).Block(r)
	d := json.NewDecoder(&b)
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		// The report writes what it can encode; this is clada's bug.
		return map[string]any{"type": "block", "error": "clada could not read its own JSON report: " + err.Error()}
	}
	return m
}

// jobStatus is how a command that ran ended, in the words of the output
// tool.
func jobStatus(res *runner.Result) string {
	switch res.Status {
	case runner.StatusTimedOut:
		return statusTimedOut
	case runner.StatusCanceled, runner.StatusTruncated, runner.StatusSignaled:
		return statusKilled
	}
	return statusExited // also a command that could not start
}

// finish renders r, executed, as a job result.
func finish(r *gateway.Result) *finished {
	f := &finished{text: blockText(r, false), block: blockObject(r, false), failed: r.Failed(), ended: time.Now()}
	f.status = statusExited
	if r.Run != nil {
		f.status = jobStatus(r.Run)
		if r.Run.Status == runner.StatusExited {
			code := r.Run.ExitCode
			f.exitCode = &code
		}
		if r.Run.Status == runner.StatusCanceled && r.Run.Err != nil {
			// Who stopped it: the kill tool, the client, shutdown.
			f.text += "    " + stoppedBy(r.Run.Err) + "\n"
		}
	}
	return f
}

func stoppedBy(err error) string {
	for _, cause := range []error{errKilled, errShutdown, errCanceled} {
		if errors.Is(err, cause) {
			return cause.Error()
		}
	}
	return err.Error()
}

// runningView is what the tools show of a job whose command is still
// running: the block as decided and approved, before it ran.
type runningView struct {
	result gateway.Result
}

// jobText is a job's text report: the block, then the job's status.
func jobText(j *job, f *finished) string {
	if f != nil {
		var b strings.Builder
		b.WriteString(f.text)
		fmt.Fprintf(&b, "    job %d: %s", j.id, f.status)
		if f.exitCode != nil {
			fmt.Fprintf(&b, " with exit code %d", *f.exitCode)
		}
		fmt.Fprintf(&b, " after %s\n", f.ended.Sub(j.started).Round(time.Millisecond))
		return b.String()
	}
	r := j.running.result
	var b strings.Builder
	b.WriteString(blockText(&r, true))
	fmt.Fprintf(&b, "    job %d: running for %s in the background (%s)\n", j.id,
		time.Since(j.started).Round(time.Second), approvedBy(r.ApprovedBy))
	fmt.Fprintf(&b, "    call the output tool with {\"job\": %d} for its output and status, or the kill tool to stop it\n", j.id)
	return b.String()
}

// approvedBy words ApprovedBy as the text report does.
func approvedBy(by string) string {
	switch by {
	case "yes", "always":
		return "approved by the person (" + by + ")"
	case "trust-all":
		return "approved by --trust-all"
	}
	return "allowed (" + by + ")"
}

// jobObject is a job's JSON report block with the job's id and status.
func jobObject(j *job, f *finished) map[string]any {
	var m map[string]any
	if f != nil {
		m = f.block
		m = copyMap(m)
		if f.exitCode != nil {
			m["exit_code"] = *f.exitCode
		}
		m["status"] = f.status
	} else {
		r := j.running.result
		m = blockObject(&r, true)
		m["status"] = statusRunning
		m["approved_by"] = r.ApprovedBy
		m["running_ms"] = time.Since(j.started).Milliseconds()
	}
	m["job"] = j.id
	return m
}

func copyMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m)+2)
	for k, v := range m {
		c[k] = v
	}
	return c
}
