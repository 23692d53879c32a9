// Command clada-mcp is clada's MCP server, the executable `clada mcp`
// starts: `go install github.com/clada/clada/cmd/...@latest` installs it
// next to clada. It is apart from clada so that clada, which every agent
// hook and every clada check starts, does not link the MCP SDK. See
// package mcpserver and docs/mcp.md.
package main

import (
	"os"

	"github.com/clada/clada/internal/mcpserver"
	"github.com/clada/clada/internal/sandbox"
)

// version, when set at build time with -ldflags "-X main.version=…", is
// the version reported to MCP clients.
var version = ""

func main() {
	sandbox.Main()
	os.Exit(mcpserver.Main(os.Args, os.Stdin, os.Stdout, os.Stderr, version))
}
