package gitrules

import "os"

// hardenAll precedes every git command clada runs, approved ones included:
// no pager, no fsmonitor hook program named by repository configuration,
// and no hook at all: core.hooksPath names the null device, under which no
// file can exist, so git finds no hook to run (post-index-change,
// pre-commit, post-checkout …). An approved git commit therefore runs
// without the project's commit hooks; docs/defaults.md says so.
var hardenAll = []string{
	"--no-pager",
	"-c", "core.fsmonitor=false",
	"-c", "core.pager=cat",
	"-c", "core.hooksPath=" + os.DevNull,
}

// hardenReadOnly is added for the subcommands of the read-only table only,
// because it would break approved commands (signing a commit, pushing):
//
//   - signature display never runs a program from configuration (through
//     --format=%G?, %GG or log.showSignature): git picks the program by the
//     kind of signature it meets, so all three are pinned to the null
//     device (gpg.program for OpenPGP, gpg.x509.program for X.509, which is
//     gpgsm, and gpg.ssh.program for SSH signatures, which is ssh-keygen);
//   - no transport program runs to fetch missing objects of a partial
//     clone;
//   - git diff does not refresh the index: when a file's timestamps
//     changed but its content did not, git diff rewrites .git/index (and
//     would run the post-index-change hook) even with GIT_OPTIONAL_LOCKS=0
//     before git 2.50. diff.autoRefreshIndex=false turns that off; the cost
//     is that --name-only, --raw and --exit-code then count such a file as
//     changed, which docs/defaults.md says.
var hardenReadOnly = []string{
	"-c", "log.showSignature=false",
	"-c", "gpg.format=openpgp",
	"-c", "gpg.program=" + os.DevNull,
	"-c", "gpg.x509.program=" + os.DevNull,
	"-c", "gpg.ssh.program=" + os.DevNull,
	"-c", "protocol.allow=never",
	"-c", "diff.autoRefreshIndex=false",
}

// afterSubcommand returns the options inserted right after the subcommand
// word of a read-only subcommand: --no-ext-diff and --no-textconv whenever
// its table knows them, so that every subcommand that can show a diff
// shows it without external diff or textconv programs (a subcommand that
// shows a diff and has no such option, like git status -v, denies the form
// that shows it). Flags given later by the model could undo them, which is
// why Check denies --ext-diff and --textconv.
func afterSubcommand(sub string) []string {
	var t *table
	switch sub {
	case "stash list":
		t = stashListTable.get()
	case "stash show":
		t = stashShowTable.get()
	case "reflog", "reflog show":
		t = reflogShowTable.get()
	default:
		build, ok := tables[sub]
		if !ok {
			return nil
		}
		t = build.get()
	}
	var out []string
	for _, name := range []string{"no-ext-diff", "no-textconv"} {
		if _, ok := t.long[name]; ok {
			out = append(out, "--"+name)
		}
	}
	return out
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
	out = append(out, afterSubcommand(sub)...)
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
