//go:build clada_no_mcp

package main

import (
	"errors"
	"io"
)

// mcpAction of a clada built with -tags clada_no_mcp: that build leaves
// the MCP server and its SDK out, for a faster start of clada check and
// clada hook (bench/README.md), so it has no clada mcp.
func mcpAction(mcpOptions, io.Reader, io.Writer, io.Writer) error {
	return withHint(errors.New("this clada was built with -tags clada_no_mcp, without the MCP server"),
		"build clada without that tag (README, Install) to use clada mcp")
}
