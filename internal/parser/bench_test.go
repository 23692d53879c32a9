package parser_test

import (
	"strings"
	"testing"

	"github.com/clada/clada/bench"
	"github.com/clada/clada/internal/parser"
)

// BenchmarkDocument parses the 10,000-block document of bench/run.sh
// (every RUN body to argv included) with one Parser; the figure is
// blocks/s.
func BenchmarkDocument(b *testing.B) {
	const n = 10000
	in := bench.Document(n)
	p := parser.New()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		d, err := p.Blocks("doc.csl", strings.NewReader(in))
		if err != nil || !d.OK() || len(d.Blocks) != n {
			b.Fatalf("%v %v %d", err, d.Fatal, len(d.Blocks))
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "blocks/s")
}

// BenchmarkCommand parses single RUN bodies, allowed and refused ones,
// with a reused Parser (the "reused" case) and with a new one per body
// (the "new" case), which is what the levers list claims matters.
func BenchmarkCommand(b *testing.B) {
	bodies := []string{
		"git status",
		"grep -rn \"func \" parser/command.go",
		"find . -name '*.go' -type f",
		"rm -rf build && echo done",
		"cat $HOME/.ssh/id_rsa",
	}
	b.Run("reused", func(b *testing.B) {
		p := parser.New()
		i := 0
		for b.Loop() {
			p.Command(bodies[i%len(bodies)])
			i++
		}
	})
	b.Run("new", func(b *testing.B) {
		i := 0
		for b.Loop() {
			parser.New().Command(bodies[i%len(bodies)])
			i++
		}
	})
}
