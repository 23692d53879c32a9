package gitrules

import (
	"sort"
	"strings"
	"sync"
)

// kind says how an option takes its value.
type kind uint8

const (
	kBool      kind = iota // no value: --stat is fine, --oneline=x is not
	kOptional              // value only attached: --abbrev, --abbrev=7, -U5
	kValue                 // value required: --format=x, --format x, -n5, -n 5
	kPath                  // like kValue; the value is a file git opens (reported in Paths)
	kLineRange             // log -L <range>:<file>; the file is reported in Paths
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
}

func b() opt            { return opt{kind: kBool} }
func o() opt            { return opt{kind: kOptional} }
func v() opt            { return opt{kind: kValue} }
func p() opt            { return opt{kind: kPath} }
func deny(r string) opt { return opt{kind: kDeny, reason: r, advice: adviceFor[r]} }

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
		"diff-merges": v(), "do-walk": b(), "encoding": v(), "exclude": v(),
		"expand-tabs": o(), "extended-regexp": b(), "first-parent": b(),
		"fixed-strings": b(), "follow": b(), "format": o(), "full-diff": b(),
		"full-history": b(), "glob": v(), "graph": b(), "grep": v(),
		"grep-reflog": v(), "ignore-missing": b(), "invert-grep": b(),
		"left-only": b(), "left-right": b(), "log-size": b(), "max-age": v(),
		"max-count": v(), "max-parents": v(), "merge": b(), "merges": b(),
		"min-age": v(), "min-parents": v(), "no-abbrev": b(),
		"no-abbrev-commit": b(), "no-decorate": b(), "no-diff-merges": b(),
		"no-expand-tabs": b(), "no-max-parents": b(), "no-merges": b(),
		"no-min-parents": b(), "no-notes": b(), "no-walk": o(), "not": b(),
		"notes": o(), "oneline": b(), "parents": b(), "perl-regexp": b(),
		"pretty": o(), "reflog": b(), "regexp-ignore-case": b(),
		"relative-date": b(), "remerge-diff": b(), "remotes": o(), "reverse": b(),
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
}

type posKind uint8

