// Package parser reads what a model wrote: CSL documents (docs/csl.md)
// into blocks with line numbers and attributes, and each RUN body into an
// argv with mvdan.cc/sh/v3/syntax in bash mode.
//
// A RUN body becomes an argv only when it is one simple command whose words
// are literal text, single-quoted text or double-quoted literal text; the
// argv is what bash would produce for the same words (quote removal,
// backslash escapes, line continuations). Everything a shell would have to
// interpret — pipes, chaining, redirections, expansions, substitutions,
// globs, brace and tilde expansion, assignments, compound commands and
// builtins — is refused with a [*rules.Denied] naming the rule, the word,
// its position and what to write instead.
//
// parser never expands anything and never imports mvdan's expand or interp
// packages: nothing here can run a command. WRITE and SEARCH blocks are
// recognised and skipped whole; nothing inside them ever becomes a command.
package parser
