package specs

import (
	"fmt"
	"strings"

	"github.com/clada/clada/internal/gitrules"
	"github.com/clada/clada/internal/rules"
)

// gitSummary is git's line in `clada specs`.
const gitSummary = "git's read-only subcommands run without asking, the rest is asked; hardened (clada specs git)"

// gitText is `clada specs git`: git has no spec a user can write (buildSpec
// refuses one); its rules are gitrules' tables, printed from them.
func gitText() string {
	d := gitrules.Describe()
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("git  (from clada's built-in git rules; docs/rules.md, git-subcommand and git-option)")
	line("  allowed without asking, each with its own option table (an option it does not know is denied):")
	wrap(&b, "    ", d.Allowed)
	line("  asked (the person at the terminal decides); any other subcommand or alias is asked too, for example:")
	for _, ex := range d.Asked {
		line("    git %s: %s", ex.Args, ex.Reason)
	}
	line("    every git command, when your git configuration includes a file inside the project (rule %s)", rules.GitInclude)
	line("  denied before the subcommand:")
	for _, o := range d.DeniedGlobal {
		line("    %s: %s", o.Option, o.Reason)
	}
	line("  denied on every allowed subcommand, abbreviations included:")
	for _, o := range d.DeniedReads {
		line("    %s: %s", o.Option, o.Reason)
	}
	line("  denied on every subcommand, asked ones too (nobody is asked to approve a program the model names):")
	for _, o := range d.DeniedAll {
		where := "any subcommand"
		if o.Except != "" {
			where = "any subcommand but git " + o.Except
		}
		if o.Sub != "" {
			where = "git " + o.Sub
		}
		line("    %s (%s): %s", o.Option, where, o.Reason)
	}
	line("  paths: every argument git may open as a file is confined to the project root, and so are")
	line("    the outputs of git format-patch -o, git archive -o and --output")
	line("  always runs with: %s", strings.Join(d.Harden, " "))
	line("  the allowed forms also with: %s", strings.Join(d.HardenReadOnly, " "))
	line("    and %s after a subcommand that can show a diff", strings.Join(d.AfterSubcommand, " "))
	line("  environment: %s GIT_DIR=ROOT/.git GIT_WORK_TREE=ROOT GIT_CEILING_DIRECTORIES=(ROOT's parent)", strings.Join(d.Env, " "))
	return b.String()
}

// wrap writes items, joined with ", ", as lines of at most about 100
// columns, each starting with indent.
func wrap(b *strings.Builder, indent string, items []string) {
	cur := indent
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		if cur != indent && len(cur)+1+len(it) > 100 {
			b.WriteString(cur + "\n")
			cur = indent
		}
		if cur != indent {
			cur += " "
		}
		cur += it
	}
	b.WriteString(cur + "\n")
}
