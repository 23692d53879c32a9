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
			"background `&`, `!`, subshells, `{ }`, `if` `for` `while` `case`, functions, `[[ ]]`, `(( ))`, `time`; in a RUN block (unless compose = true) also pipes `|` and chaining `&&` `||` `;`",
			"run the commands one at a time and decide from their output; in a hook, exec, check or MCP call `a | b`, `a && b` and `cd DIR && …` are accepted; in a RUN block use one command per block, a TASKS group and the dir attribute"},
		{RuleCd, "deny",
			"in a command line that is a composition: a bare `cd`, `cd -`, `cd ~`, cd with options or two directories, cd inside a pipeline or with a redirection, or a cd that ends the line elsewhere than it started (the directory would not carry over)",
			"write `cd DIR && COMMAND` with a directory inside the project; the directory lasts for the rest of that line only"},
		{RuleRedirect, "deny",
			"a redirection clada does not run: descriptors other than 0, 1 and 2, `<>`, `>&-`; in a RUN block (unless compose = true) every redirection `>` `>>` `<` `2>&1`, here-document and here-string",
			"redirect only stdin, stdout and stderr, to files inside the project; in a RUN block drop the redirection: clada captures stdout and stderr and shows them"},
		{RuleExpansion, "deny",
			"`$VAR`, `${…}`, `$((…))`, a leading `~`, brace sequences `{1..3}`, `$'…'` and `$\"…\"`, a here-document with an unquoted delimiter whose text holds `$`; in a RUN block (unless compose = true) also brace lists `{a,b}`",
			"write every value out literally; write paths relative to the project root"},
		{RuleSubstitution, "deny",
			"command substitution `$(…)` and backticks (in a composition all but `\"$(cat <<'EOF' … EOF)\"`, whose value is its literal text), process substitution `<(…)` `>(…)`",
			"run the inner command in its own RUN block first, then write its result literally"},
		{RuleGlob, "deny",
			"extended globs, and a glob as the program name; in a RUN block (unless compose = true) every unquoted `*`, `?`, `[…]` (a composition expands them itself, inside the project)",
			"name the files, or list them first with ls or find; quote a `*` that is meant literally"},
		{RuleAssignment, "deny",
			"`NAME=value` with no command after it, or a `+=` or array assignment; in a RUN block (unless compose = true) any `NAME=value` before the command (a composition decides it as `env NAME=value command`)",
			"pass the setting as a flag; the person sets the environment before starting clada"},
		{RuleBuiltin, "deny",
			"shell builtins that mean nothing without a shell: export, source, eval, exec, set, alias …, and cd in a RUN block (a composition accepts `cd DIR && …`)",
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
