// Package output saves what the commands clada runs print, and keeps in
// memory only the part a report can show.
//
// A [Stream] is the sink of one stream (stdout or stderr) of one command:
// it writes everything it is given to a file under the project's
// .clada/out/ directory, counts bytes and lines, and keeps the first and
// the last few KiB in memory, from which [Stream.Excerpt] takes the head
// and tail a report shows within a budget. Memory per stream is bounded by
// its keep size, whatever the command prints.
//
// A [Store] is that directory: one numbered directory per clada run
// (.clada/out/RUN/BLOCK.stdout and .stderr), a .gitignore so the files
// never reach git, and a bounded history in which the newest runs win.
// Nothing is written until a command prints something, so a dry run, a
// check or a run whose commands print nothing writes no file.
//
// output knows nothing about specs, commands or reports: it takes bytes
// and hands back counts and excerpts.
package output
