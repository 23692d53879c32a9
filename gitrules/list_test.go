package gitrules

import "testing"

// TestSubcommands: every subcommand Subcommands names is allowed by
// Check, and a few that are not listed are not allowed.
func TestSubcommands(t *testing.T) {
	t.Parallel()
	subs := Subcommands()
	if len(subs) < 10 {
		t.Fatalf("Subcommands() = %q: too few", subs)
	}
	listed := map[string]bool{}
	for _, s := range subs {
		listed[s] = true
		args := []string{s}
		if s == "stash list" || s == "stash show" {
			args = []string{"stash", s[len("stash "):]}
		}
		if v := Check(args); v.Outcome != Allow {
			t.Errorf("Subcommands lists %q, but Check(%q) = %v (%s)", s, args, v.Outcome, v.Reason)
		}
	}
	for _, s := range []string{"push", "commit", "checkout", "stash"} {
		if listed[s] {
			t.Errorf("Subcommands lists %q, which is not read-only", s)
		}
	}
}
