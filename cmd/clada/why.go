package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/project"
	"github.com/clada/clada/internal/rules"
)

// whyCommand is `clada why 'COMMAND'`: clada check's decision, explained
// step by step in the decision order of docs/rules.md.
func whyCommand(_ io.Reader, stdout, _ io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "why",
		Usage:     "explain a decision step by step: which rule, pattern, spec or path check decided, in the order of docs/rules.md",
		ArgsUsage: "-- COMMAND [ARG...]  |  'COMMAND LINE'",
		Description: "Decides the command as clada check does (nothing runs, nothing is logged) and shows each\n" +
			"step of the decision order until the one that decided: parsing, blocked patterns and hard\n" +
			"blocks, confinement of dir, the specs and git rules (with the path checks), everything else\n" +
			"asked, then the allowed patterns, naming the pattern and the scope of its file." + examples(
			"clada why 'git push origin main'",
			"clada why --dir sub -- ls -la",
			"clada why 'go test ./... | tail -5'   # a composition: every part"),
		Flags: []cli.Flag{
			rootFlag(),
			&cli.StringFlag{Name: "dir", Usage: "working directory relative to where you stand, as a RUN block's dir attribute"},
			&cli.BoolFlag{Name: "untrusted", Usage: "explain as with --untrusted"},
			osFlag(),
		},
		Action: func(c *cli.Context) error {
			return whyAction(c.String("root"), c.String("dir"), c.String("os"), c.Bool("untrusted"), c.Args().Slice(), stdout)
		},
	}
}

func whyAction(root, dir, sys string, untrusted bool, args []string, stdout io.Writer) error {
	var body string
	switch len(args) {
	case 0:
		return withHint(errors.New("no command to explain"), "clada why 'git status', or clada why -- git status")
	case 1:
		body = args[0]
	default:
		body = parser.Quote(args)
	}
	p, err := openProject(root, untrusted, sys)
	if err != nil {
		return err
	}
	g, err := p.DecideGateway()
	if err != nil {
		return err
	}
	bare, err := g.WithoutPatterns()
	if err != nil {
		return err
	}
	r := g.Check(body, dir)
	base := bare.Check(body, dir)
	where := "."
	if dir != "" {
		where = dir
	}
	fmt.Fprintf(stdout, "`%s` in %s (project root %s)\n", visibleText(r.Command), where, p.Root)
	if r.Composite != nil {
		fmt.Fprintf(stdout, "1. parsing: a composition of %d parts; each part is decided on its own, and the strictest decides the whole\n", len(r.Composite.Parts))
		for i, part := range r.Composite.Parts {
			var bv *gateway.Verdict
			if base.Composite != nil && i < len(base.Composite.Parts) {
				bv = &base.Composite.Parts[i].Verdict
			}
			fmt.Fprintf(stdout, "   part %d: `%s`\n", i+1, visibleText(part.Text))
			explainSteps(stdout, "     ", p, part.Argv, part.DirAttr, part.Verdict, bv, false)
		}
		fmt.Fprintf(stdout, "decision: %s\n", verdictLine(r.Verdict))
		return nil
	}
	explainSteps(stdout, "", p, r.Argv, dir, r.Verdict, &base.Verdict, true)
	fmt.Fprintf(stdout, "decision: %s\n", verdictLine(r.Verdict))
	if r.Advice != "" && r.Decision != gateway.Allow {
		fmt.Fprintf(stdout, "do instead: %s\n", visibleText(r.Advice))
	}
	return nil
}

// The steps of docs/rules.md's decision order.
const (
	stepParse = iota + 1
	stepBlocked
	stepConfine
	stepSpecs
	stepElse
	stepPatterns
)

// stepOf is the step of the decision order that gives rule; word and
// the command's program and dir tell a path check of the program or
// dir (step 3) from one of an argument (step 4).
func stepOf(rule rules.Rule, word string, argv []string, dir string) int {
	switch rule {
	case rules.BlockedPattern, rules.SelfPermission, rules.HardBlock, rules.SelfExec:
		return stepBlocked
	case rules.DirNotFound:
		return stepConfine
	case rules.PathOutsideRoot:
		if word != "" && (word == dir || len(argv) > 0 && word == argv[0]) {
			return stepConfine
		}
	case rules.NotInSpecs:
		return stepElse
	case rules.AllowedPattern, rules.PatternWord:
		return stepPatterns
	}
	if slices.ContainsFunc(rules.All(), func(i rules.Info) bool { return i.Rule == rule && i.Stage == rules.Parser }) {
		return stepParse
	}
	return stepSpecs
}

