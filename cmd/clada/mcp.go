//go:build !clada_no_mcp

package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/clada/clada/mcpserver"
)

// mcpAction serves clada as an MCP server on stdin and stdout until the
// client closes stdin, or SIGINT/SIGTERM; then every job's process group
// is killed. Nothing is ever read from the terminal.
func mcpAction(o mcpOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.args > 0 {
		return withHint(errors.New("clada mcp takes no arguments"), "register it with your agent as: clada mcp [--root DIR]")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return mcpserver.Serve(ctx, mcpserver.Options{Root: o.root, TrustAll: o.trustAll, Untrusted: o.untrusted,
		Sandbox: o.sandbox, Version: version, Log: stderr}, stdin, stdout)
}
