package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/clada/clada/approve"
	"github.com/clada/clada/gateway"
	"github.com/clada/clada/project"
	"github.com/clada/clada/report"
	"github.com/clada/clada/specs"
)

func main() {
	var ts []time.Time
	mark := func() { ts = append(ts, time.Now()) }
	mark()
	wd, _ := os.Getwd()
	root, _ := project.FindRoot(wd)
	mark()
	approve.LoadConfig(root)
	mark()
	approve.LoadCommands(root, gateway.ParsePattern)
	mark()
	specs.Default()
	mark()
	p, err := project.Open(project.Options{})
	if err != nil {
		panic(err)
	}
	mark()
	g, err := p.Gateway()
	if err != nil {
		panic(err)
	}
	mark()
	r := g.Check("git status", "")
	mark()
	r = g.Check("git status", "")
	mark()
	rep := report.New(io.Discard, report.Text, report.Options{DryRun: true})
	rep.Block(r)
	mark()
	for i := 1; i < len(ts); i++ {
		fmt.Fprintf(os.Stderr, "%d ", ts[i].Sub(ts[i-1]).Microseconds())
	}
	fmt.Fprintln(os.Stderr)
}