// explainSteps prints the steps up to the one that decided v; base is
// the decision without patterns (nil when not known).
func explainSteps(w io.Writer, indent string, p *project.Project, argv []string, dir string, v gateway.Verdict, base *gateway.Verdict, parse bool) {
	step := func(n int, name, what string) {
		fmt.Fprintf(w, "%s%d. %s: %s\n", indent, n, name, what)
	}
	decided := stepOf(v.Rule, v.Word, argv, dir)
	if v.Rule == rules.Untrusted && base != nil {
		decided = stepSpecs
	}
	if parse || decided == stepParse {
		if decided == stepParse {
			step(stepParse, "parsing", "refused: "+verdictLine(v))
			return
		}
		step(stepParse, "parsing", fmt.Sprintf("one plain command: %s", visibleText(parser.Quote(argv))))
	}
	if decided == stepBlocked {
		step(stepBlocked, "blocked patterns, clada's own permissions, hard blocks", "decided: "+verdictLine(v)+patternSource(p, argv, true))
		return
	}
	step(stepBlocked, "blocked patterns, clada's own permissions, hard blocks", "none applies")
	if decided == stepConfine {
		step(stepConfine, "confinement of dir and the program's path", "decided: "+verdictLine(v))
		return
	}
	where := "the directory clada runs in"
	if dir != "" {
		where = "dir " + dir
	}
	step(stepConfine, "confinement of dir and the program's path", where+", inside the project")
	// Steps 4 and 5 are what the specs and rules decide without patterns.
	bv := v
	if base != nil && (decided == stepPatterns || v.Rule == rules.Untrusted) {
		bv = *base
	}
	bstep := stepOf(bv.Rule, bv.Word, argv, dir)
	if bstep == stepElse {
		step(stepSpecs, "specs and git rules", "no spec covers `"+progName(argv)+"`")
		step(stepElse, "everything else is asked", verdictLine(bv))
	} else {
		what := verdictLine(bv)
		if bv.Rule != rules.Untrusted && len(argv) > 0 {
			what += fmt.Sprintf(" (the spec: clada specs %s)", progName(argv))
		}
		step(stepSpecs, "specs and git rules, with the path checks", what)
	}
	switch {
	case decided == stepPatterns:
		step(stepPatterns, "allowed patterns", verdictLine(v)+patternSource(p, argv, false))
	case bv.Decision == gateway.Ask:
		step(stepPatterns, "allowed patterns", "none covers it, so it stays ask")
	}
	if v.Rule == rules.Untrusted {
		fmt.Fprintf(w, "%suntrusted mode: every allow becomes ask (%s)\n", indent, verdictLine(v))
	}
}

// patternSource names the pattern that matched argv and its file's scope.
func patternSource(p *project.Project, argv []string, blocked bool) string {
	if p.Commands == nil || argv == nil {
		return ""
	}
	match := p.Commands.MatchAllowed
	if blocked {
		match = p.Commands.MatchBlocked
	}
	pt, ok := match(argv)
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (%s scope)", project.PatternScope(p.Commands, pt))
}

// verdictLine is "ask (rule spec-ask) `go`: reason".
func verdictLine(v gateway.Verdict) string {
	s := fmt.Sprintf("%s (rule %s)", v.Decision, v.Rule)
	if v.Word != "" {
		s += fmt.Sprintf(" `%s`", visibleText(v.Word))
	}
	if v.Reason != "" {
		s += ": " + visibleText(v.Reason)
	}
	return s
}

func progName(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	return argv[0]
}

// visibleText shows control characters as escapes, so that a command
// cannot rewrite the terminal it is explained on.
func visibleText(s string) string {
	hidden := func(r rune) bool {
		return r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 ||
			r >= 0x200b && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0xfeff
	}
	if !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
