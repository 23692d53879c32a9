package gitrules

import (
	"slices"
	"strings"
	"testing"

	"github.com/clada/clada/internal/rules"
)

// TestDescribe: what `clada specs git` prints is what Check and Harden do.
// Every asked example is asked, every denied option is denied where the
// description says, and the hardening printed is the hardening applied.
func TestDescribe(t *testing.T) {
	t.Parallel()
	d := Describe()
	if !slices.Equal(d.Allowed, Subcommands()) {
		t.Errorf("Allowed = %q, want Subcommands()", d.Allowed)
	}
	if len(d.Asked) != len(askedExamples) {
		t.Fatalf("%d asked examples described, want %d", len(d.Asked), len(askedExamples))
	}
	for _, ex := range d.Asked {
		v := Check(strings.Fields(ex.Args))
		if v.Outcome != Ask || v.Rule != rules.GitSubcommand {
			t.Errorf("asked example git %s: Check = %v %s (%s), want ask git-subcommand", ex.Args, v.Outcome, v.Rule, v.Reason)
		}
		if ex.Reason == "" || ex.Reason != v.Reason {
			t.Errorf("asked example git %s: reason %q, Check says %q", ex.Args, ex.Reason, v.Reason)
		}
	}
	deny := func(group string, args ...string) {
		t.Helper()
		if v := Check(args); v.Outcome != Deny {
			t.Errorf("%s: Check(%q) = %v (%s), want deny", group, args, v.Outcome, v.Reason)
		}
	}
	if len(d.DeniedGlobal) != len(globalDenied) || len(d.DeniedGlobal) == 0 {
		t.Errorf("%d global denials described, %d in the table", len(d.DeniedGlobal), len(globalDenied))
	}
	for _, o := range d.DeniedGlobal {
		if o.Reason == "" {
			t.Errorf("global %s: no reason", o.Option)
		}
		deny("denied before the subcommand", o.Option+"=x", "status")
	}
	if len(d.DeniedReads) != len(alwaysDeniedLong)+len(alwaysDeniedShort) {
		t.Errorf("%d denials on the reads described, %d in the tables", len(d.DeniedReads), len(alwaysDeniedLong)+len(alwaysDeniedShort))
	}
	for _, o := range d.DeniedReads {
		for _, sub := range []string{"log", "diff", "grep", "blame"} {
			deny("denied on every allowed subcommand", sub, o.Option+"x")
		}
	}
	if len(d.DeniedAll) < 20 {
		t.Errorf("only %d denials on every subcommand described", len(d.DeniedAll))
	}
	for _, o := range d.DeniedAll {
		opt, _, _ := strings.Cut(o.Option, " ")
		subs := strings.Split(o.Sub, ", ")
		if o.Sub == "" {
			subs = []string{"push", "log", "submodule", "init"}
		}
		for _, sub := range subs {
			if o.Except != "" && strings.Contains(", "+o.Except+", ", ", "+sub+", ") {
				t.Fatalf("%s: the test's subcommand %s is an exception", o.Option, sub)
			}
			if strings.HasPrefix(opt, "--") {
				deny("denied on every subcommand", sub, opt+"=/x")
			} else {
				deny("denied on every subcommand", sub, opt+"x")
			}
		}
	}
	for _, o := range d.DeniedAll {
		for _, sub := range strings.Split(o.Except, ", ") {
			if v := Check([]string{sub, o.Option + "=x"}); sub != "" && v.Outcome == Deny {
				t.Errorf("%s is described as not denied on git %s, but Check denies it: %s", o.Option, sub, v.Reason)
			}
		}
	}
	if got := Harden([]string{"commit"}); !slices.Equal(got[:len(d.Harden)], d.Harden) || slices.Contains(got, d.HardenReadOnly[1]) {
		t.Errorf("Harden(commit) = %q, want %q first and none of the read-only settings", got, d.Harden)
	}
	want := append(append(append([]string{}, d.Harden...), d.HardenReadOnly...), "diff")
	want = append(want, d.AfterSubcommand...)
	if got := Harden([]string{"diff"}); !slices.Equal(got, want) {
		t.Errorf("Harden(diff) = %q, want %q", got, want)
	}
	if !slices.Equal(d.Env, Env()) {
		t.Errorf("Env = %q, want Env()", d.Env)
	}
}
