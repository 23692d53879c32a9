package gitrules

import (
	"fmt"
	"strings"

	"github.com/clada/clada/internal/rules"
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
	Rule       rules.Rule // set for Ask and Deny, "" for Allow
	Arg        string     // the offending argument, "" for Allow
	Reason     string     // why: "git push is not in clada's read-only git table", "--output writes a file"
	Advice     string     // what the model should do instead; "" for Allow
	Subcommand string     // e.g. "log", "stash list"; "" when none was given
	Paths      []string   // arguments git may open as files, for the caller to confine to the project root; nil when none
	// Writes are files or directories git writes (git format-patch -o DIR,
	// an asked git archive --output=FILE), for the caller to confine as
	// written; nil when none. Paths and Writes are set for Ask too: an
	// asked command may still not read or write outside the root.
	Writes []string
	// Config, when set, says which configuration values the command
	// prints; the caller asks when they may hold credentials (see
	// [ConfigRead]). nil for commands that print none.
	Config *ConfigRead
	// Patches is set for git format-patch: which names it may write into
	// each directory of Writes (see [PatchNames]); nil for every other
	// command.
	Patches *PatchNames
	// Textconv, for Allow, is the option as written (git status -v) that
	// shows a diff with the textconv drivers of git configuration, which
	// nothing turns off; the caller asks when a driver is configured. ""
	// when none.
	Textconv string
}

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

// GlobalAllowed reports whether a is a global option clada allows before
// the subcommand (--no-pager, -P, --literal-pathspecs, …).
func GlobalAllowed(a string) bool { return globalAllowed[a] }

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
	"-C":             {"makes git run in another directory, which must be a directory inside the project (given as its own word: -C DIR)", "write -C DIR with a directory inside the project, or use the RUN block's dir attribute"},
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
			return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: rest[0], Subcommand: "version",
				Reason: fmt.Sprintf("git %s takes no argument %q", a, rest[0]),
				Advice: "write git --version alone"}
		case "--help", "-h":
			return Verdict{Outcome: Ask, Rule: rules.GitSubcommand, Arg: a, Subcommand: "help",
				Reason: fmt.Sprintf("git %s starts man or a browser", a),
				Advice: "read the documentation another way, or wait for the person's approval"}
		}
		name := globalName(a)
		if d, ok := globalDenied[name]; ok {
			return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: a,
				Reason: fmt.Sprintf("global option %s %s", name, d.reason), Advice: d.advice}
		}
		return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: a,
			Reason: fmt.Sprintf("%s is not a global git option clada allows", name),
			Advice: "allowed before the subcommand: --no-pager, -P, --literal-pathspecs, --no-optional-locks; put subcommand options after the subcommand"}
	}
	if i == len(args) {
		// "git" alone prints its usage and changes nothing.
		return Verdict{Outcome: Allow}
	}
	sub, rest := args[i], args[i+1:]
	if d, ok := dispatch[sub]; ok {
		return d(rest)
	}
	t, ok := tables[sub]
	if !ok {
		return askScreened(sub, rest)
	}
	return t.get().check(rest)
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

// network lists subcommands that contact other machines, for the reason of
// their Ask.
var network = map[string]bool{
	"clone": true, "fetch": true, "ls-remote": true, "pull": true, "push": true,
	"request-pull": true, "send-email": true, "submodule": true,
}

// ContactsNetwork reports whether the subcommand sub ("fetch", "push",
// "remote show" …) contacts other machines: under the sandbox it is given
// the network.
func ContactsNetwork(sub string) bool {
	first, _, _ := strings.Cut(sub, " ")
	return network[first] || sub == "remote show" || sub == "remote update" || sub == "remote prune"
}

func askSubcommand(sub string) Verdict {
	reason := fmt.Sprintf("git %s is not in clada's read-only git table", sub)
	if network[sub] {
		reason = fmt.Sprintf("git %s contacts the network", sub)
	}
	return Verdict{Outcome: Ask, Rule: rules.GitSubcommand, Arg: sub, Subcommand: sub,
		Reason: reason,
		Advice: "the person at the terminal is asked; read-only git needs no approval: status, diff, log, show, grep, blame, branch, tag, shortlog, describe, ls-files, ls-tree, rev-parse, rev-list, cat-file, for-each-ref, reflog, stash list/show, config --get/--list, remote -v …"}
}

// askForm is the Ask of a form of sub that changes the repository
// (stash pop, reflog expire, remote add), with rest, the words after it,
// screened by [screenPrograms] like every asked subcommand.
func askForm(sub, word string, rest []string, what, readOnly string) Verdict {
	v := Verdict{Outcome: Ask, Rule: rules.GitSubcommand, Arg: word, Subcommand: sub + " " + word,
		Reason: fmt.Sprintf("git %s %s %s", sub, word, what),
		Advice: "the person at the terminal is asked; allowed without asking: " + readOnly}
	if d := screenPrograms(sub, rest, &v); d != nil {
		return *d
	}
	return v
}

