// Package teststate gives the tests of a package, from their TestMain, a
// state directory of their own (CLADA_STATE_DIR, where clada records
// which project files the person trusts), so that no test reads or
// writes the person's own record. A test stands for the person when it
// trusts the files it wrote (approve.TrustCurrent).
package teststate

import "os"

// TestingM is what M needs of a *testing.M.
type TestingM interface{ Run() int }

// M is m, whose Run first sets CLADA_STATE_DIR to a new temporary
// directory for the tests and the programs they start, and removes it
// after.
func M(m TestingM) TestingM { return wrapped{m} }

type wrapped struct{ m TestingM }

func (w wrapped) Run() int {
	dir, err := os.MkdirTemp("", "clada-state-")
	if err != nil {
		panic(err) // the tests must never use the person's own record
	}
	defer os.RemoveAll(dir)
	os.Setenv("CLADA_STATE_DIR", dir)
	return w.m.Run()
}
