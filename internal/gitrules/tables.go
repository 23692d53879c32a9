package gitrules

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/clada/clada/internal/rules"
)

// kind says how an option takes its value.
type kind uint8

const (
	kBool      kind = iota // no value: --stat is fine, --oneline=x is not
	kOptional              // value only attached: --abbrev, --abbrev=7, -U5
	kValue                 // value required: --format=x, --format x, -n5, -n 5
	kPath                  // like kValue; the value is a file git opens (reported in Paths)
	kLineRange             // log -L <range>:<file>; the file is reported in Paths
	kOutPath               // like kValue; the value is a file or directory git writes (reported in Writes)
	kAttached              // value only as --opt=VALUE; bare --opt takes no value, so the next word is an operand (rev-parse --since)
	kDeny                  // denied wherever it appears
)

// opt is one entry of an option table. reason is set for kDeny.
type opt struct {
	kind   kind
	reason string // why a kDeny option is denied: "writes a file"
	advice string // what to do instead, for kDeny
	noNeg  bool   // git rejects --no-<name>
	// lastArgDefault: a value is taken from the next word when there is
	// one, and defaults when the option is last (git branch --contains).
	lastArgDefault bool
	// ask, when set, makes the command Ask with this reason (git branch -d
	// deletes a branch): the option is parsed as its kind says, and a later
	// denied option still denies.
	ask string
	// name: the value becomes part of a file name (format-patch --suffix,
	// -v), so it may not contain a path separator.
	name bool
	// badValue, when set, returns why a value is denied ("" when fine):
	// --diff-merges=remerge writes into .git/objects.
	badValue func(string) string
	// textconv: the option shows a diff with the textconv drivers of git
	// configuration and nothing turns them off (git status -v); the
	// command is allowed only when no driver is configured
	// ([Verdict.Textconv]).
	textconv bool
}

// remergeValue denies --diff-merges=remerge (and r), which writes into
// .git/objects as --remerge-diff does.
func remergeValue(v string) string {
	if v == "remerge" || v == "r" {
		return reasonRemerge
	}
	return ""
}

func b() opt            { return opt{kind: kBool} }
func o() opt            { return opt{kind: kOptional} }
func v() opt            { return opt{kind: kValue} }
func p() opt            { return opt{kind: kPath} }
func at() opt           { return opt{kind: kAttached} }
func deny(r string) opt { return opt{kind: kDeny, reason: r, advice: adviceFor[r]} }

// asks returns o that makes the command Ask with reason r.
func asks(o opt, r string) opt { o.ask = r; return o }

// Reasons for options denied wherever they appear.
const (
	reasonOutput   = "writes a file"
	reasonExtDiff  = "runs the external diff program named in git configuration"
	reasonTextconv = "runs textconv programs named in git configuration"
	reasonRunsProg = "runs another program"
	reasonPager    = "starts a pager program"
	reasonNoIndex  = "compares files outside the repository"
	reasonContents = "makes blame read another file in place of the one blamed"
	reasonSign     = "runs the gpg program named in git configuration"
	reasonOrder    = "reads an order file or opens a pager"
	reasonRemerge  = "writes temporary objects into .git/objects to remerge each merge"
)

// adviceFor says what to do instead, per reason.
var adviceFor = map[string]string{
	reasonOutput:   "drop the option: clada captures git's output and shows it to you",
	reasonExtDiff:  "drop the option: clada shows git's own diff",
	reasonTextconv: "drop the option: clada shows git's own diff without textconv programs",
	reasonRunsProg: "drop the option; a command that runs programs needs the person's approval",
	reasonPager:    "drop the option: clada captures output without a pager",
	reasonNoIndex:  "compare tracked files with git diff, or use the diff command on files inside the project",
	reasonContents: "blame the file itself: git blame <file>",
	reasonSign:     "drop the option; show the raw signature with git log --format=%GG only with approval",
	reasonOrder:    "drop -O; use git diff with pathspecs to choose files",
	reasonRemerge:  "show merges with --diff-merges=first-parent or --cc instead",
	reasonBranch:   "only listing branches is allowed (git branch, -a, -r, -v, --list <pattern>); write a RUN block without the option and the person will be asked for anything else",
}

// alwaysDeniedLong are long options that write files or run programs. They
// are part of every subcommand table so that their abbreviations are caught.
// Keep sorted.
var alwaysDeniedLong = map[string]opt{
	"contents":            deny(reasonContents),
	"exec":                deny(reasonRunsProg),
	"ext-diff":            deny(reasonExtDiff),
	"no-index":            deny(reasonNoIndex),
	"open-files-in-pager": deny(reasonPager),
	"output":              deny(reasonOutput),
	"paginate":            deny(reasonPager),
	"show-signature":      deny(reasonSign),
	"textconv":            deny(reasonTextconv),
	"upload-pack":         deny(reasonRunsProg),
}

// alwaysDeniedShort are short options denied wherever they appear.
var alwaysDeniedShort = map[byte]opt{
	'O': deny(reasonOrder),
}

