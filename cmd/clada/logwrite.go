package main

import (
	"io"
	"os"

	"github.com/clada/clada/internal/decisionlog"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/hook"
	"github.com/clada/clada/internal/project"
)

// decisionLogger appends the decision log's lines for one clada run,
// exec or check (internal/decisionlog). A failure to write the log is
// said once on stderr and changes nothing else: the commands still run
// and the report is the same.
type decisionLogger struct {
	p      *project.Project
	entry  string
	agent  string
	stderr io.Writer
	warned bool
}

func newDecisionLogger(p *project.Project, entry string, stderr io.Writer) *decisionLogger {
	return &decisionLogger{p: p, entry: entry, agent: hook.AgentFromEnv(os.Getenv), stderr: stderr}
}

// log appends one line per result.
func (l *decisionLogger) log(rs ...*gateway.Result) {
	if l == nil || len(rs) == 0 {
		return
	}
	es := make([]decisionlog.Entry, len(rs))
	for i, r := range rs {
		es[i] = l.p.LogEntry(l.entry, l.agent, r)
	}
	if err := l.p.Log(es...); err != nil && !l.warned {
		l.warned = true
		warnf(l.stderr, "decision log: %v (the command's report is not affected)", err)
	}
}
