//go:build libs_clada

package main

// Built with -tags libs_clada, bench/libs also links every package of
// clada that cmd/clada imports, so their package initialisation runs, and
// still does nothing: the row that shows what linking clada's own code
// costs each start before it does any work.
import (
	_ "github.com/clada/clada/internal/approve"
	_ "github.com/clada/clada/internal/gateway"
	_ "github.com/clada/clada/internal/guide"
	_ "github.com/clada/clada/internal/hook"
	_ "github.com/clada/clada/internal/parser"
	_ "github.com/clada/clada/internal/project"
	_ "github.com/clada/clada/internal/report"
	_ "github.com/clada/clada/internal/runner"
	_ "github.com/clada/clada/internal/sandbox"
	_ "github.com/clada/clada/internal/specs"
)
