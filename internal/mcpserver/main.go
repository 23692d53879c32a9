package mcpserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/clada/clada/internal/project"
	"github.com/clada/clada/internal/runner"
	"github.com/clada/clada/internal/sandbox"
)

// Usage is clada-mcp's help, the same flags as `clada mcp`.
const Usage = `clada-mcp: clada's MCP server on stdin and stdout (what clada mcp starts)

usage: clada-mcp [--root DIR] [--trust-all | --untrusted] [--sandbox auto|required|off]

  --root DIR        project root (default: the nearest directory upwards with .clada/,
                    else the git work tree's top, else the working directory)
  --trust-all       approve every command that would be asked (deny stays deny); prints a warning
  --untrusted       ask even for commands the specs allow
  --sandbox MODE    auto, required or off (default: auto, or sandbox in .clada/config.toml)

Register clada mcp (or clada-mcp itself) with your agent: docs/mcp.md.
`

// Main is the clada-mcp executable, which `clada mcp` starts: it parses
// args (args[0] is the program name), confines itself as clada run does
// (a user and mount namespace of its own where the kernel allows, unless
// --sandbox off), and serves until the client closes stdin or
// SIGINT/SIGTERM arrives; then every job's process group is killed. It
// returns the exit status: 0 when the client went away, 2 for a usage
// error or an unreadable .clada/ file (the error and a hint on stderr,
// nothing on stdout, which is the MCP channel). The caller must have run
// sandbox.Main first, as every clada executable does.
//
// The MCP server is an executable of its own so that clada, which every
// hook and every clada check starts, does not link the MCP SDK (net/http,
// crypto, JSON Schema): linking it cost each clada process ~1 ms at start
// (bench/README.md).
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, version string) int {
	fs := flag.NewFlagSet("clada-mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o Options
	fs.StringVar(&o.Root, "root", "", "")
	fs.BoolVar(&o.TrustAll, "trust-all", false, "")
	fs.BoolVar(&o.Untrusted, "untrusted", false, "")
	fs.StringVar(&o.Sandbox, "sandbox", "", "")
	if len(args) == 0 {
		args = []string{"clada-mcp"}
	}
	switch err := fs.Parse(args[1:]); {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, Usage)
		return project.ExitOK
	case err != nil:
		return usageError(stderr, err, "clada-mcp --help lists the flags")
	case fs.NArg() > 0:
		return usageError(stderr, fmt.Errorf("clada mcp takes no arguments (got %q)", fs.Arg(0)),
			"register it with your agent as: clada mcp [--root DIR]")
	}
	if o.Sandbox != "off" {
		if code, ok := sandbox.RunInNamespace(stdin, stdout, stderr); ok {
			return code
		}
	}
	// Nothing a job starts outlives it, also a process that left its
	// group (runner.EnableReaper); the server starts no other child in a
	// session of its own.
	_ = runner.EnableReaper()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o.Version, o.Log = version, stderr
	if err := Serve(ctx, o, stdin, stdout); err != nil {
		var p *project.Error
		h := ""
		if errors.As(err, &p) {
			h = p.Hint
		}
		return usageError(stderr, err, h)
	}
	return project.ExitOK
}

// usageError prints err and, when there is one, the hint the way clada
// prints its own failures, and returns the usage exit status.
func usageError(w io.Writer, err error, hint string) int {
	fmt.Fprintf(w, "clada: error: %v\n", err)
	if hint != "" {
		fmt.Fprintf(w, "clada: hint: %s\n", hint)
	}
	return project.ExitUsage
}
