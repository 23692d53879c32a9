// Command libs is the reference for `clada check` and `clada hook`
// start-up (issue 12): a Go program that links the three libraries clada
// is built on (mvdan.cc/sh/v3, urfave/cli/v2, BurntSushi/toml), so their
// package initialisation runs, and then does nothing. bench/run.sh builds
// it with the same toolchain and flags as clada and times the two side by
// side; the difference is clada's own start-up work.
//
// Built with -tags libs_mcp it also links the MCP Go SDK (libs_mcp.go),
// which clada links for `clada mcp`: the row that shows what that costs
// every clada process.
package main

import (
	_ "github.com/BurntSushi/toml"
	_ "github.com/urfave/cli/v2"
	_ "mvdan.cc/sh/v3/syntax"
)

func main() {}
