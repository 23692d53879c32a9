// Package bench generates the inputs of clada's performance suite: a
// project tree to run in and CSL documents of realistic commands. It is
// used by bench/gen (for bench/run.sh) and by the Go benchmarks, so that
// the script and `go test -bench` measure the same documents.
//
// Nothing here is downloaded or random: the same arguments always give
// the same bytes, so anyone can repeat a measurement. See README.md for
// how to run the suite and what each figure means.
package bench
