package gitrules

// RuleInfo documents one rule for the people and models who meet it:
// docs/rules.md and `clada prompt` are built from these lists, and a test
// fails when a Rule constant is missing from them.
type RuleInfo struct {
	Rule     Rule
	Decision string // what the rule decides: "allow", "ask", "deny", or two of them joined with " or "
	Trigger  string // what makes clada give this rule, in a few words
	Advice   string // what the model should do instead
}

// Rules returns every rule code this package produces, in the order
// docs/rules.md lists them.
func Rules() []RuleInfo {
	return []RuleInfo{
		{RuleGitSubcommand, "ask or deny",
			"a git subcommand outside the read-only table (commit, push, checkout …) is asked; a forbidden form of a listed one (branch -D, stash pop) is denied",
			"use the read-only subcommands (status, diff, log, show, branch, ls-files, rev-parse, blame, stash list/show); the person approves the rest"},
		{RuleGitOption, "deny",
			"a git option that redirects git or makes it write files or run programs (-c, -C, --git-dir, --work-tree, --output, --ext-diff, --textconv …), or one the table does not know; options that run a program the model names (--upload-pack, --exec, rebase -x, grep -O …) are denied on every subcommand, asked ones too",
			"leave the option out; run git from the project root with dir= for a subdirectory"},
	}
}
