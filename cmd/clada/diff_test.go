package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
)

// These tests compare with go-internal's diff, which testscript links
// anyway, rather than go-cmp: every clada the scripts start is this test
// binary, and go-cmp's package initialisation (regular expressions
// compiled at start) cost each of those hundreds of processes about a
// tenth of its CPU.

// diffText is "" when got is want, else a line diff of the two (-want
// +got).
func diffText(want, got string) string {
	if want == got {
		return ""
	}
	return string(diff.Diff("want", []byte(want), "got", []byte(got)))
}

// diffLines is "" when got has the same elements as want in the same
// order, else a line diff (-want +got). As with go-cmp, a nil slice and
// an empty one differ.
func diffLines(want, got []string) string {
	if slices.Equal(want, got) && (want == nil) == (got == nil) {
		return ""
	}
	join := func(s []string) string {
		if len(s) == 0 {
			return ""
		}
		return strings.Join(s, "\n") + "\n"
	}
	if d := diffText(join(want), join(got)); d != "" {
		return d
	}
	return fmt.Sprintf("want %#v, got %#v", want, got)
}
