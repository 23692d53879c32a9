package gateway

import (
	"fmt"
	"os"
	"runtime"

	"github.com/clada/clada/internal/output"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/runner"
)

// notRunnable says why the file at path cannot be started as a program,
// with the exit code a shell gives for it (127 missing, 126 a directory or
// not executable), or "" when it can.
func notRunnable(path string) (why string, code int) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return "does not exist", 127
	case fi.IsDir():
		return "is a directory, not a program", 126
	case runtime.GOOS != "windows" && fi.Mode()&0o111 == 0:
		return "is not executable (no x permission)", 126
	}
	return "", 0
}

// missingCode is the exit code reported for a verdict whose program cannot
// start: 126 when a path-like program is a directory or not executable,
// else 127, as a shell reports "command not found".
func missingCode(v Verdict) int {
	if len(v.Exec) > 0 {
		if _, code := notRunnable(v.Exec[0]); code != 0 {
			return code
		}
	}
	return 127
}

// notInstalled reports r, whose program cannot start here, as a shell
// would: exit 127 (or 126), with clada's note on stderr, and rule
// program-not-found. Nobody is asked: nobody can approve what cannot
// start. The decision it had stays as it was.
func notInstalled(r *Result, x ExecOptions) {
	stdout, stderr := resultStreams(r, x)
	fmt.Fprintf(stderr, "clada: %s, so it was not run\n", r.Missing)
	_ = stdout.Close()
	_ = stderr.Close()
	res := runner.Result{Status: runner.StatusExited, ExitCode: missingCode(r.Verdict),
		StderrBytes: stderr.Bytes()}
	r.Rule, r.Word = rules.NotFound, ""
	if len(r.Argv) > 0 {
		r.Word = r.Argv[0]
	}
	r.Reason = r.Missing
	r.Advice = "use a program that is installed here, or ask the person to install it"
	r.ApprovedBy = ApprovedNotInstalled
	r.Status, r.Run = StatusRan, &res
	r.Stdout, r.Stderr = stdout, stderr
}

// ApprovedNotInstalled is Result.ApprovedBy for a command that was not
// run because its program is not installed: nobody approved anything.
const ApprovedNotInstalled = "not-installed"

// resultStreams returns where r's output goes: the streams of x's output
// store for its block, or, without a store, streams of the default
// budget.
func resultStreams(r *Result, x ExecOptions) (stdout, stderr *output.Stream) {
	if x.Output != nil {
		return x.Output.Streams(r.Index + 1)
	}
	return output.NewStream("stdout", output.DefaultBudget.Bytes), output.NewStream("stderr", output.DefaultBudget.Bytes)
}
