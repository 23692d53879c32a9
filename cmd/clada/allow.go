package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/project"
	"github.com/urfave/cli/v2"
)

// allowCommand is `clada allow PATTERN`: the person's standing yes, in
// .clada/commands.toml (store.go writes it).
func allowCommand(_ io.Reader, stdout, _ io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "allow",
		Usage:     "always run commands matching PATTERN (adds it to allowed in .clada/commands.toml)",
		ArgsUsage: "PATTERN",
		Description: patternHelp + examples(
			"clada allow 'npm test'      # exactly npm test",
			"clada allow 'go test *'     # go test with any further words",
			"clada allow npm run build   # several words are joined into one pattern"),
		Flags: []cli.Flag{rootFlag(), &cli.BoolFlag{Name: "force",
			Usage: "add a pattern that hands the model any code (bash *, python3 *, env *): only if you mean it"}},
		Action: func(c *cli.Context) error {
			return storeAction("allow", c.String("root"), strings.Join(c.Args().Slice(), " "), c.Args().Len(), c.Bool("force"), stdout)
		},
	}
}

// allowChecks checks a pattern clada allow is about to add: one that hands
// the model any code (a shell, an interpreter or a wrapper with * or with
// code) is refused without --force; one an allowed pattern of any scope
// already covers is not added (stop, saying which); one a blocked pattern
// overrides, in whole or in part, is added with a note that the block
// wins. A pattern that does not parse is left to the writer to report.
func allowChecks(root, text string, force bool, stdout io.Writer) (stop bool, err error) {
	pat, err := approve.ParsePattern(text, gateway.ParsePattern)
	if err != nil {
		return false, nil
	}
	if why := gateway.RunsAnything(pat); why != "" && !force {
		return true, withHint(fmt.Errorf("`%s` would let the model run any code it likes without asking: %s", pat.Text, why),
			"allow exact commands instead, such as `bash scripts/check.sh` (the script is yours to read), or pass --force if you mean it")
	}
	p, err := project.Open(project.Options{Root: root})
	if err != nil {
		return false, nil // the writer reports an unusable file
	}
	head := pat.Argv
	if pat.Prefix {
		head = head[:len(head)-1]
	}
	// Only a prefix pattern is covered by a shorter one: an exact pattern
	// allows exactly what the person saw (paths outside included), which
	// a prefix pattern's * never does.
	for _, q := range p.Commands.AllowedPatterns() {
		if pat.Prefix && q.Prefix && !slices.Equal(q.Argv, pat.Argv) && (approve.Pattern{Argv: q.Argv, Prefix: true}).Match(head) {
			fmt.Fprintf(stdout, "clada: `%s` is already covered by `%s` in %s; nothing added\n", pat.Text, q.Text, q.Source)
			return true, nil
		}
	}
	_, blocked := p.Commands.Lists()
	for _, l := range p.Commands.Layers() {
		blocked = append(blocked, l.Blocked...)
	}
	for _, b := range blocked {
		bhead := b.Argv
		if b.Prefix {
			bhead = bhead[:len(bhead)-1]
		}
		if b.Match(head) || (pat.Prefix && len(bhead) >= len(head) && slices.Equal(bhead[:len(head)], head)) {
			fmt.Fprintf(stdout, "clada: note: the blocked pattern `%s` in %s overrides it where both match: a block wins over an allow\n", b.Text, b.Source)
		}
	}
	return false, nil
}
