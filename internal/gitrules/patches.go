package gitrules

// PatchNames tells which entries of its output directory git format-patch
// may write, so that the caller can check them as written and replaced
// (an untracked 0001-fix.patch there is lost without a question
// otherwise). The names come from the commits' subjects, which clada does
// not read, so the match is by the part git always writes first:
//
//   - NNNN-subject.patch: four or more digits (%04d of the patch's number;
//     --start-number sets the first, and a negative one writes -005-…),
//     the sanitized subject, cut to format.filenameMaxLength (never below
//     "0001"), and the suffix (--suffix or format.suffix, "" too), so only
//     the leading digit is certain;
//   - 0000-cover-letter.patch with --cover-letter, a name of the same kind;
//   - with --numbered-files: the bare number (1, 2 …), digits again;
//   - with -v N (--reroll-count): every name starts with vN- (and may be
//     cut to as little as "vN-0" or even "v123"), so only its "v" is
//     certain.
//
// A name that matches is not necessarily one git writes; the caller asks
// only when such an existing entry is one git cannot restore.
type PatchNames struct {
	// Reroll is set when -v or --reroll-count was given: names may start
	// with "v" too.
	Reroll bool
}

// Match reports whether git format-patch may write an entry named name
// into its output directory.
func (p PatchNames) Match(name string) bool {
	if p.Reroll && len(name) > 0 && name[0] == 'v' {
		return true
	}
	if len(name) > 1 && name[0] == '-' {
		name = name[1:]
	}
	return len(name) > 0 && name[0] >= '0' && name[0] <= '9'
}
