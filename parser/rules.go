package parser

// RuleInfo documents one rule for the people and models who meet it:
// docs/rules.md and `clada prompt` are built from these lists, and a test
// fails when a Rule constant is missing from them.
type RuleInfo struct {
	Rule     Rule
	Decision string // what the rule decides: "allow", "ask", "deny", or two of them joined with " or "
	Trigger  string // what makes clada give this rule, in a few words
	Advice   string // what the model should write instead; "" when nothing is refused
}

// Rules returns every rule code this package produces, in the order
// docs/rules.md lists them. Every one of them denies: a body the parser
// refuses never runs and cannot be approved.
func Rules() []RuleInfo {
	return []RuleInfo{
		{RuleCSLSyntax, "deny",
			"a RUN block the CSL format rejects: two commands, a code fence, an empty body, an unclosed quote, an attribute other than dir (in a document this is a block error: nothing runs)",
			"write exactly one command between `<---RUN--->` and `<---END--->`, each marker alone on its line"},
		{RuleShellSyntax, "deny",
			"pipes `|`, chaining `&&` `||` `;`, background `&`, `!`, subshells, `{ }`, `if` `for` `while` `case`, functions, `[[ ]]`, `(( ))`, `time`",
			"one command per RUN block; put steps that depend on each other in a TASKS group; instead of `cd DIR && …` use `<---RUN dir=\"DIR\"--->`"},
		{RuleRedirect, "deny",
			"redirections `>` `>>` `<` `2>&1`, here-documents and here-strings",
			"drop the redirection: clada captures stdout and stderr and shows them; pass input files as arguments"},
		{RuleExpansion, "deny",
			"`$VAR`, `${…}`, `$((…))`, a leading `~`, brace expansion `{a,b}` `{1..3}`, `$'…'` and `$\"…\"`",
			"write every value out literally; write paths relative to the project root"},
		{RuleSubstitution, "deny",
			"command substitution `$(…)` and backticks, process substitution `<(…)` `>(…)`",
			"run the inner command in its own RUN block first, then write its result literally"},
		{RuleGlob, "deny",
			"unquoted `*`, `?`, `[…]` and extended globs",
			"name the files, or list them first with ls or find; quote a `*` that is meant literally"},
		{RuleAssignment, "deny",
			"`NAME=value` before the command",
			"pass the setting as a flag; the person sets the environment before starting clada"},
		{RuleBuiltin, "deny",
			"shell builtins that mean nothing without a shell: cd, export, source, eval, exec, set, alias …",
			"use the dir attribute for cd; write the command itself for eval or exec"},
		{RuleCharacter, "deny",
			"control characters, terminal escapes, bidi and zero-width characters; non-ASCII letters in the program name",
			"write arguments with visible characters only and program names in plain ASCII"},
		{RuleArgTooLong, "deny",
			"an argument over 128 KiB",
			"put large content in a file and pass its name"},
		{RuleLookalike, "deny",
			"an argument that starts with a Unicode dash or minus that looks like `-` (rm ‐rf, with U+2010), or a non-ASCII character right after a leading `-` (rm -ｒf)",
			"write flags with the ASCII hyphen-minus `-` and ASCII letters"},
		{RuleBackslash, "deny",
			"on Windows (or with --os windows), a word whose backslashes the bash syntax removes: cat calc\\calc.go would reach cat as calccalc.go",
			"write paths with `/`, which Windows programs accept; put a backslash that must stay in single quotes"},
	}
}
