package gitrules

import (
	"slices"
	"strings"
	"testing"
)

// Denied names for the independent predicate of FuzzCheck, written out
// again on purpose rather than taken from the tables.
var (
	fuzzDeniedGlobal = []string{"config-env", "exec-path", "git-dir", "namespace", "paginate", "super-prefix", "work-tree"}
	fuzzDeniedSub    = []string{"contents", "exec", "ext-diff", "no-index", "open-files-in-pager", "output", "paginate", "show-signature", "textconv", "upload-pack"}
	// fuzzExactAllowed are real options that happen to be prefixes of a
	// denied one: git matches them exactly.
	fuzzExactAllowed = map[string]bool{"text": true}
)

func abbreviates(word string, names []string) bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(word, "--"), "=")
	if name == "" || fuzzExactAllowed[name] {
		return false
	}
	for _, n := range names {
		if strings.HasPrefix(n, name) {
			return true
		}
	}
	return false
}

// violation returns the first word of an allowed command line that is a
// denied option or an abbreviation of one, "" when there is none.
func violation(args []string) string {
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-"; i++ {
		a := args[i]
		if strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "-C") || a == "-p" ||
			(strings.HasPrefix(a, "--") && abbreviates(a, fuzzDeniedGlobal)) {
			return a
		}
	}
	if i < len(args) && args[i] == "stash" {
		i++
	}
	denied := fuzzDeniedSub
	if i < len(args) && args[i] == "check-ignore" {
		// check-ignore --no-index only leaves the index out (tables.go).
		denied = slices.DeleteFunc(slices.Clone(denied), func(n string) bool { return n == "no-index" })
	}
	for i++; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "--end-of-options" {
			break
		}
		if strings.HasPrefix(a, "-O") || (strings.HasPrefix(a, "--") && abbreviates(a, denied)) {
			return a
		}
	}
	return ""
}

func FuzzCheck(f *testing.F) {
	for _, c := range checkCases {
		f.Add(strings.Join(c.argv(), " "))
	}
	for _, s := range []string{"log --outpu", "diff --no-", "branch --contains --output", "log -n -O", "show --e=x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		args := strings.Split(in, " ")
		if in == "" {
			args = nil
		}
		v := Check(args)
		h := Harden(args)
		if len(h) < len(args)+len(hardenAll) {
			t.Fatalf("Harden(%q) = %q lost arguments", args, h)
		}
		switch v.Outcome {
		case Allow:
			if w := violation(args); w != "" {
				t.Fatalf("Check(%q) allowed the denied option %q", args, w)
			}
			if v.Rule != "" || v.Reason != "" {
				t.Fatalf("Check(%q) allowed with rule %q reason %q", args, v.Rule, v.Reason)
			}
		case Ask, Deny:
			if v.Rule == "" || v.Reason == "" || v.Advice == "" {
				t.Fatalf("Check(%q) = %+v without rule, reason or advice", args, v)
			}
		default:
			t.Fatalf("Check(%q) outcome %d", args, v.Outcome)
		}
	})
}