// diffLong returns the diff options shared by diff, log, show and stash show.
// Keep sorted.
func diffLong() map[string]opt {
	return map[string]opt{
		"abbrev": o(), "anchored": v(), "binary": b(), "break-rewrites": o(),
		"check": b(), "color": o(), "color-moved": o(), "color-moved-ws": v(),
		"color-words": o(), "compact-summary": b(), "cumulative": b(),
		"default-prefix": b(), "diff-algorithm": v(), "diff-filter": v(),
		"dirstat": o(), "dst-prefix": v(), "exit-code": b(), "find-copies": o(),
		"find-copies-harder": b(), "find-object": v(), "find-renames": o(),
		"full-index": b(), "function-context": b(), "histogram": b(),
		"ignore-all-space": b(), "ignore-blank-lines": b(), "ignore-cr-at-eol": b(),
		"ignore-matching-lines": v(), "ignore-space-at-eol": b(),
		"ignore-space-change": b(), "ignore-submodules": o(),
		"indent-heuristic": b(), "inter-hunk-context": v(),
		"irreversible-delete": b(), "ita-invisible-in-index": b(),
		"ita-visible-in-index": b(), "line-prefix": v(), "minimal": b(),
		"name-only": b(), "name-status": b(), "no-color": b(),
		"no-color-moved": b(), "no-ext-diff": b(), "no-patch": b(),
		"no-prefix": b(), "no-renames": b(), "no-textconv": b(), "numstat": b(),
		"patch": b(), "patch-with-raw": b(), "patch-with-stat": b(),
		"patience": b(), "pickaxe-all": b(), "pickaxe-regex": b(), "quiet": b(),
		"raw": b(), "relative": o(), "rotate-to": v(), "shortstat": b(),
		"skip-to": v(), "src-prefix": v(), "stat": o(), "submodule": o(),
		"summary": b(), "text": b(), "unified": o(), "word-diff": o(),
		"word-diff-regex": v(), "ws-error-highlight": v(),
	}
}

// diffShort returns the short diff options. Keep sorted.
func diffShort() map[byte]opt {
	return map[byte]opt{
		'B': o(), 'C': o(), 'D': b(), 'G': v(), 'M': o(), 'R': b(), 'S': v(),
		'U': o(), 'W': b(), 'X': o(), 'a': b(), 'b': b(), 'l': v(), 'p': b(),
		's': b(), 'u': b(), 'w': b(), 'z': b(),
	}
}

// revLong returns the revision-walk and formatting options of log (and stash
// list, and show where they make sense). Keep sorted.
func revLong() map[string]opt {
	return map[string]opt{
		"abbrev-commit": b(), "after": v(), "all": b(), "all-match": b(),
		"ancestry-path": o(), "author": v(), "author-date-order": b(),
		"basic-regexp": b(), "before": v(), "bisect": b(), "boundary": b(),
		"branches": o(), "cc": b(), "cherry": b(), "cherry-mark": b(),
		"cherry-pick": b(), "clear-decorations": b(), "combined-all-paths": b(),
		"committer": v(), "date": v(), "date-order": b(), "decorate": o(),
		"decorate-refs": v(), "decorate-refs-exclude": v(), "dense": b(),
		"diff-merges": {kind: kValue, badValue: remergeValue}, "do-walk": b(), "encoding": v(), "exclude": v(),
		"expand-tabs": o(), "extended-regexp": b(), "first-parent": b(),
		"fixed-strings": b(), "follow": b(), "format": o(), "full-diff": b(),
		"full-history": b(), "glob": v(), "graph": b(), "grep": v(),
		"grep-reflog": v(), "ignore-missing": b(), "invert-grep": b(),
		"left-only": b(), "left-right": b(), "log-size": b(), "max-age": v(),
		"max-count": v(), "max-parents": at(), "merge": b(), "merges": b(),
		"min-age": v(), "min-parents": at(), "no-abbrev": b(),
		"no-abbrev-commit": b(), "no-decorate": b(), "no-diff-merges": b(),
		"no-expand-tabs": b(), "no-max-parents": b(), "no-merges": b(),
		"no-min-parents": b(), "no-notes": b(), "no-walk": o(), "not": b(),
		"notes": o(), "oneline": b(), "parents": b(), "perl-regexp": b(),
		"pretty": o(), "reflog": b(), "regexp-ignore-case": b(),
		"relative-date": b(), "remerge-diff": deny(reasonRemerge), "remotes": o(), "reverse": b(),
		"right-only": b(), "show-linear-break": o(), "show-pulls": b(),
		"simplify-by-decoration": b(), "simplify-merges": b(),
		"single-worktree": b(), "since": v(), "skip": v(), "source": b(),
		"sparse": b(), "tags": o(), "topo-order": b(), "until": v(),
		"use-mailmap": b(), "walk-reflogs": b(),
	}
}

// revShort returns log's short options. -L is handled as a path-carrying value.
// Keep sorted.
func revShort() map[byte]opt {
	return map[byte]opt{
		'E': b(), 'F': b(), 'L': {kind: kLineRange}, 'P': b(), 'c': b(), 'g': b(), 'i': b(),
		'm': b(), 'n': v(), 'r': b(), 't': b(),
	}
}

