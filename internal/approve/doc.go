// Package approve keeps clada's own permission files and asks the person at
// the terminal (docs/config.md, Files in .clada/).
//
// # The commands store
//
// .clada/commands.toml holds two lists of patterns, allowed and blocked.
// A pattern is a command line that the caller's [ParseFunc] (clada passes
// parser.Command) turns into argv; approve never parses shell words
// itself. A pattern matches a command whose argv equals it, or, when the
// pattern ends in a separate unquoted word *, whose argv starts with the
// words before the * followed by zero or more further words: `npm test *`
// matches `npm test` and `npm test x`, never `npm tests`. A quoted '*' is
// an ordinary word and only matches a literal * argument, so approving
// `rm '*'` "always" never allows every rm. See [Pattern.Match].
//
// [Add] and [Remove] change the file under a lock on
// .clada/commands.toml.lock (github.com/gofrs/flock), re-reading it after
// taking the lock, and write it atomically (temporary file in .clada and
// rename), so concurrent clada processes never lose an entry and a reader
// never sees a half-written file. clada rewrites the file in a canonical
// form: a fixed header comment, then allowed and blocked, one pattern per
// line, in the order they were added. Other comments are not kept.
// Adding a pattern to one list removes the same pattern (same argv) from
// the other, so a command is never both allowed and blocked by the same
// entry.
//
// A legacy .clada/commands.json ({"allowed": [...], "blocked": [...]}) is
// read too, and its entries follow those of commands.toml. The first write
// migrates it: the TOML file then holds every entry and commands.json is
// renamed to commands.json.migrated, so a forgotten entry stays forgotten.
//
// A file that does not parse, has unknown keys or holds a pattern the
// ParseFunc refuses is a [*FileError] naming the file and line; clada
// never rewrites such a file.
//
// # Configuration
//
// [LoadConfig] reads .clada/config.toml: timeout, max_output,
// approval_timeout, untrusted and hard_blocks. Unknown keys, wrong types
// and out-of-range values are errors naming key, file and line. Command
// line flags override the file; that is the CLI's job.
//
// # The prompt
//
// A [Prompter] asks on the controlling terminal ([OpenTTY]: /dev/tty, or
// CONIN$/CONOUT$ on Windows), never on stdin, which carries the CSL. Only
// y/yes, n/no, a/always and v/never are answers, and p/prefix when the
// question offers a prefix pattern (go test *) to remember instead of the
// exact command; anything else asks again.
// End of input, no answer within the approval timeout and no terminal all
// mean no, and [Prompter.Ask] says which. approve never runs commands and
// never writes files on its own when a question is answered: the caller
// runs the command and calls [Add] for always, prefix and never.
package approve
