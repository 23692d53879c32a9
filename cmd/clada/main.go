// Command clada is a shell-free command gateway: it reads RUN blocks that
// a model wrote, decides allow / ask / deny for each, asks the person at
// the terminal where needed, runs what is allowed without a shell and
// reports back.
//
// Layout: one file per verb, holding its cli.Command (name, flags, help
// and action) and what only that verb uses: run.go, check.go, exec.go,
// hook.go, mcp.go, prompt.go, trust.go, untrust.go, init.go, config.go,
// allow.go, block.go, forget.go (their writer in store.go), list.go,
// specs.go, sandbox.go, log.go, why.go and completion.go. app.go builds
// the app from the verbs table, in the order `clada --help` lists them;
// flags.go holds the flags several verbs share, open.go how run and check
// open the project, exit.go the exit codes, tui.go how errors and
// warnings are printed. To add a verb, write its file and add its
// constructor to verbs; TestHelpGolden then asks for its help in
// testdata/help (go test ./cmd/clada -run TestHelpGolden -update).
//
// Two forms are answered before the app is built, because agents start
// them for every command and urfave/cli's setup is a measurable part of
// their start (bench/README.md): `clada hook AGENT` (answerHook, hook.go)
// and the plain forms of `clada check` (quickCheck, check.go).
package main

import (
	"io"
	"os"

	"github.com/clada/clada/internal/runner"
	"github.com/clada/clada/internal/sandbox"
)

func main() {
	sandbox.Main()
	// Nothing a command starts outlives it, also a process that left
	// its group (runner.EnableReaper); this process starts no other
	// child in a session of its own.
	_ = runner.EnableReaper()
	reexec = sandbox.RunInNamespace
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// reexec starts clada again, with the arguments it was started with, in a
// user and mount namespace of its own, and returns the exit code that
// clada ended with: there each command sees .git and .clada as read-only
// mounts and may still create files at the top of the project. started
// is false, with nothing run, where clada already runs in such a
// namespace or the kernel refuses; clada then goes on in this process and
// the sandbox keeps .git and .clada read-only without mounts.
//
// run and exec call it only once they know that a command may run (see
// mayRun): a document whose every block is denied, a malformed one, a
// dry run and a refused clada exec are answered here, without a second
// start of clada and a namespace (about 5 ms). It is nil where run is
// called in the test process, which never starts itself again.
var reexec func(stdin io.Reader, stdout, stderr io.Writer) (code int, started bool)

// inNamespace calls reexec when commands may run with the sandbox (mode,
// from --sandbox or config.toml, read as sandbox.ParseMode reads it, is
// not off); ok is false where it did not start clada again. A mode that
// does not parse starts nothing: clada goes on here and reports it.
func inNamespace(mode string, stdin io.Reader, stdout, stderr io.Writer) (code int, ok bool) {
	if m, err := sandbox.ParseMode(mode); reexec == nil || err != nil || m == sandbox.ModeOff {
		return 0, false
	}
	return reexec(stdin, stdout, stderr)
}
