// Package report writes what clada decided and what happened, in three
// formats: text for the model to read back, JSON Lines for
// programs, and GitHub annotations for dry runs in CI.
//
// The text report gives per RUN block its number, source:line, the command
// as clada understood it (each word quoted so it reads back exactly), then
// the decision with its rule, offending word, reason and what to do
// instead, or the exit status, duration and labelled stdout and stderr,
// and a summary line last. Control, bidi and zero-width characters, and
// bytes that are not UTF-8, are shown escaped, in text the model wrote and
// in command output alike, so nothing in a report can act on the terminal
// of the person reading it. Output is written line by line from the
// captured bytes, never copied whole.
//
// report only formats: it decides nothing and runs nothing.
package report
