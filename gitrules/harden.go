package gitrules

// hardenAll precedes every git command clada runs, approved ones included:
// no pager, and no fsmonitor hook program named by repository configuration.
var hardenAll = []string{
	"--no-pager",
	"-c", "core.fsmonitor=false",
	"-c", "core.pager=cat",
}

// hardenReadOnly is added for the subcommands of the read-only table only,
// because it would break approved commands (signing a commit, pushing):
// signature display never runs gpg from configuration (including through
// --format=%G? or log.showSignature), and no transport program runs to
// fetch missing objects of a partial clone.
var hardenReadOnly = []string{
	"-c", "log.showSignature=false",
	"-c", "gpg.format=openpgp",
	"-c", "gpg.program=/dev/null",
	"-c", "protocol.allow=never",
}

// afterSubcommand is inserted right after the subcommand word. Flags given
// later by the model could undo them, which is why Check denies --ext-diff
// and --textconv. Keep sorted; update DESIGN.md too.
var afterSubcommand = map[string][]string{
	"blame":        {"--no-textconv"},
	"diff":         {"--no-ext-diff", "--no-textconv"},
	"format-patch": {"--no-ext-diff", "--no-textconv"},
	"log":          {"--no-ext-diff", "--no-textconv"},
	"range-diff":   {"--no-ext-diff", "--no-textconv"},
	"reflog":       {"--no-ext-diff", "--no-textconv"},
	"reflog show":  {"--no-ext-diff", "--no-textconv"},
	"show":         {"--no-ext-diff", "--no-textconv"},
	"stash list":   {"--no-ext-diff", "--no-textconv"},
	"stash show":   {"--no-ext-diff", "--no-textconv"},
	"whatchanged":  {"--no-ext-diff", "--no-textconv"},
}

// reflogModes are the words after git reflog that are not log arguments,
// so nothing is inserted before them.
var reflogModes = map[string]bool{"delete": true, "drop": true, "exists": true, "expire": true, "list": true}

// Harden returns the arguments clada passes to git for args (argv without
// the leading "git"): hardening options first, then args, with the
// per-subcommand options of afterSubcommand inserted right after the
// subcommand word. It is meant for args that [Check] allowed or the person
// approved; args itself is not modified.
func Harden(args []string) []string {
	k := subcommandIndex(args)
	sub, end := "", k // end: index after the subcommand word(s)
	if k < len(args) {
		sub, end = args[k], k+1
		switch {
		case sub == "stash" && k+1 < len(args) && (args[k+1] == "list" || args[k+1] == "show"):
			sub, end = "stash "+args[k+1], k+2
		case sub == "reflog" && k+1 < len(args) && args[k+1] == "show":
			sub, end = "reflog show", k+2
		case sub == "reflog" && k+1 < len(args) && reflogModes[args[k+1]]:
			sub = "reflog " + args[k+1]
		}
	}
	out := append([]string{}, hardenAll...)
	if readOnly(args[k:]) {
		out = append(out, hardenReadOnly...)
	}
	out = append(out, args[:end]...)
	out = append(out, afterSubcommand[sub]...)
	return append(out, args[end:]...)
}

// readOnly reports whether args, from the subcommand word on, is a
// read-only subcommand in a form that is not asked: an approved git tag -s
// or stash pop keeps signing and transports working. Denied forms that a
// user's pattern allowed are hardened like the reads they are forms of.
func readOnly(args []string) bool {
	if len(args) == 0 {
		return false
	}
	_, table := tables[args[0]]
	_, mode := dispatch[args[0]]
	return (table || mode) && Check(args).Outcome != Ask
}

// subcommandIndex returns the index of the subcommand word, len(args) when
// there is none. It skips global options as git does, including the value
// word of denied ones, so that Harden is right for approved commands too.
func subcommandIndex(args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' {
			return i
		}
		switch a {
		case "--version", "-v", "--help", "-h":
			return i
		}
		if globalTakesValue[a] {
			i++ // "-c k=v", "--git-dir /x": the value is the next word
		}
	}
	return len(args)
}

// Env returns the extra environment for running git, as "KEY=value"
// entries to append to the inherited environment:
//
//   - GIT_TERMINAL_PROMPT=0: never ask for credentials on the terminal.
//   - GIT_CONFIG_NOSYSTEM=1: ignore the system-wide configuration file.
//   - GIT_PAGER=cat: no pager even if --no-pager were lost.
//   - GIT_OPTIONAL_LOCKS=0: status does not rewrite the index.
//   - GIT_NO_LAZY_FETCH=1: a partial clone does not fetch missing objects.
//
// The environment cannot unset configuration: GIT_EXTERNAL_DIFF= (empty) is
// the same as not set, so diff.external and textconv drivers from
// .git/config would still run. The options added by [Harden] are the real
// guard.
func Env() []string {
	return []string{
		"GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_PAGER=cat",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_NO_LAZY_FETCH=1",
	}
}
