package rules

import "testing"

// TestAll: each rule once, of a known stage, with a decision, a trigger
// and, unless it only allows, advice. (internal/gateway's
// TestRulesComplete checks All against every Rule constant of the code.)
func TestAll(t *testing.T) {
	t.Parallel()
	seen := map[Rule]bool{}
	stages := map[Stage]bool{Parser: true, Gateway: true, Specs: true, GitRules: true}
	for _, r := range All() {
		if seen[r.Rule] {
			t.Errorf("%s is listed twice", r.Rule)
		}
		seen[r.Rule] = true
		if !stages[r.Stage] {
			t.Errorf("%s: unknown stage %q", r.Rule, r.Stage)
		}
		if r.Trigger == "" || r.Decision == "" || r.Decision != "allow" && r.Advice == "" {
			t.Errorf("%s: decision %q, trigger %q, advice %q", r.Rule, r.Decision, r.Trigger, r.Advice)
		}
	}
}

func TestDeniedError(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		d    Denied
		want string
	}{
		{Denied{Rule: Expansion, Word: "$HOME", Line: 1, Col: 5, Reason: "$HOME is parameter expansion"}, "1:5: $HOME is parameter expansion"},
		{Denied{Rule: UnknownFlag, Word: "-exec", Reason: "find -exec runs other programs"}, "find -exec runs other programs"},
	} {
		if got := tt.d.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}