// checkStash handles "git stash ...": list and show are read-only; every
// other form creates, applies or deletes stashes and is Ask.
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
		return stashListTable.get().check(args[1:])
	case "show":
		return stashShowTable.get().check(args[1:])
	case "apply", "branch", "clear", "drop", "pop":
		return askForm("stash", w, args[1:], "changes the working tree or deletes stashes", "git stash list, git stash show")
	default:
		return askScreened("stash "+w, args[1:])
	}
}

// hidesOption reports whether w, a separate value word, would be a denied
// or asking option of t if git read it as an option. git takes the next
// word as the value of an option that needs one, whatever it looks like
// (git for-each-ref --sort -committerdate), but screening the word both
// ways means a mistake in a table (a value option that is really a bool)
// can never let an option through. A word that is not an option of t, or
// an allowed one, is harmless either way.
func (t *table) hidesOption(w string) bool {
	if !strings.HasPrefix(w, "-") || w == "-" {
		return false
	}
	if strings.HasPrefix(w, "--") {
		name, _, _ := strings.Cut(w[2:], "=")
		if name == "help" {
			return true
		}
		_, o, ok, matches := t.lookupLong(name)
		if !ok {
			// Unknown: git would fail. Ambiguous: git would fail, but an
			// abbreviation that could be a denied option is not waved through.
			for _, m := range matches {
				if r, _ := t.resolve(m); r.kind == kDeny || r.ask != "" {
					return true
				}
			}
			return false
		}
		return o.kind == kDeny || o.ask != ""
	}
	// git parses a whole cluster before it acts, so one unknown letter
	// makes the whole word an error.
	bad := false
	for j := 1; j < len(w); j++ {
		o, ok := t.short[w[j]]
		switch {
		case !ok:
			return false
		case o.kind == kDeny || o.ask != "":
			bad = true
		}
		if o.kind != kBool {
			break // the rest of the word is the value
		}
	}
	return bad
}

// state is what [table.check] learned from the arguments, for a table's
// finish hook.
type state struct {
	long        map[string]bool // long options given, by full name (negations as "no-x")
	short       map[byte]bool   // short options given
	positionals []string        // positional words (patterns, revisions, paths)
	paths       []string        // values of kPath options (and the file of -L)
	writes      []string        // values of kOutPath options
	ask         *opt            // the first option that asks
	askArg      string          // the word it came in
	textconv    string          // the first option that shows a diff with textconv drivers, as written
	patches     *PatchNames     // set by format-patch's finish hook
}

// has reports whether the long option name or the short option c was given
// (c 0: none).
func (s *state) has(name string, c byte) bool {
	return s.long[name] || (c != 0 && s.short[c])
}

