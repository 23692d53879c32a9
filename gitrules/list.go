package gitrules

import "sort"

// Subcommands returns the git subcommands clada allows without asking,
// sorted, with "stash list" and "stash show" among them: what `clada
// prompt` and `clada specs` tell.
func Subcommands() []string {
	names := []string{"stash list", "stash show"}
	for n := range tables {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
