package gateway_test

import (
	"strings"
	"testing"

	"github.com/clada/clada/bench"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/parser"
)

// BenchmarkPlan decides every block of the 10,000-block document that
// bench/run.sh feeds to `clada run --dry-run`, in the demo project, with
// a new Gateway per iteration so that every pass starts with cold caches,
// as a process does. Parsing is outside the timer (see the parser's
// BenchmarkDocument); the figure is blocks/s.
func BenchmarkPlan(b *testing.B) {
	root := b.TempDir()
	if err := bench.Project(root); err != nil {
		b.Fatal(err)
	}
	const n = 10000
	doc, err := parser.New().Blocks("doc.csl", strings.NewReader(bench.Document(n)))
	if err != nil || !doc.OK() {
		b.Fatalf("generated document: %v %v %v", err, doc.Fatal, doc.Errors)
	}
	docs := []*parser.Document{doc}
	for b.Loop() {
		g, err := gateway.New(gateway.Options{Root: root})
		if err != nil {
			b.Fatal(err)
		}
		p := g.Plan(docs)
		if len(p.Results) != n {
			b.Fatalf("planned %d blocks, want %d", len(p.Results), n)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "blocks/s")
}

// BenchmarkDecide is one Decide call per command of the mix on a warm
// Gateway: the cost per command once the caches are filled.
func BenchmarkDecide(b *testing.B) {
	root := b.TempDir()
	if err := bench.Project(root); err != nil {
		b.Fatal(err)
	}
	doc, err := parser.New().Blocks("doc.csl", strings.NewReader(bench.Document(25)))
	if err != nil || !doc.OK() {
		b.Fatalf("generated document: %v", err)
	}
	g, err := gateway.New(gateway.Options{Root: root})
	if err != nil {
		b.Fatal(err)
	}
	var blocks []parser.Block
	for _, bl := range doc.Blocks {
		if bl.Argv != nil {
			blocks = append(blocks, bl)
		}
	}
	i := 0
	for b.Loop() {
		bl := blocks[i%len(blocks)]
		g.Decide(bl.Argv, bl.Dir)
		i++
	}
}
