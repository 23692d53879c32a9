// Command clada is a shell-free command gateway: it reads RUN blocks that
// a model wrote, decides allow / ask / deny for each, asks the person at
// the terminal where needed, runs what is allowed without a shell and
// reports back.
package main

import (
	"os"

	"github.com/clada/clada/sandbox"
)

func main() {
	sandbox.Main()
	if code, ok := inNamespace(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// inNamespace runs clada again in a user and mount namespace of its own
// when args run commands (run, exec) and the sandbox may be used:
// there each command sees .git and .clada as read-only mounts and may
// still create files at the top of the project. ok is false, and nothing
// ran, where that is not needed or the kernel refuses; clada then goes on
// here and the sandbox keeps .git and .clada read-only without mounts.
func inNamespace(args []string) (code int, ok bool) {
	if !needsNamespace(args) {
		return 0, false
	}
	return sandbox.RunInNamespace(os.Stdin, os.Stdout, os.Stderr)
}

// needsNamespace reports whether args run commands that the sandbox may
// confine: clada run (not --dry-run) or exec, without --sandbox off.
// clada mcp is not among them: clada-mcp, which it starts, enters its own
// namespace.
// A --sandbox after exec's command is the command's own word.
func needsNamespace(args []string) bool {
	if len(args) < 2 {
		return false
	}
	switch args[1] {
	case "run", "exec":
	default:
		return false
	}
	for i := 2; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || (args[1] == "exec" && (len(a) == 0 || a[0] != '-')):
			return true
		case a == "--dry-run" || a == "-dry-run":
			return false
		case a == "--sandbox=off" || a == "-sandbox=off":
			return false
		case (a == "--sandbox" || a == "-sandbox") && i+1 < len(args) && args[i+1] == "off":
			return false
		}
	}
	return true
}
