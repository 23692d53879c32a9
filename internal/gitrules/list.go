package gitrules

import "sort"

// readForms are the read-only forms of the subcommands that dispatch
// handles, and of clean, whose bare form is asked: what `clada prompt` and
// `clada specs` name besides the tables.
var readForms = []string{
	"bisect log", "clean -n", "config --get", "config --list", "hash-object",
	"notes list", "notes show", "reflog", "remote -v", "remote get-url",
	"stash list", "stash show", "symbolic-ref", "version", "worktree list",
}

// Subcommands returns the git subcommands and forms clada allows without
// asking, sorted ("stash list", "clean -n", "config --get" among them):
// what `clada prompt` and `clada specs` tell.
func Subcommands() []string {
	names := append([]string{}, readForms...)
	for n := range tables {
		if n != "clean" && n != "range-diff" { // clean without -n and range-diff are asked
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