// check screens the arguments after the subcommand word.
func (t *table) check(args []string) Verdict {
	st := &state{long: map[string]bool{}, short: map[byte]bool{}}
	deny := func(rule rules.Rule, arg, reason, advice string) Verdict {
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
			v := deny(rules.GitOption, a, fmt.Sprintf("%s needs a value", shown), fmt.Sprintf("write %s=<value>", shown))
			return "", &v
		}
		*i++
		w := args[*i]
		if t.hidesOption(w) {
			v := deny(rules.GitOption, w, fmt.Sprintf("the value %q of %s looks like an option", w, shown),
				fmt.Sprintf("attach the value: %s=<value> (or %s<value> for a short option)", shown, shown))
			return "", &v
		}
		return w, nil
	}
	asked := func(o opt, a string) {
		if o.ask != "" && st.ask == nil {
			st.ask, st.askArg = &o, a
		}
		if o.textconv && st.textconv == "" {
			st.textconv = a
		}
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
				st.positionals = append(st.positionals, r)
			}
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			st.positionals = append(st.positionals, a)
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasEq := strings.Cut(a[2:], "=")
			if name == "help" {
				return helpVerdict(t.name, a)
			}
			full, o, ok, matches := t.lookupLong(name)
			if !ok {
				if len(matches) > 1 {
					if len(matches) > 4 {
						matches = append(matches[:4], "...")
					}
					return deny(rules.GitOption, a,
						fmt.Sprintf("--%s is an ambiguous abbreviation (--%s)", name, strings.Join(matches, ", --")),
						"write the option in full; allowed "+t.name+" options include "+t.advice)
				}
				return deny(rules.GitOption, a, fmt.Sprintf("--%s is not a git %s option clada allows", name, t.name),
					"allowed "+t.name+" options include "+t.advice)
			}
			shown := "--" + full
			if full != name {
				shown = fmt.Sprintf("--%s (abbreviating --%s)", name, full)
			}
			st.long[full] = true
			asked(o, a)
			switch o.kind {
			case kDeny:
				return deny(rules.GitOption, a, shown+" "+o.reason, o.advice)
			case kBool:
				if hasEq {
					return deny(rules.GitOption, a, shown+" takes no value", "write --"+full+" without =")
				}
			case kOptional:
			case kAttached:
				// Bare, git takes no value: the next word is an
				// operand and is checked as one.
			case kValue, kPath, kLineRange, kOutPath:
				w, bad := value(&i, val, hasEq, o.lastArgDefault, a, "--"+full)
				if bad != nil {
					return *bad
				}
				if o.name && strings.ContainsAny(w, `/\`) {
					return deny(rules.GitOption, a, fmt.Sprintf("the value %q of --%s goes into file names and may not contain a path separator", w, full),
						"give a plain file name without / or \\")
				}
				if o.badValue != nil {
					if why := o.badValue(w); why != "" {
						return deny(rules.GitOption, a, fmt.Sprintf("--%s=%s %s", full, w, why), adviceFor[why])
					}
				}
				st.addValue(o.kind, w)
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
				if c == 'h' && len(a) == 2 {
					// Every git subcommand prints its usage for -h.
					return Verdict{Outcome: Allow, Subcommand: t.name}
				}
				return deny(rules.GitOption, a, fmt.Sprintf("-%c is not a git %s option clada allows", c, t.name),
					"allowed "+t.name+" options include "+t.advice)
			}
			shown := "-" + string(c)
			if o.kind == kDeny {
				return deny(rules.GitOption, a, shown+" "+o.reason, o.advice)
			}
			st.short[c] = true
			asked(o, a)
			if o.kind == kBool {
				continue
			}
			if o.kind != kOptional {
				rest := a[j+1:]
				w, bad := value(&i, rest, rest != "", o.lastArgDefault, a, shown)
				if bad != nil {
					return *bad
				}
				if o.name && strings.ContainsAny(w, `/\`) {
					return deny(rules.GitOption, a, fmt.Sprintf("the value %q of %s goes into file names and may not contain a path separator", w, shown),
						"give a plain file name without / or \\")
				}
				st.addValue(o.kind, w)
			}
			break // the rest of the word was the value
		}
	}
	if t.finish != nil {
		if v := t.finish(st); v != nil {
			v.Subcommand = t.name
			if v.Outcome == Ask {
				// An asked command may still not read or write outside the root.
				v.Paths, v.Writes = st.paths, st.writes
			}
			return *v
		}
	}
	if st.ask != nil {
		return Verdict{Outcome: Ask, Rule: rules.GitSubcommand, Arg: st.askArg, Subcommand: t.name,
			Reason: fmt.Sprintf("git %s %s %s", t.name, st.askArg, st.ask.ask),
			Advice: "the person at the terminal is asked; " + t.readAdvice(),
			Paths:  st.paths, Writes: st.writes, Patches: st.patches}
	}
	paths := st.paths
	switch t.positionals {
	case posPatterns:
	case posGrep:
		pos := st.positionals
		if !st.has("", 'e') && !st.has("", 'f') && len(pos) > 0 {
			pos = pos[1:] // the pattern
		}
		for _, w := range pos {
			if w != "(" && w != ")" {
				paths = append(paths, w)
			}
		}
	default:
		paths = append(paths, st.positionals...)
	}
	return Verdict{Outcome: Allow, Subcommand: t.name, Paths: paths, Writes: st.writes, Textconv: st.textconv, Patches: st.patches}
}

func (s *state) addValue(k kind, w string) {
	switch k {
	case kPath:
		s.paths = append(s.paths, w)
	case kOutPath:
		s.writes = append(s.writes, w)
	case kLineRange:
		// <start>,<end>:<file> or :<funcname>:<file>
		if i := strings.LastIndexByte(w, ':'); i >= 0 {
			s.paths = append(s.paths, w[i+1:])
		}
	}
}

// helpVerdict is the verdict for --help after a subcommand: git opens the
// manual with man or a browser, as configured.
func helpVerdict(sub, arg string) Verdict {
	return Verdict{Outcome: Ask, Rule: rules.GitSubcommand, Arg: arg, Subcommand: sub,
		Reason: fmt.Sprintf("git %s %s opens the manual with man or a browser", sub, arg),
		Advice: fmt.Sprintf("git %s -h prints a summary of the options without asking", sub)}
}

// readAdvice names the read-only forms of t for an Ask's advice.
func (t *table) readAdvice() string {
	if t.readOnly != "" {
		return "allowed without asking: " + t.readOnly
	}
	return "allowed " + t.name + " options include " + t.advice
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