// table is the option table of one subcommand.
type table struct {
	name   string
	long   map[string]opt
	short  map[byte]opt
	digits bool // accepts -<number> (log -5, diff -1)
	// positionals says what positional arguments are.
	positionals posKind
	// names is every long spelling git accepts (negations included), sorted,
	// for abbreviation lookup.
	names []string
	// advice lists a few allowed options for the "unknown option" advice.
	advice string
	// readOnly names the forms allowed without asking, for the advice of
	// an Ask ("git branch, -a, -r, --list <pattern>"); "" uses advice.
	readOnly string
	// finish, when set, runs after the arguments parsed: a non-nil Verdict
	// replaces the Allow (git branch NAME creates a branch: Ask).
	finish func(st *state) *Verdict
}

type posKind uint8

const (
	posPaths    posKind = iota // positionals may be paths: report them in Paths
	posPatterns                // ref patterns or names (branch, tag, for-each-ref): never paths
	posGrep                    // git grep: the first is the pattern unless -e/-f gave one; then revisions and paths
)

// negatable reports whether git accepts --no-<name> for an option.
func (o opt) negatable() bool { return o.kind != kDeny && !o.noNeg }

func merge(ms ...map[string]opt) map[string]opt {
	out := map[string]opt{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func mergeShort(ms ...map[byte]opt) map[byte]opt {
	out := map[byte]opt{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func newTable(name string, long map[string]opt, short map[byte]opt, advice string) *table {
	t := &table{name: name, long: merge(long, alwaysDeniedLong), short: mergeShort(short, alwaysDeniedShort), advice: advice}
	seen := map[string]bool{}
	for n, o := range t.long {
		seen[n] = true
		if o.negatable() && !strings.HasPrefix(n, "no-") {
			seen["no-"+n] = true
		}
	}
	for n := range seen {
		t.names = append(t.names, n)
	}
	sort.Strings(t.names)
	return t
}

// lookupLong resolves a long option name (without "--" and "=value") as git's
// parse-options does: an exact match, else the one option it abbreviates.
// ok is false for unknown names and ambiguous abbreviations (then matches
// holds the candidates).
func (t *table) lookupLong(name string) (full string, o opt, ok bool, matches []string) {
	if name == "" {
		return "", opt{}, false, nil
	}
	if r, found := t.resolve(name); found {
		return name, r, true, nil
	}
	for _, n := range t.names {
		if strings.HasPrefix(n, name) {
			matches = append(matches, n)
		}
	}
	if len(matches) != 1 {
		return "", opt{}, false, matches
	}
	r, _ := t.resolve(matches[0])
	return matches[0], r, true, nil
}

// resolve finds an exact long name, a --no- negation being a bool.
func (t *table) resolve(name string) (opt, bool) {
	if o, ok := t.long[name]; ok {
		return o, true
	}
	if pos, found := strings.CutPrefix(name, "no-"); found {
		if o, ok := t.long[pos]; ok && o.negatable() {
			return b(), true
		}
	}
	return opt{}, false
}

// Subcommand tables, each built on first use (see lazyTable). Keep sorted.
var (
	logTable = &lazy{build: func() *table {
		t := newTable("log", merge(diffLong(), revLong()), mergeShort(diffShort(), revShort()),
			"--oneline, --stat, -p, -n <count>, --format=<fmt>, --since=<date>, --author=<who>")
		t.digits = true
		return t
	}}

	showTable = &lazy{build: func() *table {
		t := newTable("show", merge(diffLong(), revLong()), mergeShort(diffShort(), revShort()),
			"--stat, --name-only, --format=<fmt>, --oneline, -s, --no-patch")
		t.digits = true
		return t
	}}

	diffTable = &lazy{build: func() *table {
		t := newTable("diff", merge(diffLong(), map[string]opt{
			"base": b(), "cached": b(), "merge-base": b(), "ours": b(),
			"staged": b(), "theirs": b(),
		}), diffShort(),
			"--stat, --name-only, --cached, --staged, -U<n>, --word-diff, --exit-code")
		t.digits = true
		return t
	}}

	// diff-tree, diff-index and diff-files are the plumbing diffs: no
	// external diff or textconv unless asked for (and those are denied).
	diffTreeTable = &lazy{build: func() *table {
		t := newTable("diff-tree", merge(diffLong(), map[string]opt{
			"always": b(), "cc": b(), "combined-all-paths": b(), "format": o(),
			"merge-base": b(), "no-commit-id": b(), "pretty": o(), "root": b(),
			"stdin": b(),
		}), mergeShort(diffShort(), map[byte]opt{'c': b(), 'm': b(), 'r': b(), 't': b(), 'v': b()}),
			"-r, -p, --stat, --name-only, --name-status, --no-commit-id, --root")
		return t
	}}

	diffIndexTable = &lazy{build: func() *table {
		return newTable("diff-index", merge(diffLong(), map[string]opt{"cached": b(), "merge-base": b()}),
			mergeShort(diffShort(), map[byte]opt{'m': b()}), "--cached, -p, --stat, --name-only, --name-status")
	}}

	diffFilesTable = &lazy{build: func() *table {
		return newTable("diff-files", merge(diffLong(), map[string]opt{"base": b(), "ours": b(), "theirs": b()}),
			mergeShort(diffShort(), map[byte]opt{'c': b(), 'q': b(), '0': b(), '1': b(), '2': b(), '3': b()}),
			"-p, --stat, --name-only, --name-status, -q")
	}}

	// range-diff runs `git log -p` in a child process, which gets none
	// of the options clada adds: its diffs run the textconv programs
	// that the attributes (a .gitattributes the model can write) name.
	// So it is asked.
	rangeDiffTable = &lazy{build: func() *table {
		t := newTable("range-diff", merge(diffLong(), map[string]opt{
			"creation-factor": v(), "left-only": b(), "no-dual-color": b(),
			"no-notes": b(), "notes": o(), "right-only": b(),
		}), diffShort(), "--creation-factor=<n>, --no-dual-color, --stat")
		t.finish = func(*state) *Verdict {
			return &Verdict{Outcome: Ask, Rule: rules.GitSubcommand, Arg: "range-diff",
				Reason: "git range-diff runs git log in a child process without --no-textconv, so the textconv programs named in git configuration run on the diffs",
				Advice: "compare the commits with git log -p or git diff A B, which clada runs with textconv off; otherwise the person is asked"}
		}
		return t
	}}

	whatchangedTable = &lazy{build: func() *table {
		t := newTable("whatchanged", merge(diffLong(), revLong()), mergeShort(diffShort(), revShort()),
			"--oneline, --stat, -p, -n <count>, --since=<date>")
		t.digits = true
		return t
	}}

	statusTable = &lazy{build: func() *table {
		return newTable("status", map[string]opt{
			"ahead-behind": b(), "branch": b(), "column": o(), "find-renames": o(),
			"ignore-submodules": o(), "ignored": o(), "long": b(), "null": b(),
			"porcelain": o(), "renames": b(), "short": b(), "show-stash": b(),
			"untracked-files": o(), "verbose": statusVerbose,
		}, map[byte]opt{
			'M': o(), 'b': b(), 's': b(), 'u': o(), 'v': statusVerbose, 'z': b(),
		}, "--short, --branch, --porcelain[=v2], --untracked-files[=no], -z")
	}}

	lsFilesTable = &lazy{build: func() *table {
		return newTable("ls-files", map[string]opt{
			"abbrev": o(), "cached": b(), "debug": b(), "deduplicate": b(),
			"deleted": b(), "directory": b(), "empty-directory": b(), "eol": b(),
			"error-unmatch": b(), "exclude": v(), "exclude-from": p(),
			// a file name git opens in every directory: no separator,
			// so --exclude-per-directory=/etc/shadow cannot name a file
			// outside the project
			"exclude-per-directory": {kind: kValue, name: true}, "exclude-standard": b(), "format": v(),
			"full-name": b(), "ignored": b(), "killed": b(), "modified": b(),
			"others": b(), "recurse-submodules": b(), "resolve-undo": b(),
			"sparse": b(), "stage": b(), "unmerged": b(), "with-tree": v(),
			"zero": b(),
		}, map[byte]opt{
			'X': p(), 'c': b(), 'd': b(), 'f': b(), 'i': b(), 'k': b(), 'm': b(),
			'o': b(), 's': b(), 't': b(), 'u': b(), 'v': b(), 'x': v(), 'z': b(),
		}, "--cached, --others, --modified, --exclude-standard, -z, --full-name")
	}}

	lsTreeTable = &lazy{build: func() *table {
		return newTable("ls-tree", map[string]opt{
			"abbrev": o(), "format": v(), "full-name": b(), "full-tree": b(),
			"long": b(), "name-only": b(), "name-status": b(), "object-only": b(),
		}, map[byte]opt{'d': b(), 'l': b(), 'r': b(), 't': b(), 'z': b()},
			"-r, --name-only, -l, --full-tree, --format=<fmt>")
	}}

	// rev-parse parses its options by hand: no abbreviations in git, but
	// accepting one here only makes git fail, never run something else.
	// It reads --since, --after, --before, --until, --exclude, --glob,
	// --disambiguate and --path-format only as --opt=VALUE: written
	// bare, the option is echoed and the next word is an argument that
	// rev-parse looks up as a revision or a file (git rev-parse --since
	// /outside/x tells whether that file exists), so that word is checked
	// as a path. --prefix joins its value onto every later path.
	revParseTable = &lazy{build: func() *table {
		return newTable("rev-parse", map[string]opt{
			"abbrev-ref": o(), "absolute-git-dir": b(), "after": at(), "all": b(),
			"before": at(), "branches": o(), "default": v(), "disambiguate": at(),
			"exclude": at(), "exclude-hidden": at(), "flags": b(), "git-common-dir": b(), "git-dir": b(),
			"git-path": v(), "glob": at(), "is-bare-repository": b(),
			"is-inside-git-dir": b(), "is-inside-work-tree": b(),
			"is-shallow-repository": b(), "local-env-vars": b(), "no-flags": b(),
			"no-revs": b(), "not": b(), "path-format": at(),
			"prefix": {kind: kDeny, reason: "joins its value onto every later path, so rev-parse looks up files clada never sees (--prefix /outside/ x stats /outside/x)",
				advice: "run git rev-parse from the directory itself (a RUN block's dir attribute), without --prefix"},
			"quiet": b(), "remotes": o(), "revs-only": b(), "short": o(),
			"shared-index-path": b(), "show-cdup": b(), "show-object-format": o(),
			"show-prefix": b(), "show-ref-format": b(),
			"show-superproject-working-tree": denySuperproject, "show-toplevel": b(),
			"since": at(), "sq": b(), "symbolic": b(), "symbolic-full-name": b(),
			"tags": o(), "until": at(), "verify": b(),
		}, map[byte]opt{'q': b()},
			"--show-toplevel, --git-dir, --abbrev-ref, --short, --verify, -q")
	}}

	// rev-list reads --filter, --missing, --exclude-hidden and
	// --decorate-refs(-exclude) only as --opt=VALUE (found by the strace
	// test: bare, the next word is looked up as a file).
	revListTable = &lazy{build: func() *table {
		t := newTable("rev-list", merge(revLong(), map[string]opt{
			"bisect-all": b(), "bisect-vars": b(), "children": b(), "count": b(),
			"decorate-refs": at(), "decorate-refs-exclude": at(),
			"disk-usage": o(), "exclude-first-parent-only": b(), "exclude-hidden": at(),
			"filter": at(), "filter-print-omitted": b(), "filter-provided-objects": b(),
			"header": b(), "in-commit-order": b(), "indexed-objects": b(),
			"missing": at(), "no-filter": b(), "no-object-names": b(),
			"object-names": b(), "objects": b(), "objects-edge": b(),
			"objects-edge-aggressive": b(), "quiet": b(), "remove-empty": b(),
			"stdin": b(), "timestamp": b(), "unpacked": b(),
		}), revShort(), "--count, --all, --objects, -n <count>, --since=<date>, --reverse")
		t.digits = true
		return t
	}}

	shortlogTable = &lazy{build: func() *table {
		t := newTable("shortlog", merge(revLong(), map[string]opt{
			"committer": b(), "email": b(), "group": v(), "numbered": b(), "summary": b(),
		}), mergeShort(revShort(), map[byte]opt{'c': b(), 'e': b(), 'n': b(), 's': b(), 'w': o()}),
			"-s, -n, -e, -c, --group=<field>, --all, <revision range>")
		t.digits = true
		return t
	}}

	describeTable = &lazy{build: func() *table {
		return newTable("describe", map[string]opt{
			"abbrev": o(), "all": b(), "always": b(), "broken": o(), "candidates": v(),
			"contains": b(), "debug": b(), "exact-match": b(),
			"dirty":   asks(o(), "refreshes the index to see whether the work tree is dirty, writing .git/index"),
			"exclude": v(), "first-parent": b(), "long": b(), "match": v(), "tags": b(),
		}, nil, "--tags, --all, --always, --abbrev=<n>, --long, --exact-match")
	}}

	nameRevTable = &lazy{build: func() *table {
		return newTable("name-rev", map[string]opt{
			"all": b(), "always": b(), "annotate-stdin": b(), "exclude": v(),
			"name-only": b(), "refs": v(), "stdin": b(), "tags": b(), "undefined": b(),
		}, nil, "--name-only, --tags, --refs=<pattern>, --always")
	}}

	mergeBaseTable = &lazy{build: func() *table {
		return newTable("merge-base", map[string]opt{
			"all": b(), "fork-point": b(), "independent": b(), "is-ancestor": b(), "octopus": b(),
		}, map[byte]opt{'a': b()}, "--all, --is-ancestor, --fork-point, --octopus")
	}}

	cherryTable = &lazy{build: func() *table {
		return newTable("cherry", map[string]opt{"abbrev": o(), "verbose": b()},
			map[byte]opt{'v': b()}, "-v, --abbrev=<n>")
	}}

	showBranchTable = &lazy{build: func() *table {
		t := newTable("show-branch", map[string]opt{
			"all": b(), "color": o(), "current": b(), "date-order": b(),
			"independent": b(), "list": b(), "merge-base": b(), "more": o(),
			"no-name": b(), "reflog": o(), "remotes": b(), "sha1-name": b(),
			"sparse": b(), "topics": b(), "topo-order": b(),
		}, map[byte]opt{'a': b(), 'g': o(), 'r': b()}, "-a, -r, --list, --topo-order, --more=<n>")
		t.positionals = posPatterns
		return t
	}}

	forEachRefTable = &lazy{build: func() *table {
		t := newTable("for-each-ref", map[string]opt{
			"color": o(), "contains": v(), "count": v(), "exclude": v(), "format": v(),
			"ignore-case": b(), "merged": v(), "no-contains": v(), "no-merged": v(),
			"omit-empty": b(), "perl": b(), "points-at": v(), "python": b(),
			"shell": b(), "sort": v(), "stdin": b(), "tcl": b(),
		}, map[byte]opt{'p': b(), 's': b()},
			"--format=<fmt>, --sort=<key>, --count=<n>, --merged, --contains, <pattern>")
		t.positionals = posPatterns
		for _, n := range []string{"contains", "merged", "no-contains", "no-merged", "points-at"} {
			o := t.long[n]
			o.lastArgDefault = true
			t.long[n] = o
		}
		return t
	}}

	showRefTable = &lazy{build: func() *table {
		t := newTable("show-ref", map[string]opt{
			"abbrev": o(), "branches": b(), "dereference": b(), "exclude-existing": o(),
			"exists": b(), "hash": o(), "head": b(), "heads": b(), "quiet": b(),
			"tags": b(), "verify": b(),
		}, map[byte]opt{'d': b(), 'q': b(), 's': b()}, "--heads, --tags, --verify, -d, -s, --abbrev")
		t.positionals = posPatterns
		return t
	}}

	countObjectsTable = &lazy{build: func() *table {
		return newTable("count-objects", map[string]opt{"human-readable": b(), "verbose": b()},
			map[byte]opt{'H': b(), 'v': b()}, "-v, -H")
	}}

	// check-ignore --no-index is not diff's --no-index: it only leaves
	// the index out, so a tracked path is matched against the ignore
	// files too ("why is this tracked file ignored?"); it reads the same
	// .gitignore files and names no path outside the repository.
	checkIgnoreTable = &lazy{build: func() *table {
		t := newTable("check-ignore", map[string]opt{
			"non-matching": b(), "quiet": b(), "stdin": b(), "verbose": b(),
		}, map[byte]opt{'n': b(), 'q': b(), 'v': b(), 'z': b()}, "-v, -n, -q, --no-index, <path>")
		t.long["no-index"] = b()
		return t
	}}

	checkAttrTable = &lazy{build: func() *table {
		return newTable("check-attr", map[string]opt{
			"all": b(), "cached": b(), "source": v(), "stdin": b(),
		}, map[byte]opt{'a': b(), 'z': b()}, "-a, --cached, <attr> -- <path>")
	}}

	// cat-file: --textconv and --filters run programs named in the
	// configuration; --batch reads names from stdin, which is closed.
	catFileTable = &lazy{build: func() *table {
		t := newTable("cat-file", map[string]opt{
			"allow-unknown-type": b(), "batch": o(), "batch-all-objects": b(),
			"batch-check": o(), "batch-command": o(), "buffer": b(),
			"filters": {kind: kDeny, reason: "runs the clean/smudge filter programs named in git configuration",
				advice: "show the object as stored: git cat-file -p <object>"},
			"follow-symlinks": b(), "mailmap": b(), "path": v(), "unordered": b(),
			"use-mailmap": b(),
		}, map[byte]opt{'Z': b(), 'e': b(), 'p': b(), 's': b(), 't': b(), 'z': b()},
			"-p <object>, -t, -s, -e, <type> <object>")
		t.positionals = posPatterns // a type and an object name, never a path
		return t
	}}

	blameTable = &lazy{build: func() *table {
		return newTable("blame", map[string]opt{
			"abbrev": o(), "color-by-age": b(), "color-lines": b(), "date": v(),
			"encoding": v(), "first-parent": b(), "ignore-rev": v(),
			"ignore-revs-file": p(), "incremental": b(), "line-porcelain": b(),
			"minimal": b(), "no-textconv": b(), "porcelain": b(), "progress": b(),
			"reverse": b(), "root": b(), "score-debug": b(), "show-email": b(),
			"show-name": b(), "show-number": b(), "show-stats": b(), "since": v(),
		}, map[byte]opt{
			'C': o(), 'L': v(), 'M': o(), 'S': p(), 'b': b(), 'c': b(), 'e': b(),
			'f': b(), 'l': b(), 'n': b(), 'p': b(), 's': b(), 't': b(), 'w': b(),
		}, "-L <start>,<end>, -w, -M, -C, --porcelain, -e, --date=<format>")
	}}

	// grep: -O/--open-files-in-pager, --textconv and --no-index are denied
	// in every table.
	grepTable = &lazy{build: func() *table {
		t := newTable("grep", map[string]opt{
			"after-context": v(), "all-match": b(), "and": b(), "basic-regexp": b(),
			"before-context": v(), "break": b(), "cached": b(), "color": o(),
			"column": b(), "context": v(), "count": b(), "exclude-standard": b(),
			"extended-regexp": b(), "files-with-matches": b(),
			"files-without-match": b(), "fixed-strings": b(), "full-name": b(),
			"function-context": b(), "heading": b(), "ignore-case": b(),
			"invert-match": b(), "line-number": b(), "max-count": v(),
			"max-depth": v(), "name-only": b(), "not": b(), "null": b(),
			"only-matching": b(), "or": b(), "perl-regexp": b(), "quiet": b(),
			"recurse-submodules": b(), "recursive": b(), "show-function": b(),
			"text": b(), "threads": v(), "untracked": b(), "word-regexp": b(),
		}, map[byte]opt{
			'A': v(), 'B': v(), 'C': v(), 'E': b(), 'F': b(), 'G': b(), 'H': b(),
			'I': b(), 'L': b(), 'P': b(), 'W': b(), 'a': b(), 'c': b(), 'e': v(),
			'f': p(), 'h': b(), 'i': b(), 'l': b(), 'm': v(), 'n': b(), 'o': b(),
			'p': b(), 'q': b(), 'r': b(), 'v': b(), 'w': b(), 'z': b(),
		}, "-n, -i, -w, -l, -c, -e <pattern>, -E, -F, --cached, -- <path>")
		pager := opt{kind: kDeny, reason: "opens the matching files in a pager program, which it may name (-O<pager>)",
			advice: "drop the option: clada captures git's output"}
		t.short['O'] = pager
		t.long["open-files-in-pager"] = pager
		t.digits = true
		t.positionals = posGrep
		return t
	}}

	// branch lists without asking; creating, deleting, renaming, copying
	// or reconfiguring a branch is asked.
	branchTable = &lazy{build: func() *table {
		a := func(o opt) opt { return asks(o, reasonBranch) }
		t := newTable("branch", map[string]opt{
			"abbrev": o(), "all": b(), "color": o(), "column": o(),
			"contains": v(), "copy": a(b()),
			"create-reflog": a(b()), "delete": a(b()),
			"edit-description": a(b()), "force": a(b()),
			"format": v(), "ignore-case": b(), "list": b(), "merged": v(),
			"move": a(b()), "no-contains": v(), "no-merged": v(),
			"no-track": a(b()), "omit-empty": b(), "points-at": v(),
			"quiet": b(), "recurse-submodules": a(b()),
			"remotes": b(), "set-upstream": a(b()),
			"set-upstream-to": a(v()), "show-current": b(),
			"sort": v(), "track": a(o()),
			"unset-upstream": a(b()), "verbose": b(),
		}, map[byte]opt{
			'C': a(b()), 'D': a(b()), 'M': a(b()),
			'a': b(), 'c': a(b()), 'd': a(b()),
			'f': a(b()), 'i': b(), 'l': b(), 'm': a(b()),
			'q': b(), 'r': b(), 't': a(b()), 'u': a(v()),
			'v': b(),
		}, "-a, -r, -v, -vv, --list <pattern>, --show-current, --contains <commit>, --merged")
		t.positionals = posPatterns
		t.readOnly = "git branch, -a, -r, -v, --list <pattern>, --show-current, --contains, --merged"
		for _, n := range []string{"contains", "merged", "no-contains", "no-merged"} {
			o := t.long[n]
			o.lastArgDefault = true
			t.long[n] = o
		}
		t.finish = refNameFinish("branch", "creates a branch", "l", "contains", "list", "merged", "no-contains", "no-merged", "points-at")
		return t
	}}

	// tag lists without asking; creating, deleting, signing or verifying
	// a tag is asked.
	tagTable = &lazy{build: func() *table {
		a := func(o opt) opt { return asks(o, "creates, deletes, signs or verifies a tag") }
		t := newTable("tag", map[string]opt{
			"annotate": a(b()), "cleanup": a(v()), "color": o(), "column": o(),
			"contains": v(), "create-reflog": a(b()), "delete": a(b()), "edit": a(b()),
			"file": a(p()), "force": a(b()), "format": v(), "ignore-case": b(),
			"list": b(), "local-user": a(v()), "merged": v(), "message": a(v()),
			"no-contains": v(), "no-merged": v(), "omit-empty": b(), "points-at": v(),
			"sign": a(b()), "sort": v(), "trailer": a(v()), "verify": a(b()),
		}, map[byte]opt{
			'F': a(p()), 'a': a(b()), 'd': a(b()), 'e': a(b()), 'f': a(b()),
			'i': b(), 'l': b(), 'm': a(v()), 'n': o(), 's': a(b()), 'u': a(v()),
			'v': a(b()),
		}, "-l <pattern>, -n, --contains <commit>, --merged, --sort=<key>, --format=<fmt>")
		t.positionals = posPatterns
		t.readOnly = "git tag, -l <pattern>, -n, --contains, --merged, --points-at, --sort"
		for _, n := range []string{"contains", "merged", "no-contains", "no-merged", "points-at"} {
			o := t.long[n]
			o.lastArgDefault = true
			t.long[n] = o
		}
		t.finish = refNameFinish("tag", "creates a tag", "ln", "contains", "list", "merged", "no-contains", "no-merged", "points-at")
		return t
	}}

	// clean only with -n/--dry-run, which lists what would be removed.
	cleanTable = &lazy{build: func() *table {
		t := newTable("clean", map[string]opt{
			"dry-run": b(), "exclude": v(), "force": b(),
			"interactive": asks(b(), "asks on the terminal which files to delete"), "quiet": b(),
		}, map[byte]opt{
			'X': b(), 'd': b(), 'e': v(), 'f': b(),
			'i': asks(b(), "asks on the terminal which files to delete"), 'n': b(), 'q': b(), 'x': b(),
		}, "-n, -d, -x, -X, -e <pattern>")
		t.readOnly = "git clean -n (or --dry-run), which only lists what would be removed"
		t.finish = func(st *state) *Verdict {
			if st.ask != nil || st.has("dry-run", 'n') {
				return nil
			}
			return &Verdict{Outcome: Ask, Rule: rules.GitSubcommand, Arg: "clean",
				Reason: "git clean without -n deletes untracked files, which git cannot restore",
				Advice: "git clean -n lists what would be removed without asking; deleting needs the person's approval"}
		}
		return t
	}}

	// format-patch writes one file per commit into -o DIR, or into the
	// block's directory; both are confined as written by the caller.
	formatPatchTable = &lazy{build: func() *table {
		t := newTable("format-patch", merge(diffLong(), revLong(), map[string]opt{
			"add-header": v(), "attach": o(), "base": v(), "cc": v(),
			"cover-from-description": v(), "cover-letter": b(), "creation-factor": v(),
			"decorate-refs": at(), "decorate-refs-exclude": at(), // only --opt=VALUE here
			"description-file": p(), "encode-email-headers": b(),
			"filename-max-length": v(), "force-in-body-from": b(), "from": o(),
			"ignore-if-in-upstream": b(), "in-reply-to": v(), "inline": o(),
			"interdiff": v(), "keep-subject": b(), "no-binary": b(), "no-numbered": b(),
			"no-stat": b(), "numbered": b(), "numbered-files": b(),
			"output-directory": {kind: kOutPath}, "progress": b(), "quiet": b(),
			"range-diff": v(), "reroll-count": {kind: kValue, name: true}, "rfc": b(), "signature": v(),
			"signature-file": p(), "signoff": b(), "start-number": v(), "stdout": b(),
			"subject-prefix": v(), "suffix": {kind: kValue, name: true}, "thread": o(), "to": v(),
			"zero-commit": b(),
		}), mergeShort(diffShort(), revShort(), map[byte]opt{
			'N': b(), 'k': b(), 'n': b(), 'o': {kind: kOutPath}, 'p': b(), 'q': b(),
			's': b(), 'v': {kind: kValue, name: true},
		}), "-o <dir>, --stdout, -<n>, <since>, <revision range>, --cover-letter")
		t.digits = true
		t.finish = func(st *state) *Verdict {
			if len(st.writes) == 0 && !st.long["stdout"] {
				st.writes = append(st.writes, ".") // the patches go into the block's directory
			}
			st.patches = &PatchNames{Reroll: st.has("reroll-count", 'v')}
			return nil
		}
		return t
	}}

	stashShowTable = &lazy{build: func() *table {
		return newTable("stash show", merge(diffLong(), map[string]opt{
			"include-untracked": b(), "only-untracked": b(),
		}), diffShort(), "--stat, -p, --name-only, --include-untracked")
	}}

	worktreeListTable = &lazy{build: func() *table {
		return newTable("worktree list", map[string]opt{
			"expire": v(), "porcelain": b(), "verbose": b(),
		}, map[byte]opt{'v': b(), 'z': b()}, "--porcelain, -v, -z")
	}}
)

const reasonBranch = "creates, deletes, renames, copies or reconfigures a branch"

// refNameFinish returns the finish hook of branch and tag: positional words
// are patterns in list mode (given one of the short letters or long names),
// else the name of a ref to create, which is asked.
func refNameFinish(sub, creates, shorts string, longs ...string) func(*state) *Verdict {
	return func(st *state) *Verdict {
		if len(st.positionals) == 0 || st.ask != nil {
			return nil
		}
		for i := 0; i < len(shorts); i++ {
			if st.short[shorts[i]] {
				return nil
			}
		}
		for _, l := range longs {
			if st.long[l] {
				return nil
			}
		}
		w := st.positionals[0]
		return &Verdict{Outcome: Ask, Rule: rules.GitSubcommand, Arg: w,
			Reason: fmt.Sprintf("git %s %s %s", sub, w, creates),
			Advice: fmt.Sprintf("list with git %s --list <pattern> without asking; creating needs the person's approval", sub)}
	}
}

// lazy is a table built on first use: building all of them costs about
// 1 ms at every start, and a command needs one. A lazy is a plain value
// the linker lays out, so declaring one costs nothing at start either (a
// sync.OnceValue per table was ~150 allocations in every clada's init).
type lazy struct {
	once  sync.Once
	build func() *table
	t     *table
}

// get returns the table, built once.
func (l *lazy) get() *table {
	l.once.Do(func() { l.t = l.build() })
	return l.t
}

// tables maps subcommand words to tables. stash and the subcommands in
// dispatch are handled separately. Keep sorted; update docs/rules.md too.
var tables = map[string]*lazy{
	"blame":         blameTable,
	"branch":        branchTable,
	"cat-file":      catFileTable,
	"check-attr":    checkAttrTable,
	"check-ignore":  checkIgnoreTable,
	"cherry":        cherryTable,
	"clean":         cleanTable,
	"count-objects": countObjectsTable,
	"describe":      describeTable,
	"diff":          diffTable,
	"diff-files":    diffFilesTable,
	"diff-index":    diffIndexTable,
	"diff-tree":     diffTreeTable,
	"for-each-ref":  forEachRefTable,
	"format-patch":  formatPatchTable,
	"grep":          grepTable,
	"log":           logTable,
	"ls-files":      lsFilesTable,
	"ls-tree":       lsTreeTable,
	"merge-base":    mergeBaseTable,
	"name-rev":      nameRevTable,
	"range-diff":    rangeDiffTable,
	"rev-list":      revListTable,
	"rev-parse":     revParseTable,
	"shortlog":      shortlogTable,
	"show":          showTable,
	"show-branch":   showBranchTable,
	"show-ref":      showRefTable,
	"status":        statusTable,
	"tag":           tagTable,
	"whatchanged":   whatchangedTable,
}

// stashList is log's table under another name: stash list takes log options.
var stashListTable = &lazy{build: func() *table {
	t := *logTable.get()
	t.name = "stash list"
	return &t
}}

// reflogShowTable is log's table under another name: git reflog [show]
// takes log options.
var reflogShowTable = &lazy{build: func() *table {
	t := *logTable.get()
	t.name = "reflog"
	return &t
}}
