package gitrules

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Description is what `clada specs git` prints: git's rules as the tables
// and screens of this package hold them, so the printout cannot drift from
// what [Check] and [Harden] do.
type Description struct {
	// Allowed are the subcommands and forms allowed without asking
	// ([Subcommands]); each checks its options against its own table.
	Allowed []string
	// Asked are examples of asked forms, with the reason [Check] gives.
	Asked []Example
	// DeniedGlobal are the options denied before the subcommand.
	DeniedGlobal []Denial
	// DeniedReads are the options denied on every read-only subcommand,
	// and their abbreviations.
	DeniedReads []Denial
	// DeniedAll are the options denied on every subcommand, asked ones
	// included: they run a program the model names. Sub names the
	// subcommands an option is screened on, "" for all of them.
	DeniedAll []Denial
	// Harden precedes every git command clada runs; HardenReadOnly follows
	// it for the read-only forms; AfterSubcommand is inserted after a
	// read-only subcommand whose table knows it.
	Harden, HardenReadOnly, AfterSubcommand []string
	// Env is added to git's environment ([Env]).
	Env []string
}

// Example is one command line (without "git") and the reason Check gives.
type Example struct {
	Args   string
	Reason string
}

// Denial is one denied option with the reason.
type Denial struct {
	Option string // "-c", "--upload-pack", "-O"
	Sub    string // for DeniedAll: the subcommands it is screened on, "" for every one
	Except string // for DeniedAll with Sub "": the subcommands where it means something else
	Reason string
}

// askedExamples are asked forms that `clada specs git` shows; a test checks
// that Check asks each one.
var askedExamples = []string{
	"commit -m msg", "checkout main", "push", "fetch", "remote show origin",
	"branch topic", "branch -d topic", "tag v1", "tag -d v1",
	"stash", "stash pop", "clean -f", "config user.name me",
	"config --get credential.helper", "remote add origin URL", "reflog expire --all",
	"log --help",
}

// Describe returns git's rules for `clada specs git`.
func Describe() Description {
	d := Description{
		Allowed:         Subcommands(),
		Harden:          append([]string{}, hardenAll...),
		HardenReadOnly:  append([]string{}, hardenReadOnly...),
		AfterSubcommand: []string{"--no-ext-diff", "--no-textconv"},
		Env:             Env(),
	}
	for _, ex := range askedExamples {
		v := Check(strings.Fields(ex))
		d.Asked = append(d.Asked, Example{Args: ex, Reason: v.Reason})
	}
	for _, name := range slices.Sorted(maps.Keys(globalDenied)) {
		d.DeniedGlobal = append(d.DeniedGlobal, Denial{Option: name, Reason: globalDenied[name].reason})
	}
	for _, name := range slices.Sorted(maps.Keys(alwaysDeniedLong)) {
		d.DeniedReads = append(d.DeniedReads, Denial{Option: "--" + name, Reason: alwaysDeniedLong[name].reason})
	}
	var shorts []string
	for c := range alwaysDeniedShort {
		shorts = append(shorts, string(c))
	}
	sort.Strings(shorts)
	for _, c := range shorts {
		d.DeniedReads = append(d.DeniedReads, Denial{Option: "-" + c, Reason: alwaysDeniedShort[c[0]].reason})
	}
	for _, name := range slices.Sorted(maps.Keys(programLong)) {
		var other []string // subcommands of the entries before: applicable picks the first
		for _, o := range programLong[name] {
			if o.action == progDeny {
				den := Denial{Option: "--" + name, Sub: strings.Join(o.subs, ", "), Reason: o.reason}
				if o.subs == nil {
					den.Except = strings.Join(other, ", ")
				}
				d.DeniedAll = append(d.DeniedAll, den)
			}
			other = append(other, o.subs...)
		}
	}
	for _, sub := range slices.Sorted(maps.Keys(programShort)) {
		s := programShort[sub]
		var letters []string
		for c := range s.deny {
			letters = append(letters, string(c))
		}
		sort.Strings(letters)
		for _, c := range letters {
			long := s.deny[c[0]]
			o, _ := applicable(sub, programLong[long])
			d.DeniedAll = append(d.DeniedAll, Denial{Option: fmt.Sprintf("-%s (--%s)", c, long), Sub: sub, Reason: o.reason})
		}
	}
	return d
}
