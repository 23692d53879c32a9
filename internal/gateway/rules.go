package gateway

import (
	"github.com/clada/clada/internal/gitrules"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/specs"
)

// RuleInfo documents one rule code a [Verdict] can carry.
type RuleInfo struct {
	Code     string
	Stage    string // the package whose checks give it: parser, gateway, specs or gitrules
	Decision string // "allow", "ask", "deny", or two of them joined with " or "
	Trigger  string // what makes clada give this rule
	Advice   string // what the model should do instead; "" when nothing is refused
}

// gatewayRules are the rules of the decision order itself. RuleCSLSyntax
// and RuleNotFound are listed by the parser and specs, which give them too.
var gatewayRules = []RuleInfo{
	{Code: RuleBlockedPattern, Decision: "deny",
		Trigger: "the command matches a pattern in `blocked` of .clada/commands.toml",
		Advice:  "do not run this command; if it is needed, tell the person, who can remove the pattern with `clada forget`"},
	{Code: RuleDirNotFound, Decision: "deny",
		Trigger: "the dir attribute names no directory inside the project",
		Advice:  "create the directory first, or fix dir (it is relative to the directory clada runs in, the project root or a directory below it)"},
	{Code: RuleAllowedPattern, Decision: "allow",
		Trigger: "the command would be asked, and a pattern in `allowed` of .clada/commands.toml covers it (a pattern never overrides a denial)"},
	{Code: RuleNotRestorable, Decision: "ask",
		Trigger: "the command deletes or replaces existing files (rm, rm -r, mv or cp onto a file, sed -i, an output option such as sort -o, the patches git format-patch writes, the directory tar -x extracts into) and git cannot restore them all: untracked, ignored, modified or uncommitted files, or no git repository",
		Advice:  "commit the files first, or leave them alone; otherwise the person must approve it"},
	{Code: RulePatternWord, Decision: "ask",
		Trigger: "a prefix pattern in `allowed` covers the command, but a word its * stands for resolves outside the project or into .git/ or .clada/ (../.., /tmp/x, --out=/x, -o/x)",
		Advice:  "use paths inside the project; otherwise the person must approve it"},
	{Code: RuleNotInSpecs, Decision: "ask",
		Trigger: "no spec covers the program (node, ruby, docker, curl …)",
		Advice:  "the person approves it at the prompt or with `clada allow`; prefer commands the specs allow"},
	{Code: RuleSecret, Decision: "ask",
		Trigger: "a command the rules would allow opens a file that usually holds secrets: .env, .env.*, *.pem, *.key, id_rsa*, id_ed25519*, .netrc, .npmrc, .pypirc, .git/config …, plus secrets = [...] in .clada/config.toml",
		Advice:  "leave secrets alone unless the task needs them; otherwise wait for the person"},
	{Code: RuleProjectProgram, Decision: "ask",
		Trigger: "a bare program name that PATH resolves to a file inside the project (.venv/bin, node_modules/.bin, direnv's PATH_add): project code, not the system program a spec describes",
		Advice:  "wait for the person; to run the system program, the person takes the project's directory off PATH"},
	{Code: RuleProgramOutside, Decision: "ask",
		Trigger: "a program named by a path outside the project (/opt/x/bin/tool) that is not the file PATH finds for its name and lies where the person can write (a program PATH finds, or one in a directory nobody but the administrator writes, is judged as that program)",
		Advice:  "run the program by its name, as PATH finds it; otherwise the person must approve it"},
	{Code: RuleReadOutside, Decision: "ask",
		Trigger: "a command the rules would allow reads a file or directory outside the project and every granted directory (an operand, an option's file, `< FILE`); a credential store (~/.ssh, ~/.aws …) or a file the secrets rule names stays refused (path-outside-root), and so does any write outside. Only an exact pattern covers such a command",
		Advice:  "read files inside the project when you can; otherwise wait for the person (who can grant the directory for good: dirs in .clada/config.toml)"},
	{Code: RuleVersionQuery, Decision: "allow",
		Trigger: "a program without a spec given only --version or only --help, which PATH finds outside the project and which is no launcher that runs what a project file names (rustup's proxies, mvn, yarn, a version manager's shim, a node script …)"},
	{Code: RuleUntrusted, Decision: "ask",
		Trigger: "untrusted mode (--untrusted or untrusted = true): every command the specs would allow is asked",
		Advice:  "wait for the person to approve each command"},
	{Code: RuleSelfExec, Decision: "deny",
		Trigger: "a command that runs clada exec with an option exec does not know, no command, or a --root naming another project (a correct clada exec -- X is decided as X); in an agent's hook, clada exec of a command that needs approval",
		Advice:  "write the command itself, without clada exec (an asked command is then asked)"},
	{Code: RuleComposition, Decision: "allow",
		Trigger: "a command line that is a composition (pipes, `&&` `||` `;`, `cd DIR`, redirections, here-documents, NAME=value prefixes, brace lists, globs) in clada hook, exec, check or the MCP tools (in RUN blocks with compose = true), every part of which is allowed on its own; otherwise the strictest part decides, and the reason names it",
		Advice:  "nothing to do: clada runs the parts itself, without a shell"},
	{Code: RuleRedirectTarget, Decision: "deny",
		Trigger: "a redirection of a composition writes to a directory",
		Advice:  "name a file"},
	{Code: RuleError, Decision: "deny",
		Trigger: "a failure clada did not foresee while deciding",
		Advice:  "report it to the person; the reason says what failed"},
}

// Rules returns every rule code a Verdict can carry, each once: the
// parser's, the gateway's own, the specs' and git's, in the order
// docs/rules.md lists them. `clada prompt` and docs/rules.md are built
// from it, and a test keeps it equal to the Rule constants in the code.
func Rules() []RuleInfo {
	var all []RuleInfo
	for _, r := range parser.Rules() {
		all = append(all, RuleInfo{string(r.Rule), "parser", r.Decision, r.Trigger, r.Advice})
	}
	for _, r := range gatewayRules {
		r.Stage = "gateway"
		all = append(all, r)
	}
	for _, r := range specs.Rules() {
		all = append(all, RuleInfo{string(r.Rule), "specs", r.Decision, r.Trigger, r.Advice})
	}
	for _, r := range gitrules.Rules() {
		all = append(all, RuleInfo{string(r.Rule), "gitrules", r.Decision, r.Trigger, r.Advice})
	}
	return all
}
