package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/decisionlog"
	"github.com/clada/clada/internal/project"
)

// logCommand is `clada log`: the project's decision log, filtered.
func logCommand(_ io.Reader, stdout, _ io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "log",
		Usage: "show the decision log: every decision and run from clada run, exec, check, hook and mcp",
		Description: "The log is .clada/log/decisions.jsonl (JSON Lines, rotated at 4 MiB, five files kept);\n" +
			"only clada writes it. Oldest first; --last keeps the newest N after filtering.\n" +
			"docs/log.md lists its fields." + examples(
			"clada log                          # the last 50 decisions",
			"clada log --decision deny          # what was refused",
			"clada log --rule not-in-specs --since 24h",
			"clada log --since 2026-11-28 --format json | jq .command"),
		Flags: []cli.Flag{
			rootFlag(),
			&cli.StringFlag{Name: "decision", Usage: "only this decision: allow, ask or deny"},
			&cli.StringFlag{Name: "rule", Usage: "only this rule code, e.g. not-in-specs"},
			&cli.StringFlag{Name: "entry", Usage: "only this entry point: run, exec, check, hook or mcp"},
			&cli.StringFlag{Name: "since", Usage: "only entries from this time on: a duration back from now (30m, 24h, 90) or a date or time (2026-11-28, 2026-11-28T10:00:00Z)"},
			&cli.IntFlag{Name: "last", Value: 50, Usage: "show the newest N entries that match; 0 for all"},
			formatFlag("text, or json for the entries as JSON Lines"),
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c, "clada log --decision deny"); err != nil {
				return err
			}
			return logAction(logOptions{root: c.String("root"), decision: c.String("decision"), rule: c.String("rule"),
				entry: c.String("entry"), since: c.String("since"), last: c.Int("last"), format: c.String("format")}, time.Now(), stdout)
		},
	}
}

type logOptions struct {
	root, decision, rule, entry, since, format string
	last                                       int
}

func logAction(o logOptions, now time.Time, stdout io.Writer) error {
	if o.format != "text" && o.format != "json" {
		return withHint(fmt.Errorf("unknown format %q for log", o.format), "--format text|json")
	}
	switch o.decision {
	case "", "allow", "ask", "deny":
	default:
		return withHint(fmt.Errorf("--decision %q is not a decision", o.decision), "--decision allow|ask|deny")
	}
	switch o.entry {
	case "", decisionlog.EntryRun, decisionlog.EntryExec, decisionlog.EntryCheck, decisionlog.EntryHook, decisionlog.EntryMCP:
	default:
		return withHint(fmt.Errorf("--entry %q is not an entry point", o.entry), "--entry run|exec|check|hook|mcp")
	}
	if o.last < 0 {
		return withHint(fmt.Errorf("--last %d is negative", o.last), "--last 20, or --last 0 for all")
	}
	var since time.Time
	if o.since != "" {
		var err error
		if since, err = parseSince(o.since, now); err != nil {
			return err
		}
	}
	abs, _, err := project.Locate(o.root)
	if err != nil {
		return err
	}
	entries, bad, err := decisionlog.New(abs).Read()
	if err != nil {
		return withHint(err, "move the file away; clada starts a new log")
	}
	var out []decisionlog.Entry
	for _, e := range entries {
		if o.decision != "" && e.Decision != o.decision || o.rule != "" && e.Rule != o.rule ||
			o.entry != "" && e.Entry != o.entry || !since.IsZero() && e.Time.Before(since) {
			continue
		}
		out = append(out, e)
	}
	if o.last > 0 && len(out) > o.last {
		out = out[len(out)-o.last:]
	}
	if o.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		for i := range out {
			if err := enc.Encode(&out[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if len(entries) == 0 {
		fmt.Fprintf(stdout, "clada: no decisions logged in %s/%s yet\n", abs, decisionlog.Dir)
		return nil
	}
	for _, e := range out {
		fmt.Fprintln(stdout, logLine(e))
	}
	if bad > 0 {
		fmt.Fprintf(stdout, "clada: %d lines of the log are not entries and were skipped\n", bad)
	}
	return nil
}

// logLine is one entry in the text form:
// "2026-11-28 10:12:03 run    allow (spec) ls -la · ran: exit 0 · 12 ms".
func logLine(e decisionlog.Entry) string {
	who := e.Entry
	if e.Agent != "" {
		who += "/" + e.Agent
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %-6s %s (%s) %s", e.Time.Local().Format("2006-01-02 15:04:05"), who, e.Decision, e.Rule, visibleText(oneLine(e.Command)))
	if e.Dir != "" && e.Dir != "." {
		fmt.Fprintf(&b, " [dir %s]", visibleText(e.Dir))
	}
	var tail []string
	switch {
	case e.Exit != nil:
		tail = append(tail, fmt.Sprintf("ran: exit %d", *e.Exit))
	case e.Outcome != "":
		tail = append(tail, "ran: "+e.Outcome)
	case e.Status != "" && e.Status != "planned":
		tail = append(tail, e.Status)
	}
	if e.DurationMS != nil {
		tail = append(tail, fmt.Sprintf("%d ms", *e.DurationMS))
	}
	switch e.ApprovedBy {
	case "", e.Rule:
	case "yes", "always", "prefix":
		tail = append(tail, "approved by the person ("+e.ApprovedBy+")")
	case "trust-all":
		tail = append(tail, "approved by --trust-all")
	default:
		tail = append(tail, "by "+e.ApprovedBy)
	}
	if e.Pattern != "" {
		tail = append(tail, fmt.Sprintf("pattern `%s` (%s)", visibleText(e.Pattern), e.Scope))
	}
	if e.NotApproved != "" {
		tail = append(tail, "not approved: "+e.NotApproved)
	}
	tail = append(tail, e.Output...)
	if len(tail) > 0 {
		b.WriteString(" · " + strings.Join(tail, " · "))
	}
	return b.String()
}

// oneLine keeps the first line of a command written over several.
func oneLine(s string) string {
	if first, _, ok := strings.Cut(s, "\n"); ok {
		return first + " …"
	}
	return s
}

// parseSince reads --since: a duration back from now (as --timeout reads
// durations) or a date or time.
func parseSince(s string, now time.Time) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	d, err := approve.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, withHint(errors.New("--since "+s+" is neither a duration nor a date"), "--since 24h, --since 90m or --since 2026-11-28")
	}
	return now.Add(-d), nil
}
