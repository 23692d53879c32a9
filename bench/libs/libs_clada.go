//go:build libs_clada

package main

// Built with -tags libs_clada, bench/libs also links every package of
// clada that cmd/clada imports, so their package initialisation runs, and
// still does nothing: the row that shows what linking clada's own code
// costs each start before it does any work.
import (
	_ "github.com/clada/clada/approve"
	_ "github.com/clada/clada/gateway"
	_ "github.com/clada/clada/guide"
	_ "github.com/clada/clada/hook"
	_ "github.com/clada/clada/parser"
	_ "github.com/clada/clada/project"
	_ "github.com/clada/clada/report"
	_ "github.com/clada/clada/runner"
	_ "github.com/clada/clada/sandbox"
	_ "github.com/clada/clada/specs"
)
