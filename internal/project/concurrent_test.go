package project

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
)

// alwaysAsker answers always to every question.
type alwaysAsker struct{}

func (alwaysAsker) Ask(context.Context, approve.Question, time.Duration) (approve.Answer, approve.NoReason, error) {
	return approve.Always, "", nil
}

// One Project serves many requests at once, as clada mcp does: each
// takes its own gateway, decides and runs, and an always answered in one
// is seen by the others through the shared, live approvals. Run under
// -race.
func TestProjectConcurrentRequests(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mkdirs(t, root, ".clada")
	p, err := Open(Options{Root: root, WorkDir: root})
	if err != nil {
		t.Fatal(err)
	}
	const n = 10
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g, err := p.Gateway()
			if err != nil {
				errs <- err
				return
			}
			// `true` with a distinct argument is in no spec: asked, then
			// remembered; `touch` is allowed by its spec.
			doc := fmt.Sprintf("<---RUN--->\ntrue %d\n<---END--->\n<---RUN--->\ntouch f%d\n<---END--->\n", i, i)
			d, err := parser.New().Blocks("<test>", strings.NewReader(doc))
			if err != nil {
				errs <- err
				return
			}
			plan := g.Plan([]*parser.Document{d})
			g.Execute(context.Background(), plan, gateway.ExecOptions{Asker: alwaysAsker{}}, nil)
			for _, r := range plan.Results {
				if r.Status != gateway.StatusRan || !r.Run.OK() {
					errs <- fmt.Errorf("request %d: %s: %s %s (%s)", i, r.Command, r.Status, r.NotApproved, r.Reason)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	g, err := p.Gateway()
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if r := g.Check(fmt.Sprintf("true %d", i), ""); r.Decision != gateway.Allow || r.Rule != rules.AllowedPattern {
			t.Errorf("after always, `true %d` = %s (%s); want allowed by its pattern", i, r.Decision, r.Rule)
		}
		if _, err := os.Stat(filepath.Join(root, fmt.Sprintf("f%d", i))); err != nil {
			t.Errorf("touch f%d did not run: %v", i, err)
		}
	}
}
