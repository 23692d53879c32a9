package bench_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clada/clada/specs"
)

// BenchmarkDefaultSpecsParse parses a copy of specs/default.toml as every
// clada process does once at start (specs.Default), to show what that
// costs next to the whole `clada check` (see README.md, profile).
func BenchmarkDefaultSpecsParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "specs", "default.toml"))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "default.toml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		set, err := specs.LoadFile(path)
		if err != nil || len(set.Names()) == 0 {
			b.Fatalf("%v", err)
		}
	}
}
