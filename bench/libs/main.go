// Command libs is the reference for `clada check` and `clada hook`
// start-up (issue 12): a Go program that links the three libraries clada
// is built on (mvdan.cc/sh/v3, urfave/cli/v2, BurntSushi/toml), so their
// package initialisation runs, and then does nothing. bench/run.sh builds
// it with the same toolchain and flags as clada and times the two side by
// side; the difference is clada's own start-up work.
//
// Built with -tags libs_mcp it also links the MCP Go SDK (libs_mcp.go):
// the row that shows why `clada mcp` is an executable of its own
// (clada-mcp). Built with -tags libs_clada it also links clada's own
// packages (libs_clada.go): linking them, before any work, is part of
// the ratio too.
package main

import (
	_ "github.com/BurntSushi/toml"
	_ "github.com/urfave/cli/v2"
	_ "mvdan.cc/sh/v3/syntax"
)

func main() {}
