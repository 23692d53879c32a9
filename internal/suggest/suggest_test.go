package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"run", "run", 0}, {"rnu", "run", 2}, {"chek", "check", 1}, {"é", "e", 1},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	cmds := []string{"run", "check", "exec", "log", "why", "allow", "block", "forget", "list", "specs", "prompt", "completion"}
	keys := []string{"timeout", "max_output", "approval_timeout", "untrusted", "report_budget", "secrets"}
	for _, c := range []struct {
		typed string
		cands []string
		want  string
	}{
		{"chek", cmds, "check"},
		{"rnu", cmds, ""}, // two edits on a 3-letter word: too far
		{"rum", cmds, "run"},
		{"complettion", cmds, "completion"},
		{"spec", cmds, "specs"},
		{"xyz", cmds, ""},
		{"", cmds, ""},
		{"approval-timeout", keys, "approval_timeout"},
		{"max-ouput", keys, "max_output"},
		{"TIMEOUT", keys, "timeout"},
		{"--dryrun", []string{"dry-run", "format"}, "dry-run"},
		{"--formt", []string{"dry-run", "format"}, "format"},
		{"--x", []string{"dry-run", "format"}, ""},
	} {
		if got := Closest(c.typed, c.cands); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
}
