package gateway

import (
	"context"
	"testing"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/rules"
)

// TestMissingProgramIsNotAsked: a program that is not installed keeps the
// decision of the rules, and running it reports exit 127 without asking
// the person, who cannot approve what cannot start.
func TestMissingProgramIsNotAsked(t *testing.T) {
	t.Parallel()
	g, _ := newTestGateway(t)
	p := plan(t, g, "<---RUN--->\nno-such-program-clada-x --version\n<---END--->\n")
	r := p.Results[0]
	if r.Decision != Ask || r.Rule != rules.NotInSpecs || r.Missing == "" {
		t.Fatalf("planned: %s (%s), missing %q; want ask (not-in-specs) with a note", r.Decision, r.Rule, r.Missing)
	}
	asker := &fakeAsker{answers: []approve.Answer{approve.Yes}}
	g.Execute(context.Background(), p, ExecOptions{Asker: asker}, nil)
	if len(asker.asked) != 0 {
		t.Errorf("the person was asked %d times about a program that is not installed", len(asker.asked))
	}
	if r.Status != StatusRan || r.Run == nil || r.Run.ExitCode != 127 || r.Rule != rules.NotFound || r.ApprovedBy != ApprovedNotInstalled {
		t.Errorf("ran: status %s, rule %s, approved by %q, result %+v; want exit 127, program-not-found", r.Status, r.Rule, r.ApprovedBy, r.Run)
	}
	if !r.Failed() {
		t.Error("a program that is not installed does not count as a failure")
	}
}
