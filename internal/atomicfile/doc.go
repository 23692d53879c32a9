// Package atomicfile replaces a file's content so that a reader sees the
// old content or the new, never half of it: clada's one copy of
// write-to-a-temporary-file-and-rename, for the files it keeps
// (.clada/commands.toml, the trust record, agents' settings files) and
// the protected files the sandbox restores.
//
// atomicfile never follows a link at the path it replaces, never creates
// directories, and leaves each caller its own permissions and fsync.
package atomicfile
