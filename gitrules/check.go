package gitrules

import (
	"fmt"
	"strings"
)

// Rule is a stable machine code for a git decision. Rules appear in JSON
// reports, so they never change.
type Rule string

const (
	RuleGitSubcommand Rule = "git-subcommand" // subcommand not in the table (Ask) or a forbidden form (Deny)
	RuleGitOption     Rule = "git-option"     // a global or subcommand option that is denied or unknown
)

// Outcome is the decision for one git command line. The zero value is Allow,
// so a Verdict is only ever built by [Check].
type Outcome int

const (
	Allow Outcome = iota
	Ask
	Deny
)

// String returns "allow", "ask" or "deny".
func (o Outcome) String() string {
	switch o {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Verdict is the result of [Check].
type Verdict struct {
	Outcome    Outcome
	Rule       Rule     // set for Ask and Deny, "" for Allow
	Arg        string   // the offending argument, "" for Allow
	Reason     string   // why: "git push is not in clada's read-only git table", "--output writes a file"
	Advice     string   // what the model should do instead; "" for Allow
	Subcommand string   // e.g. "log", "stash list"; "" when none was given
	Paths      []string // arguments git may open as files, for the caller to confine to the project root; nil when none
	// Writes are files or directories git writes (an asked git
	// format-patch -o DIR, git archive --output=FILE), for the caller to
	// confine as written; nil when none. Paths and Writes are set for Ask
	// too: an asked command may still not read or write outside the root.
	Writes []string
}

// Err returns the verdict as a *[DeniedError] for Deny and Ask, nil for Allow.
func (v Verdict) Err() error {
	if v.Outcome == Allow {
		return nil
	}
	return &DeniedError{Rule: v.Rule, Arg: v.Arg, Reason: v.Reason, Advice: v.Advice}
}

// DeniedError reports a git command line that gitrules does not allow.
type DeniedError struct {
	Rule   Rule   // stable code, e.g. RuleGitOption
	Arg    string // the offending argument, "" when the whole command is meant
	Reason string // "--output writes a file"
	Advice string // "drop the option: clada captures git's output"
}

func (e *DeniedError) Error() string { return "git: " + e.Reason }

// RuleCode returns the stable rule code for reports.
func (e *DeniedError) RuleCode() string { return string(e.Rule) }

// Hint returns the advice for the model.
func (e *DeniedError) Hint() string { return e.Advice }

// Global options allowed before the subcommand. Keep sorted.
var globalAllowed = map[string]bool{
	"--glob-pathspecs":     true,
	"--icase-pathspecs":    true,
	"--literal-pathspecs":  true,
	"--no-optional-locks":  true,
	"--no-pager":           true,
	"--no-replace-objects": true,
	"--noglob-pathspecs":   true,
	"-P":                   true,
}

type globalDenial struct{ reason, advice string }

// Global options denied before the subcommand, by name without "=value".
// Keep sorted.
var globalDenied = map[string]globalDenial{
	"--attr-source":  {"reads attributes, which name filter and diff programs, from elsewhere", "drop the option"},
	"--bare":         {"treats the directory as a bare repository", "run git in the project's working tree"},
	"--config-env":   {"sets git configuration, which can name programs for git to run", "drop the option; git configuration cannot be changed from a RUN block"},
	"--exec-path":    {"changes where git finds the programs it runs", "drop the option"},
	"--git-dir":      {"points git at another repository", "run git on the project's own repository; use the dir attribute for a subdirectory"},
	"--list-cmds":    {"is an internal option", "drop the option"},
	"--namespace":    {"changes which refs git sees and writes", "drop the option"},
	"--paginate":     {"starts a pager program", "drop the option: clada captures output without a pager"},
	"--shallow-file": {"makes git read another shallow file", "drop the option"},
	"--super-prefix": {"is an internal option", "drop the option"},
	"--work-tree":    {"points git at another working tree", "run git in the project; use the dir attribute for a subdirectory"},
	"-C":             {"makes git run in another directory", "use the RUN block's dir attribute instead of -C"},
	"-c":             {"sets git configuration, which can name programs for git to run", "drop -c; git configuration cannot be changed from a RUN block"},
	"-p":             {"starts a pager program", "drop -p: clada captures output without a pager"},
}

// globalTakesValue lists denied globals that take the next word as their value
// when written without "=", so [Harden] can find the subcommand word.
var globalTakesValue = map[string]bool{
	"--config-env": true, "--git-dir": true, "--namespace": true,
	"--super-prefix": true, "--work-tree": true, "-C": true, "-c": true,
	"--attr-source": true, "--shallow-file": true, "--list-cmds": true,
}

// globalName returns the name of a global option word: "-c" for
// "-ccore.pager=x", "--git-dir" for "--git-dir=/x".
func globalName(a string) string {
	if strings.HasPrefix(a, "--") {
		n, _, _ := strings.Cut(a, "=")
		return n
	}
	if len(a) > 2 {
		return a[:2]
	}
	return a
}

// Check decides whether git may run with args (argv without the leading
// "git"). See the package documentation for the rules.
func Check(args []string) Verdict {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		if globalAllowed[a] {
			continue
		}
		switch a {
		case "--version", "-v":
			rest := args[i+1:]
			if len(rest) == 0 || (len(rest) == 1 && rest[0] == "--build-options") {
				return Verdict{Outcome: Allow, Subcommand: "version"}
			}
			return Verdict{Outcome: Deny, Rule: RuleGitOption, Arg: rest[0], Subcommand: "version",
				Reason: fmt.Sprintf("git %s takes no argument %q", a, rest[0]),
				Advice: "write git --version alone"}
		case "--help", "-h":
			return Verdict{Outcome: Ask, Rule: RuleGitSubcommand, Arg: a, Subcommand: "help",
				Reason: fmt.Sprintf("git %s starts man or a browser", a),
				Advice: "read the documentation another way, or wait for the person's approval"}
		}
		name := globalName(a)
		if d, ok := globalDenied[name]; ok {
			return Verdict{Outcome: Deny, Rule: RuleGitOption, Arg: a,
				Reason: fmt.Sprintf("global option %s %s", name, d.reason), Advice: d.advice}
		}
		return Verdict{Outcome: Deny, Rule: RuleGitOption, Arg: a,
			Reason: fmt.Sprintf("%s is not a global git option clada allows", name),
			Advice: "allowed before the subcommand: --no-pager, -P, --literal-pathspecs, --no-optional-locks; put subcommand options after the subcommand"}
	}
	if i == len(args) {
		// "git" alone prints its usage and changes nothing.
		return Verdict{Outcome: Allow}
	}
	sub, rest := args[i], args[i+1:]
	if sub == "stash" {
		return checkStash(rest)
	}
	t, ok := tables[sub]
	if !ok {
		return askScreened(sub, rest)
	}
	return t().check(rest)
}

// askScreened is the Ask verdict for subcommand sub, unless one of its
// arguments is an option screened by [screenPrograms].
func askScreened(sub string, rest []string) Verdict {
	v := askSubcommand(sub)
	if d := screenPrograms(sub, rest, &v); d != nil {
		return *d
	}
	return v
}

func askSubcommand(sub string) Verdict {
	return Verdict{Outcome: Ask, Rule: RuleGitSubcommand, Arg: sub, Subcommand: sub,
		Reason: fmt.Sprintf("git %s is not in clada's read-only git table", sub),
		Advice: "the person at the terminal is asked; read-only git needs no approval: status, diff, log, show, branch, ls-files, rev-parse, blame, stash list, stash show"}
}

// checkStash handles "git stash ...": list and show are read-only, forms that
// create a stash are Ask (like commit), forms that apply or destroy stashes
// are Deny.
func checkStash(args []string) Verdict {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		// "git stash" and "git stash -m msg" mean "git stash push".
		v := askScreened("stash", args)
		if v.Outcome == Ask {
			v.Reason = "git stash without list or show creates a stash and resets the working tree"
		}
		return v
	}
	switch w := args[0]; w {
	case "list":
		return stashListTable().check(args[1:])
	case "show":
		return stashShowTable().check(args[1:])
	case "apply", "branch", "clear", "drop", "pop":
		return Verdict{Outcome: Deny, Rule: RuleGitSubcommand, Arg: w, Subcommand: "stash " + w,
			Reason: fmt.Sprintf("git stash %s changes the working tree or deletes stashes", w),
			Advice: "only git stash list and git stash show are allowed; leave applying or dropping stashes to the person"}
	default:
		return askScreened("stash "+w, args[1:])
	}
}