const (
	posPaths    posKind = iota // positionals may be paths: report them in Paths
	posPatterns                // branch patterns: allowed only in list mode, never paths
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
	logTable = lazyTable(func() *table {
		return newTable("log", merge(diffLong(), revLong()), mergeShort(diffShort(), revShort()),
			"--oneline, --stat, -p, -n <count>, --format=<fmt>, --since=<date>, --author=<who>")
	})

	showTable = lazyTable(func() *table {
		return newTable("show", merge(diffLong(), revLong()), mergeShort(diffShort(), revShort()),
			"--stat, --name-only, --format=<fmt>, --oneline, -s, --no-patch")
	})

	diffTable = lazyTable(func() *table {
		return newTable("diff", merge(diffLong(), map[string]opt{
			"base": b(), "cached": b(), "merge-base": b(), "ours": b(),
			"staged": b(), "theirs": b(),
		}), diffShort(),
			"--stat, --name-only, --cached, --staged, -U<n>, --word-diff, --exit-code")
	})

	statusTable = lazyTable(func() *table {
		return newTable("status", map[string]opt{
			"ahead-behind": b(), "branch": b(), "column": o(), "find-renames": o(),
			"ignore-submodules": o(), "ignored": o(), "long": b(), "null": b(),
			"porcelain": o(), "renames": b(), "short": b(), "show-stash": b(),
			"untracked-files": o(), "verbose": denyStatusVerbose,
		}, map[byte]opt{
			'M': o(), 'b': b(), 's': b(), 'u': o(), 'v': denyStatusVerbose, 'z': b(),
		}, "--short, --branch, --porcelain[=v2], --untracked-files[=no], -z")
	})

	lsFilesTable = lazyTable(func() *table {
		return newTable("ls-files", map[string]opt{
			"abbrev": o(), "cached": b(), "debug": b(), "deduplicate": b(),
			"deleted": b(), "directory": b(), "empty-directory": b(), "eol": b(),
			"error-unmatch": b(), "exclude": v(), "exclude-from": p(),
			"exclude-per-directory": v(), "exclude-standard": b(), "format": v(),
			"full-name": b(), "ignored": b(), "killed": b(), "modified": b(),
			"others": b(), "recurse-submodules": b(), "resolve-undo": b(),
			"sparse": b(), "stage": b(), "unmerged": b(), "with-tree": v(),
			"zero": b(),
		}, map[byte]opt{
			'X': p(), 'c': b(), 'd': b(), 'f': b(), 'i': b(), 'k': b(), 'm': b(),
			'o': b(), 's': b(), 't': b(), 'u': b(), 'v': b(), 'x': v(), 'z': b(),
		}, "--cached, --others, --modified, --exclude-standard, -z, --full-name")
	})

	// rev-parse parses its options by hand: no abbreviations in git, but
	// accepting one here only makes git fail, never run something else.
	revParseTable = lazyTable(func() *table {
		return newTable("rev-parse", map[string]opt{
			"abbrev-ref": o(), "absolute-git-dir": b(), "after": v(), "all": b(),
			"before": v(), "branches": o(), "default": v(), "disambiguate": v(),
			"exclude": v(), "flags": b(), "git-common-dir": b(), "git-dir": b(),
			"git-path": v(), "glob": v(), "is-bare-repository": b(),
			"is-inside-git-dir": b(), "is-inside-work-tree": b(),
			"is-shallow-repository": b(), "local-env-vars": b(), "no-flags": b(),
			"no-revs": b(), "not": b(), "path-format": v(), "prefix": v(),
			"quiet": b(), "remotes": o(), "revs-only": b(), "short": o(),
			"shared-index-path": b(), "show-cdup": b(), "show-object-format": o(),
			"show-prefix": b(), "show-ref-format": b(),
			"show-superproject-working-tree": denySuperproject, "show-toplevel": b(),
			"since": v(), "sq": b(), "symbolic": b(), "symbolic-full-name": b(),
			"tags": o(), "until": v(), "verify": b(),
		}, map[byte]opt{'q': b()},
			"--show-toplevel, --git-dir, --abbrev-ref, --short, --verify, -q")
	})

	blameTable = lazyTable(func() *table {
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
	})

	// branch is allowed for listing only. Denied options create, delete,
	// rename, copy or reconfigure branches.
	branchTable = lazyTable(func() *table {
		return newTable("branch", map[string]opt{
			"abbrev": o(), "all": b(), "color": o(), "column": o(),
			"contains": v(), "copy": deny(reasonBranch),
			"create-reflog": deny(reasonBranch), "delete": deny(reasonBranch),
			"edit-description": deny(reasonBranch), "force": deny(reasonBranch),
			"format": v(), "ignore-case": b(), "list": b(), "merged": v(),
			"move": deny(reasonBranch), "no-contains": v(), "no-merged": v(),
			"no-track": deny(reasonBranch), "omit-empty": b(), "points-at": v(),
			"quiet": b(), "recurse-submodules": deny(reasonBranch),
			"remotes": b(), "set-upstream": deny(reasonBranch),
			"set-upstream-to": deny(reasonBranch), "show-current": b(),
			"sort": v(), "track": deny(reasonBranch),
			"unset-upstream": deny(reasonBranch), "verbose": b(),
		}, map[byte]opt{
			'C': deny(reasonBranch), 'D': deny(reasonBranch), 'M': deny(reasonBranch),
			'a': b(), 'c': deny(reasonBranch), 'd': deny(reasonBranch),
			'f': deny(reasonBranch), 'i': b(), 'l': b(), 'm': deny(reasonBranch),
			'q': b(), 'r': b(), 't': deny(reasonBranch), 'u': deny(reasonBranch),
			'v': b(),
		}, "-a, -r, -v, -vv, --list <pattern>, --show-current, --contains <commit>, --merged")
	})

	stashShowTable = lazyTable(func() *table {
		return newTable("stash show", merge(diffLong(), map[string]opt{
			"include-untracked": b(), "only-untracked": b(),
		}), diffShort(), "--stat, -p, --name-only, --include-untracked")
	})
)

const reasonBranch = "creates, deletes, renames, copies or reconfigures a branch"

// lazyTable builds a table on first use: building all of them costs about
// 1 ms at every start, and a command needs one.
func lazyTable(build func() *table) func() *table {
	return sync.OnceValue(func() *table {
		t := build()
		tune(t)
		return t
	})
}

// tune sets what newTable's arguments don't say.
func tune(t *table) {
	switch t.name {
	case "log", "show", "diff":
		t.digits = true
	case "branch":
		t.positionals = posPatterns
		for _, n := range []string{"contains", "merged", "no-contains", "no-merged"} {
			o := t.long[n]
			o.lastArgDefault = true
			t.long[n] = o
		}
	}
}

// tables maps subcommand words to tables. stash is handled separately.
// Keep sorted.
var tables = map[string]func() *table{
	"blame":     blameTable,
	"branch":    branchTable,
	"diff":      diffTable,
	"log":       logTable,
	"ls-files":  lsFilesTable,
	"rev-parse": revParseTable,
	"show":      showTable,
	"status":    statusTable,
}

// stashList is log's table under another name: stash list takes log options.
var stashListTable = sync.OnceValue(func() *table {
	t := *logTable()
	t.name = "stash list"
	return &t
})
