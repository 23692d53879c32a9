package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/clada/clada/internal/project"
	"github.com/urfave/cli/v2"
)

// mcpCommand is `clada mcp`: clada's MCP server, handed to clada-mcp.
func mcpCommand(stdin io.Reader, stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve clada's run, check, output and kill tools to an agent over MCP (stdio)",
		Description: "An MCP server on stdin/stdout: register it with your agent (docs/mcp.md). Approvals are\n" +
			"asked through the client (elicitation), never on the terminal; commands still running after\n" +
			"background_after become jobs. When the client disconnects, every job is killed." + examples(
			"clada mcp                    # what an agent starts; docs/mcp.md shows how to register it",
			"clada mcp --root ~/src/app   # serve that project, wherever the agent starts it"),
		Flags: []cli.Flag{
			rootFlag(),
			&cli.BoolFlag{Name: "trust-all", Usage: "approve every command that would be asked (deny stays deny); prints a warning"},
			&cli.BoolFlag{Name: "untrusted", Usage: "ask even for commands the specs allow"},
			sandboxFlag(),
		},
		Action: func(c *cli.Context) error {
			return mcpAction(mcpOptions{root: c.String("root"), trustAll: c.Bool("trust-all"), untrusted: c.Bool("untrusted"),
				sandbox: c.String("sandbox"), args: c.Args().Len()}, stdin, stdout, stderr)
		},
	}
}

// mcpOptions are clada mcp's flags, which mcpAction hands to clada-mcp.
type mcpOptions struct {
	root                string
	trustAll, untrusted bool
	sandbox             string // --sandbox; "" means config.toml's
	args                int
}

// mcpProgram is the executable that serves clada mcp (cmd/clada-mcp).
const mcpProgram = "clada-mcp"

// mcpAction hands clada mcp to the clada-mcp executable with the flags
// given: the MCP server and its SDK live there so that clada itself,
// which every hook and every clada check starts, starts without them
// (package mcpserver). Flags were checked here already; clada-mcp checks
// the project and serves.
func mcpAction(o mcpOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.args > 0 {
		return withHint(errors.New("clada mcp takes no arguments"), "register it with your agent as: clada mcp [--root DIR]")
	}
	// The project as clada-mcp will find it; a root that does not exist
	// is clada-mcp's error to report.
	root, _, _ := project.Locate(o.root)
	prog, err := findMCP(root)
	if err != nil {
		return err
	}
	args := []string{mcpProgram}
	if o.root != "" {
		args = append(args, "--root", o.root)
	}
	if o.trustAll {
		args = append(args, "--trust-all")
	}
	if o.untrusted {
		args = append(args, "--untrusted")
	}
	if o.sandbox != "" {
		args = append(args, "--sandbox", o.sandbox)
	}
	return execMCP(prog, args, stdin, stdout, stderr)
}

// findMCP returns the clada-mcp to start: the one next to clada as it was
// started (os.Args[0] when that is a path, then the executable with its
// links resolved), where `go install …/cmd/...` and the release archives
// put it; else the first on PATH that is inside neither the project root
// nor the working directory (as written or with links resolved), so that
// a clada-mcp a model wrote into the project is never the one started.
func findMCP(root string) (string, error) {
	name := mcpProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	var dirs []string
	if strings.ContainsAny(os.Args[0], `/\`) {
		dirs = append(dirs, filepath.Dir(os.Args[0]))
	}
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			dirs = append(dirs, filepath.Dir(r))
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			if abs, err := filepath.Abs(p); err == nil {
				return abs, nil
			}
		}
	}
	wd, _ := os.Getwd()
	var writable []string // where a model may have written programs
	for _, d := range []string{root, wd} {
		if d == "" {
			continue
		}
		writable = append(writable, d)
		if r, err := filepath.EvalSymlinks(d); err == nil {
			writable = append(writable, r)
		}
	}
	inProject := func(d string) bool {
		for _, w := range writable {
			if _, ok := project.Inside(w, d); ok {
				return true
			}
		}
		return false
	}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d == "" || !filepath.IsAbs(d) || inProject(d) {
			continue
		}
		if r, err := filepath.EvalSymlinks(d); err != nil || inProject(r) {
			continue
		}
		if p, err := exec.LookPath(filepath.Join(d, mcpProgram)); err == nil {
			return p, nil
		}
	}
	return "", withHint(errors.New("clada mcp needs the clada-mcp executable, which is not next to clada nor on PATH"),
		"install both: go install github.com/clada/clada/cmd/...@latest")
}