// isValueWordOption reports whether a separate value word looks like an
// option. Such values are denied so a value-taking flag can never hide an
// option from the screening.
func isValueWordOption(w string) bool { return strings.HasPrefix(w, "-") }

// check screens the arguments after the subcommand word.
func (t *table) check(args []string) Verdict {
	var paths, positionals []string
	listMode := false
	deny := func(rule Rule, arg, reason, advice string) Verdict {
		return Verdict{Outcome: Deny, Rule: rule, Arg: arg, Subcommand: t.name, Reason: reason, Advice: advice}
	}
	// value fetches a required value: attached, or the next word.
	value := func(i *int, attached string, hasAttached, lastArgDefault bool, a, shown string) (string, *Verdict) {
		if hasAttached {
			return attached, nil
		}
		if *i+1 >= len(args) {
			if lastArgDefault {
				return "", nil
			}
			v := deny(RuleGitOption, a, fmt.Sprintf("%s needs a value", shown), fmt.Sprintf("write %s=<value>", shown))
			return "", &v
		}
		*i++
		w := args[*i]
		if isValueWordOption(w) {
			v := deny(RuleGitOption, w, fmt.Sprintf("the value %q of %s looks like an option", w, shown),
				fmt.Sprintf("attach the value: %s=<value> (or %s<value> for a short option)", shown, shown))
			return "", &v
		}
		return w, nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "--end-of-options" {
			rest := args[i+1:]
			if a == "--end-of-options" && len(rest) > 0 && rest[0] == "--" {
				// git log --end-of-options rev -- path: the later "--" still separates.
				rest = rest[1:]
			}
			for _, r := range rest {
				if a == "--end-of-options" && r == "--" {
					continue
				}
				positionals = append(positionals, r)
			}
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positionals = append(positionals, a)
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasEq := strings.Cut(a[2:], "=")
			full, o, ok, matches := t.lookupLong(name)
			if !ok {
				if len(matches) > 1 {
					if len(matches) > 4 {
						matches = append(matches[:4], "...")
					}
					return deny(RuleGitOption, a,
						fmt.Sprintf("--%s is an ambiguous abbreviation (--%s)", name, strings.Join(matches, ", --")),
						"write the option in full; allowed "+t.name+" options include "+t.advice)
				}
				return deny(RuleGitOption, a, fmt.Sprintf("--%s is not a git %s option clada allows", name, t.name),
					"allowed "+t.name+" options include "+t.advice)
			}
			shown := "--" + full
			if full != name {
				shown = fmt.Sprintf("--%s (abbreviating --%s)", name, full)
			}
			switch o.kind {
			case kDeny:
				return deny(RuleGitOption, a, shown+" "+o.reason, o.advice)
			case kBool:
				if hasEq {
					return deny(RuleGitOption, a, shown+" takes no value", "write --"+full+" without =")
				}
			case kOptional:
			case kValue, kPath, kLineRange:
				w, bad := value(&i, val, hasEq, o.lastArgDefault, a, "--"+full)
				if bad != nil {
					return *bad
				}
				paths = appendValuePath(paths, o.kind, w)
			}
			if t == branchTable() && listModeLong[full] {
				listMode = true
			}
			continue
		}
		if t.digits && allDigits(a[1:]) {
			continue // log -5, diff -1
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			o, ok := t.short[c]
			if !ok {
				return deny(RuleGitOption, a, fmt.Sprintf("-%c is not a git %s option clada allows", c, t.name),
					"allowed "+t.name+" options include "+t.advice)
			}
			shown := "-" + string(c)
			if o.kind == kDeny {
				return deny(RuleGitOption, a, shown+" "+o.reason, o.advice)
			}
			if c == 'l' && t == branchTable() {
				listMode = true
			}
			if o.kind == kBool {
				continue
			}
			if o.kind != kOptional {
				rest := a[j+1:]
				w, bad := value(&i, rest, rest != "", o.lastArgDefault, a, shown)
				if bad != nil {
					return *bad
				}
				paths = appendValuePath(paths, o.kind, w)
			}
			break // the rest of the word was the value
		}
	}
	if t.positionals == posPatterns {
		if len(positionals) > 0 && !listMode {
			return deny(RuleGitSubcommand, positionals[0],
				fmt.Sprintf("git branch %s creates a branch", positionals[0]),
				"list branches matching a pattern with git branch --list <pattern>; creating a branch needs the person's approval")
		}
		return Verdict{Outcome: Allow, Subcommand: t.name, Paths: paths}
	}
	paths = append(paths, positionals...)
	return Verdict{Outcome: Allow, Subcommand: t.name, Paths: paths}
}

// listModeLong are branch options that make git branch list (so positional
// words are patterns, not names of branches to create).
var listModeLong = map[string]bool{
	"contains": true, "list": true, "merged": true, "no-contains": true,
	"no-merged": true, "points-at": true,
}

func appendValuePath(paths []string, k kind, w string) []string {
	switch k {
	case kPath:
		return append(paths, w)
	case kLineRange:
		// <start>,<end>:<file> or :<funcname>:<file>
		if i := strings.LastIndexByte(w, ':'); i >= 0 {
			return append(paths, w[i+1:])
		}
	}
	return paths
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
