package project

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/decisionlog"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/output"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/runner"
)

// Log appends entries to the project's decision log
// (internal/decisionlog). A project without .clada gets no log.
func (p *Project) Log(entries ...decisionlog.Entry) error {
	return decisionlog.New(p.Root).Append(entries...)
}

// LogEntry is the decision log's line for r, decided (and maybe run) by
// the entry point entry (decisionlog.EntryRun …) for agent ("" when
// none is known).
func (p *Project) LogEntry(entry, agent string, r *gateway.Result) decisionlog.Entry {
	e := decisionlog.Entry{Time: time.Now(), Entry: entry, Agent: agent, Command: r.Command, Dir: p.relDir(r),
		Decision: string(r.Decision), Rule: string(r.Rule), Word: r.Word, Reason: r.Reason, Status: string(r.Status),
		ApprovedBy: r.ApprovedBy, NotApproved: r.NotApproved}
	if e.ApprovedBy == "" && r.Decision == gateway.Allow && r.Status == gateway.StatusPlanned {
		e.ApprovedBy = string(r.Rule) // decided only: what would let it run
	}
	switch e.ApprovedBy {
	case string(rules.AllowedPattern), "always", "prefix", "composition":
		e.Pattern, e.Scope = p.patternOf(r)
	}
	if r.Run != nil {
		e.Sandbox = r.Confinement.Text
		e.Exit, e.Outcome, e.DurationMS = RunOutcome(*r.Run)
	}
	for _, s := range []*output.Stream{r.Stdout, r.Stderr} {
		if s != nil && s.Path() != "" {
			e.Output = append(e.Output, s.Path())
		}
	}
	return e
}

// RunOutcome is how a command ended, for the log: the exit code when it
// exited, else the runner's status and signal; and how long it took.
func RunOutcome(res runner.Result) (exit *int, outcome string, ms *int64) {
	d := res.Duration.Milliseconds()
	ms = &d
	if res.Status == runner.StatusExited {
		code := res.ExitCode
		return &code, "", ms
	}
	outcome = res.Status.String()
	if res.Signal != "" {
		outcome += " (" + res.Signal + ")"
	}
	return nil, outcome, ms
}

// relDir is the directory r was decided for, relative to the root.
func (p *Project) relDir(r *gateway.Result) string {
	if r.Dir == "" {
		if r.DirAttr != "" {
			return r.DirAttr
		}
		return "."
	}
	if rel, ok := Inside(p.Root, r.Dir); ok {
		if rel == "" {
			return "."
		}
		return rel
	}
	if root, err := filepath.EvalSymlinks(p.Root); err == nil {
		if rel, ok := Inside(root, r.Dir); ok {
			if rel == "" {
				return "."
			}
			return rel
		}
	}
	return r.Dir
}

// patternOf names the allowed patterns that let r run and the scopes of
// their files: one for a command, one per such part of a composition.
func (p *Project) patternOf(r *gateway.Result) (pattern, scope string) {
	var argvs [][]string
	if r.Composite != nil {
		for _, part := range r.Composite.Parts {
			if part.Rule == rules.AllowedPattern || r.ApprovedBy != "composition" {
				argvs = append(argvs, part.Argv)
			}
		}
	} else {
		argvs = append(argvs, r.Argv)
	}
	var pats, scopes []string
	for _, argv := range argvs {
		pt, ok := p.Commands.MatchAllowed(argv)
		if !ok {
			continue
		}
		pats = append(pats, pt.Text)
		scopes = append(scopes, string(PatternScope(p.Commands, pt)))
	}
	return strings.Join(pats, "; "), strings.Join(scopes, "; ")
}

// PatternScope is the scope of the file pt was read from: the project's
// commands.toml, or one of the layers (personal, user, managed).
func PatternScope(c *approve.Commands, pt approve.Pattern) approve.Scope {
	if c == nil {
		return approve.ScopeProject
	}
	for _, l := range c.Layers() {
		if l.Path == pt.Source {
			return l.Scope()
		}
	}
	return c.Scope()
}
