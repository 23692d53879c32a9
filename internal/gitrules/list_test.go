package gitrules

import (
	"strings"
	"testing"
)

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
		args := strings.Fields(s)
		switch s {
		case "config --get", "notes show", "remote get-url":
			args = append(args, "x")
		}
		if v := Check(args); v.Outcome != Allow {
			t.Errorf("Subcommands lists %q, but Check(%q) = %v (%s)", s, args, v.Outcome, v.Reason)
		}
	}
	for _, s := range []string{"push", "commit", "checkout", "stash", "clean", "config"} {
		if listed[s] {
			t.Errorf("Subcommands lists %q, which is not read-only", s)
		}
	}
}
