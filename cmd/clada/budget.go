package main

import (
	"fmt"

	"github.com/clada/clada/approve"
	"github.com/clada/clada/output"
)

// reportBudget is the per-block report budget: --report-budget when given,
// else report_budget from config.toml, else the default.
func reportBudget(flag string, cfg approve.Config) (output.Budget, error) {
	b := output.DefaultBudget
	if cfg.ReportBudget.Bytes > 0 {
		b = output.Budget{Bytes: cfg.ReportBudget.Bytes, Lines: cfg.ReportBudget.Lines}
	}
	if flag != "" {
		fb, err := approve.ParseBudget(flag)
		if err != nil {
			return b, withHint(fmt.Errorf("--report-budget: %w", err), "give a size such as 32KiB, or a size and a line count such as 32KiB,800")
		}
		b = output.Budget{Bytes: fb.Bytes, Lines: fb.Lines}
	}
	return b, nil
}
