// Package report writes what clada decided and what happened, in three
// formats: text for the model to read back, JSON Lines for
// programs, and GitHub annotations for dry runs in CI.
//
// The text report gives per RUN block its number, source:line, the command
// as clada understood it (each word quoted so it reads back exactly), then
// the decision with its rule, offending word, reason and what to do
// instead, or the exit status, duration and the command's output, and a
// summary line last. Output is shown between fence lines at column 1
// (```stdout … ```), made longer than any run of backticks that starts a
// line of the output, while every line of clada's own is indented: no
// output can pass for the report, and no prefix per line doubles its size.
//
// Each block's output is shown within a budget ([Options.Budget], default
// 10 KiB and 256 lines for stdout and stderr together), and the whole
// report within a document budget (64 KiB): output over it shows its first
// and, with the larger share, its last lines, and one marker line between
// them that counts what is left out, names the file under .clada/out/
// that holds it all (see package output) and gives allowed commands that
// read it. JSON carries the same shown text plus the saved paths and full
// counts.
//
// Control, bidi and zero-width characters, and bytes that are not UTF-8,
// are shown escaped, in text the model wrote and in command output alike,
// so nothing in a report can act on the terminal of the person reading it.
//
// report only formats: it decides nothing and runs nothing.
package report
