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
		{RuleGitSubcommand, "ask",
			"a git subcommand outside the read-only table (commit, push, checkout …), a risky form of a read (branch NAME, branch -d, tag v1, stash pop, clean -f, config KEY VALUE, remote add), or a read that would print a credential (config --get credential.helper)",
			"use git's reads (status, diff, log, show, grep, blame, branch, tag -l, shortlog, describe, reflog, config --get …); the person approves the rest"},
		{RuleGitOption, "deny",
			"a git option that redirects git or makes it write files or run programs (-c, -C, --git-dir, --work-tree, --output, --ext-diff, --textconv …), or one the table does not know; options that run a program the model names (--upload-pack, --exec, rebase -x, grep -O …) are denied on every subcommand, asked ones too",
			"leave the option out; run git from the project root with dir= for a subdirectory"},
	}
}
