package specs

import "github.com/clada/clada/internal/rules"

// Outcome is what a [Verdict] decides.
type Outcome int

// Outcomes. The zero Outcome is Allow, so a Verdict must always be built
// with its Outcome set explicitly; this package never returns a zero Verdict.
const (
	Allow  Outcome = iota // every flag and path fits the spec
	Deny                  // a spec or hard block refuses the command
	Ask                   // the person must decide (wrappers, git subcommands outside the table)
	NoSpec                // no spec for argv[0]: the gateway decides (ask)
)

// String returns "allow", "deny", "ask" or "no-spec".
func (o Outcome) String() string {
	switch o {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	case Ask:
		return "ask"
	case NoSpec:
		return "no-spec"
	}
	return "unknown"
}

// Verdict is the decision of [Set.Check] for one argv.
type Verdict struct {
	Outcome Outcome
	// Rule is the failing rule for Deny and Ask, rules.Spec (or a gitrules
	// code as Rule(string(code))) for Allow, "" for NoSpec.
	Rule   rules.Rule
	Arg    string   // the offending argument as written; "" for Allow or when the whole command is meant
	Reason string   // why, for the model: "rm -r removes whole directory trees"
	Advice string   // what to do instead
	Exec   []string // Allow only: LookPath-resolved absolute program and the final arguments
	Env    []string // Allow only: extra environment entries ("K=V"); nil when none
	// Paths are the paths the command opens, as written and resolved,
	// on Allow (the gateway asks about secrets among them); nil when none.
	Paths []Path
	// Missing is set on Allow when the program is not installed here
	// ("`rg` is not installed here (not found in PATH)"); Exec[0] is then
	// the bare name. The decision stands: being installed is a fact
	// about one machine, and a dry run in CI must decide as on a laptop.
	Missing string
	// Network, Caches and CacheQuery are what the spec grants the
	// command under the sandbox (network, caches, cache_query of the
	// spec's TOML): the network, directories it may write, and arguments
	// to the program that print more of them. Set for Allow and Ask.
	Network    bool
	Caches     []string
	CacheQuery []string
	// Repository is set on a git command that is asked because it
	// changes the repository (commit, fetch, checkout …): under the
	// sandbox it may write .git, whose config and hooks stay read-only.
	Repository bool
	// Destroys lists, for Allow and Ask, the existing paths the command
	// deletes or replaces (rm, mv or cp onto a file, sed -i); the caller
	// decides whether git can restore them. nil when none.
	Destroys []Destroyed
	// Inner are the commands an Ask runs for each file it finds (find
	// -exec), with {} replaced by the first starting point; the caller
	// decides each as if it stood alone and denies when one is denied.
	// nil when none.
	Inner [][]string
}

// Path is one path argument of an allowed command.
type Path struct {
	Arg      string // as written
	Resolved string // absolute, symlinks resolved
}

func denyVerdict(e *rules.Denied) Verdict {
	return Verdict{Outcome: Deny, Rule: e.Rule, Arg: e.Word, Reason: e.Reason, Advice: e.Advice}
}

// grant adds what sp grants under the sandbox to v: a subcommand's spec
// (npm install: the network) and then its program's (npm: its cache),
// each level adding to what the deeper one granted.
func (v *Verdict) grant(sp *spec) {
	v.Network = v.Network || sp.network
	v.Caches = append(v.Caches, sp.caches...)
	if len(v.CacheQuery) == 0 {
		v.CacheQuery = sp.cacheQuery
	}
}
