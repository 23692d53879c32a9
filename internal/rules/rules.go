package rules

import "strconv"

// Rule is the stable machine code of a verdict. Rule codes appear in JSON
// reports, the decision log and patterns people write, so they never
// change.
type Rule string

// The rule codes, in the order docs/rules.md lists them.
const (
	// The parser's: a command line a shell would have to interpret.
	CSLSyntax    Rule = "csl-syntax"
	ShellSyntax  Rule = "shell-syntax"
	Cd           Rule = "cd"
	Redirect     Rule = "redirect"
	Expansion    Rule = "expansion"
	Substitution Rule = "substitution"
	Glob         Rule = "glob"
	Assignment   Rule = "assignment"
	Builtin      Rule = "builtin"
	Character    Rule = "control-character"
	ArgTooLong   Rule = "argument-too-long"
	Lookalike    Rule = "lookalike"
	Backslash    Rule = "backslash"

	// The decision order's own (internal/gateway).
	BlockedPattern Rule = "blocked-pattern"
	DirNotFound    Rule = "dir-not-found"
	AllowedPattern Rule = "allowed-pattern"
	NotRestorable  Rule = "not-restorable"
	PatternWord    Rule = "pattern-word"
	NotInSpecs     Rule = "not-in-specs"
	Secret         Rule = "secret-file"
	ProjectProgram Rule = "project-program"
	ProgramOutside Rule = "program-outside"
	ReadOutside    Rule = "read-outside"
	VersionQuery   Rule = "version-query"
	Untrusted      Rule = "untrusted"
	SelfExec       Rule = "self-exec"
	Composition    Rule = "composition"
	RedirectTarget Rule = "redirect-target"
	Error          Rule = "error"

	// The specs' (internal/specs): flags, paths and hard blocks.
	HardBlock          Rule = "hard-block"
	SelfPermission     Rule = "self-permission"
	PathOutsideRoot    Rule = "path-outside-root"
	ProtectedPath      Rule = "protected-path"
	UnknownFlag        Rule = "unknown-flag"
	FlagValue          Rule = "flag-value"
	OptionAfterOperand Rule = "option-after-operand"
	TooManyPaths       Rule = "too-many-paths"
	Spec               Rule = "spec"
	Wrapper            Rule = "wrapper"
	SpecAsk            Rule = "spec-ask"
	GitInclude         Rule = "git-config-include"
	NotFound           Rule = "program-not-found"

	// git's read-only table (internal/gitrules).
	GitSubcommand Rule = "git-subcommand"
	GitOption     Rule = "git-option"
)

// Stage says which package's checks give a rule.
type Stage string

// The stages, in the order clada decides.
const (
	Parser   Stage = "parser"   // internal/parser: the command line itself
	Gateway  Stage = "gateway"  // internal/gateway: the decision order, patterns, confinement of dir
	Specs    Stage = "specs"    // internal/specs: the command's spec, paths, hard blocks
	GitRules Stage = "gitrules" // internal/gitrules: git's read-only table
)

// Info documents one rule for the people and models who meet it.
type Info struct {
	Rule     Rule
	Stage    Stage  // the package whose checks give it
	Decision string // what the rule decides: "allow", "ask", "deny", or two of them joined with " or "
	Trigger  string // what makes clada give this rule, in a few words
	Advice   string // what the model should do instead; "" when nothing is refused
}

