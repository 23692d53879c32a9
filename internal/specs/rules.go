package specs

// RuleInfo documents one rule for the people and models who meet it:
// docs/rules.md and `clada prompt` are built from these lists, and a test
// fails when a Rule constant is missing from them. Git verdicts carry the
// codes of gitrules.Rules.
type RuleInfo struct {
	Rule     Rule
	Decision string // what the rule decides: "allow", "ask", "deny", or two of them joined with " or "
	Trigger  string // what makes clada give this rule, in a few words
	Advice   string // what the model should do instead; "" when nothing is refused
}

// Rules returns every rule code this package produces, in the order
// docs/rules.md lists them.
func Rules() []RuleInfo {
	return []RuleInfo{
		{RuleHardBlock, "deny",
			"a built-in hard block: sudo, su, doas, mkfs*, dd, shutdown, reboot, halt, poweroff, rm of / or ~ or the root, chmod -R/chown -R of / or the root, also behind env, timeout, nice …",
			"do not try another spelling; tell the person what you need and why"},
		{RuleSelfPermission, "deny",
			"clada allow, block, forget, trust, untrust or init, clada run or check --trust-project, or clada hook install or uninstall, also behind wrappers and in sh -c; not switched off with hard_blocks",
			"ask the person to run it themselves if it is needed"},
		{RulePathOutsideRoot, "deny",
			"a path argument, a dir attribute or a path-like program that resolves outside the project root (symlinks followed), or starts with ~",
			"use paths inside the project, relative to the block's directory"},
		{RuleProtectedPath, "deny",
			"a command that would write into .git/ or .clada/, or into an agent's settings directory (.claude/, .gemini/, .cursor/, .codex/, anywhere in the project), or through a link into them",
			"leave .git/, .clada/ and the agents' settings alone; git commands change the repository, and only the person changes clada's and the agents' settings"},
		{RuleUnknownFlag, "deny",
			"a flag the command's spec does not list or forbids (go test -exec, tar --to-command, tree -o, grep -R …)",
			"use the flags `clada specs NAME` lists; long flags must be written in full"},
		{RuleFlagValue, "deny",
			"a flag value of the wrong type (head -n abc) or a missing value; a file mode that sets the setuid or setgid bit (chmod u+s, mkdir -m 2755), or copied from a file that has one (chmod --reference, cp -p, cp -a)",
			"give the value the flag expects; write modes without the s bits (755, u+x)"},
		{RuleOptionAfterOperand, "deny",
			"on macOS and the BSDs (or with --os darwin|freebsd), an option after the first operand (touch a.txt -t x, ls . --hide /etc): BSD getopt reads it as a file name, GNU as an option",
			"put every option before the first operand; name a file that starts with - as ./-name"},
		{RuleTooManyPaths, "deny",
			"more path arguments than the spec allows (pwd x), or not the exact number (diff a)",
			"give the number of paths the command takes"},
		{RuleSpec, "allow or deny",
			"allow: the command fits its spec (or git's read-only rules); deny: another spec failure, such as an operand in the wrong place",
			"follow the advice in the report"},
		{RuleWrapper, "ask or deny",
			"ask: a program that runs other programs whatever it runs (xargs, sh/bash -c, python -c, node -e …), or a simple wrapper (env, nice, timeout, time, stdbuf, nohup) whose own words change what runs (env PATH=…, env -S, an option clada does not know); deny: more than 8 wrappers inside each other",
			"run the program directly, or leave out the setting; otherwise the person must approve it"},
		{RuleSpecAsk, "ask",
			"a command that fits its spec, and the spec says the person decides: a project runner (go test, go build, npm test, npm run NAME, cargo build, make, pytest), an asked form (tar -x, find -exec, file -z, go env -w), a subcommand or flag a runner's spec does not know, sed where the installed program has no --sandbox, or an awk program that runs commands, writes or reads other files, or reads the environment",
			"wait for the person to approve; a pattern such as `clada allow 'go test *'` consents from then on"},
		{RuleGitInclude, "ask",
			"your git configuration includes a file inside the project (or is itself there), so a file a command can write is git configuration; every git command is asked",
			"wait for the person; they can move the included file out of the project or into .git/"},
		{RuleNotFound, "allow or ask",
			"at run time only: the program is not installed here, or a path-like program (./x) is missing, a directory or not executable; it is reported like exit 127 (126), never asked, and the decision stays the policy's (a dry run notes \"not installed here\")",
			"use a program that is installed here, or ask the person to install it"},
	}
}