// All returns every rule, each once, in the order docs/rules.md lists
// them: the parser's, the gateway's, the specs' and git's.
func All() []Info {
	return []Info{
		{CSLSyntax, Parser, "deny",
			"a RUN block the CSL format rejects: two commands, a code fence, an empty body, an unclosed quote, an attribute other than dir (in a document this is a block error: nothing runs)",
			"write exactly one command between `<---RUN--->` and `<---END--->`, each marker alone on its line"},
		{ShellSyntax, Parser, "deny",
			"background `&`, `!`, subshells, `{ }`, `if` `for` `while` `case`, functions, `[[ ]]`, `(( ))`, `time`; in a RUN block (unless compose = true) also pipes `|` and chaining `&&` `||` `;`",
			"run the commands one at a time and decide from their output; in a hook, exec, check or MCP call `a | b`, `a && b` and `cd DIR && …` are accepted; in a RUN block use one command per block, a TASKS group and the dir attribute"},
		{Cd, Parser, "deny",
			"in a command line that is a composition: a bare `cd`, `cd -`, `cd ~`, cd with options or two directories, cd inside a pipeline or with a redirection, or a cd that ends the line elsewhere than it started (the directory would not carry over)",
			"write `cd DIR && COMMAND` with a directory inside the project; the directory lasts for the rest of that line only"},
		{Redirect, Parser, "deny",
			"a redirection clada does not run: descriptors other than 0, 1 and 2, `<>`, `>&-`; in a RUN block (unless compose = true) every redirection `>` `>>` `<` `2>&1`, here-document and here-string",
			"redirect only stdin, stdout and stderr, to files inside the project; in a RUN block drop the redirection: clada captures stdout and stderr and shows them"},
		{Expansion, Parser, "deny",
			"`$VAR`, `${…}`, `$((…))`, a leading `~`, brace sequences `{1..3}`, `$'…'` and `$\"…\"`, a here-document with an unquoted delimiter whose text holds `$`; in a RUN block (unless compose = true) also brace lists `{a,b}`",
			"write every value out literally; write paths relative to the project root"},
		{Substitution, Parser, "deny",
			"command substitution `$(…)` and backticks (in a composition all but `\"$(cat <<'EOF' … EOF)\"`, whose value is its literal text), process substitution `<(…)` `>(…)`",
			"run the inner command in its own RUN block first, then write its result literally"},
		{Glob, Parser, "deny",
			"extended globs, and a glob as the program name; in a RUN block (unless compose = true) every unquoted `*`, `?`, `[…]` (a composition expands them itself, inside the project)",
			"name the files, or list them first with ls or find; quote a `*` that is meant literally"},
		{Assignment, Parser, "deny",
			"`NAME=value` with no command after it, or a `+=` or array assignment; in a RUN block (unless compose = true) any `NAME=value` before the command (a composition decides it as `env NAME=value command`)",
			"pass the setting as a flag; the person sets the environment before starting clada"},
		{Builtin, Parser, "deny",
			"shell builtins that mean nothing without a shell: export, source, eval, exec, set, alias …, and cd in a RUN block (a composition accepts `cd DIR && …`)",
			"use the dir attribute for cd; write the command itself for eval or exec"},
		{Character, Parser, "deny",
			"control characters, terminal escapes, bidi and zero-width characters; non-ASCII letters in the program name",
			"write arguments with visible characters only and program names in plain ASCII"},
		{ArgTooLong, Parser, "deny",
			"an argument over 128 KiB",
			"put large content in a file and pass its name"},
		{Lookalike, Parser, "deny",
			"an argument that starts with a Unicode dash or minus that looks like `-` (rm ‐rf, with U+2010), or a non-ASCII character right after a leading `-` (rm -ｒf)",
			"write flags with the ASCII hyphen-minus `-` and ASCII letters"},
		{Backslash, Parser, "deny",
			"on Windows (or with --os windows), a word whose backslashes the bash syntax removes: cat calc\\calc.go would reach cat as calccalc.go",
			"write paths with `/`, which Windows programs accept; put a backslash that must stay in single quotes"},
		{BlockedPattern, Gateway, "deny",
			"the command matches a pattern in `blocked` of .clada/commands.toml",
			"do not run this command; if it is needed, tell the person, who can remove the pattern with `clada forget`"},
		{DirNotFound, Gateway, "deny",
			"the dir attribute names no directory inside the project",
			"create the directory first, or fix dir (it is relative to the directory clada runs in, the project root or a directory below it)"},
		{AllowedPattern, Gateway, "allow",
			"the command would be asked, and a pattern in `allowed` of .clada/commands.toml covers it (a pattern never overrides a denial)",
			""},
		{NotRestorable, Gateway, "ask",
			"the command deletes or replaces existing files (rm, rm -r, mv or cp onto a file, sed -i, an output option such as sort -o, the patches git format-patch writes, the directory tar -x extracts into) and git cannot restore them all: untracked, ignored, modified or uncommitted files, or no git repository",
			"commit the files first, or leave them alone; otherwise the person must approve it"},
		{PatternWord, Gateway, "ask",
			"a prefix pattern in `allowed` covers the command, but a word its * stands for resolves outside the project or into .git/ or .clada/ (../.., /tmp/x, --out=/x, -o/x)",
			"use paths inside the project; otherwise the person must approve it"},
		{NotInSpecs, Gateway, "ask",
			"no spec covers the program (node, ruby, docker, curl …)",
			"the person approves it at the prompt or with `clada allow`; prefer commands the specs allow"},
		{Secret, Gateway, "ask",
			"a command the rules would allow opens a file that usually holds secrets: .env, .env.*, *.pem, *.key, id_rsa*, id_ed25519*, .netrc, .npmrc, .pypirc, .git/config …, plus secrets = [...] in .clada/config.toml",
			"leave secrets alone unless the task needs them; otherwise wait for the person"},
		{ProjectProgram, Gateway, "ask",
			"a bare program name that PATH resolves to a file inside the project (.venv/bin, node_modules/.bin, direnv's PATH_add): project code, not the system program a spec describes",
			"wait for the person; to run the system program, the person takes the project's directory off PATH"},
		{ProgramOutside, Gateway, "ask",
			"a program named by a path outside the project (/opt/x/bin/tool) that is not the file PATH finds for its name and lies where the person can write (a program PATH finds, or one in a directory nobody but the administrator writes, is judged as that program)",
			"run the program by its name, as PATH finds it; otherwise the person must approve it"},
		{ReadOutside, Gateway, "ask",
			"a command the rules would allow reads a file or directory outside the project and every granted directory (an operand, an option's file, `< FILE`); a credential store (~/.ssh, ~/.aws …) or a file the secrets rule names stays refused (path-outside-root), and so does any write outside. Only an exact pattern covers such a command",
			"read files inside the project when you can; otherwise wait for the person (who can grant the directory for good: dirs in .clada/config.toml)"},
		{VersionQuery, Gateway, "allow",
			"a program without a spec given only --version or only --help, which PATH finds outside the project and which is no launcher that runs what a project file names (rustup's proxies, mvn, yarn, a version manager's shim, a node script …)",
			""},
		{Untrusted, Gateway, "ask",
			"untrusted mode (--untrusted or untrusted = true): every command the specs would allow is asked",
			"wait for the person to approve each command"},
		{SelfExec, Gateway, "deny",
			"a command that runs clada exec with an option exec does not know, no command, or a --root naming another project (a correct clada exec -- X is decided as X); in an agent's hook, clada exec of a command that needs approval",
			"write the command itself, without clada exec (an asked command is then asked)"},
		{Composition, Gateway, "allow",
			"a command line that is a composition (pipes, `&&` `||` `;`, `cd DIR`, redirections, here-documents, NAME=value prefixes, brace lists, globs) in clada hook, exec, check or the MCP tools (in RUN blocks with compose = true), every part of which is allowed on its own; otherwise the strictest part decides, and the reason names it",
			"nothing to do: clada runs the parts itself, without a shell"},
		{RedirectTarget, Gateway, "deny",
			"a redirection of a composition writes to a directory",
			"name a file"},
		{Error, Gateway, "deny",
			"a failure clada did not foresee while deciding",
			"report it to the person; the reason says what failed"},
		{HardBlock, Specs, "deny",
			"a built-in hard block: sudo, su, doas, mkfs*, dd, shutdown, reboot, halt, poweroff, rm of / or ~ or the root, chmod -R/chown -R of / or the root, also behind env, timeout, nice …",
			"do not try another spelling; tell the person what you need and why"},
		{SelfPermission, Specs, "deny",
			"clada allow, block, forget, trust, untrust or init, clada run or check --trust-project, or clada hook install or uninstall, also behind wrappers and in sh -c; not switched off with hard_blocks",
			"ask the person to run it themselves if it is needed"},
		{PathOutsideRoot, Specs, "deny",
			"a path argument, a dir attribute or a path-like program that resolves outside the project root (symlinks followed), or starts with ~",
			"use paths inside the project, relative to the block's directory"},
		{ProtectedPath, Specs, "deny",
			"a command that would write into .git/ or .clada/, or into an agent's settings directory (.claude/, .gemini/, .cursor/, .codex/, anywhere in the project), or through a link into them",
			"leave .git/, .clada/ and the agents' settings alone; git commands change the repository, and only the person changes clada's and the agents' settings"},
		{UnknownFlag, Specs, "deny",
			"a flag the command's spec does not list or forbids (go test -exec, tar --to-command, tree -o, grep -R …)",
			"use the flags `clada specs NAME` lists; long flags must be written in full"},
		{FlagValue, Specs, "deny",
			"a flag value of the wrong type (head -n abc) or a missing value; a file mode that sets the setuid or setgid bit (chmod u+s, mkdir -m 2755), or copied from a file that has one (chmod --reference, cp -p, cp -a)",
			"give the value the flag expects; write modes without the s bits (755, u+x)"},
		{OptionAfterOperand, Specs, "deny",
			"on macOS and the BSDs (or with --os darwin|freebsd), an option after the first operand (touch a.txt -t x, ls . --hide /etc): BSD getopt reads it as a file name, GNU as an option",
			"put every option before the first operand; name a file that starts with - as ./-name"},
		{TooManyPaths, Specs, "deny",
			"more path arguments than the spec allows (pwd x), or not the exact number (diff a)",
			"give the number of paths the command takes"},
		{Spec, Specs, "allow or deny",
			"allow: the command fits its spec (or git's read-only rules); deny: another spec failure, such as an operand in the wrong place",
			"follow the advice in the report"},
		{Wrapper, Specs, "ask or deny",
			"ask: a program that runs other programs whatever it runs (xargs, sh/bash -c, python -c, node -e …), or a simple wrapper (env, nice, timeout, time, stdbuf, nohup) whose own words change what runs (env PATH=…, env -S, an option clada does not know); deny: more than 8 wrappers inside each other",
			"run the program directly, or leave out the setting; otherwise the person must approve it"},
		{SpecAsk, Specs, "ask",
			"a command that fits its spec, and the spec says the person decides: a project runner (go test, go build, npm test, npm run NAME, cargo build, make, pytest), an asked form (tar -x, find -exec, file -z, go env -w), a subcommand or flag a runner's spec does not know, sed where the installed program has no --sandbox, or an awk program that runs commands, writes or reads other files, or reads the environment",
			"wait for the person to approve; a pattern such as `clada allow 'go test *'` consents from then on"},
		{GitInclude, Specs, "ask",
			"your git configuration includes a file inside the project (or is itself there), so a file a command can write is git configuration; every git command is asked",
			"wait for the person; they can move the included file out of the project or into .git/"},
		{NotFound, Specs, "allow or ask",
			"at run time only: the program is not installed here, or a path-like program (./x) is missing, a directory or not executable; it is reported like exit 127 (126), never asked, and the decision stays the policy's (a dry run notes \"not installed here\")",
			"use a program that is installed here, or ask the person to install it"},
		{GitSubcommand, GitRules, "ask",
			"a git subcommand outside the read-only table (commit, push, checkout …), a risky form of a read (branch NAME, branch -d, tag v1, stash pop, clean -f, config KEY VALUE, remote add), or a read that would print a credential (config --get credential.helper)",
			"use git's reads (status, diff, log, show, grep, blame, branch, tag -l, shortlog, describe, reflog, config --get …); the person approves the rest"},
		{GitOption, GitRules, "deny",
			"a git option that redirects git or makes it write files or run programs (-c, -C, --git-dir, --work-tree, --output, --ext-diff, --textconv …), or one the table does not know; options that run a program the model names (--upload-pack, --exec, rebase -x, grep -O …) are denied on every subcommand, asked ones too",
			"leave the option out; run git from the project root with dir= for a subdirectory"},
	}
}

// Denied is a refusal, whichever stage gives it: the parser, the specs
// (and the hard blocks and path checks among them) and the gateway's
// pattern checks all return it, and the gateway reads any of them into
// its verdict with errors.As.
type Denied struct {
	Rule Rule   // e.g. UnknownFlag
	Word string // the offending word or argument as written; "" when the whole command is meant
	// Line and Col are where Word starts in the command line (1-based,
	// Col in bytes), set by the parser; 0 when unknown.
	Line, Col int
	Reason    string // what is wrong: "$HOME is parameter expansion"
	Advice    string // what the model should do instead
}

// Error returns the reason, after "LINE:COL: " when the position is
// known.
func (e *Denied) Error() string {
	if e.Line > 0 {
		return strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col) + ": " + e.Reason
	}
	return e.Reason
}
