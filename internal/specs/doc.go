// Package specs decides whether a command is safe to run without asking:
// command specs as data, getopt-style flag parsing, path confinement to the
// project root, the built-in hard blocks and the wrapper rule
// (docs/rules.md). It never starts a shell and only looks at argv and the file
// system, with one exception: a spec's guard (sed and awk --sandbox) is probed
// once per Set by running the installed program, outside the project, with
// the spec's probe arguments (docs/specs.md).
//
// # Specs
//
// The defaults live in default.toml and the packs under packs/, embedded
// with go:embed and decoded per command on first use ([Default]); the
// header of default.toml and docs/specs.md document every field. [Load] adds the
// project's .clada/specs.toml, where a [commands.NAME] table replaces the
// default spec of that name as a whole (fields are not merged, so a user
// spec says everything it allows). Malformed files are a *[SpecError]
// naming file, line and field. Each spec carries allow and deny examples;
// [Set.CheckExamples] verifies them (a test does so for the defaults,
// `clada specs --check` for a user's file). No spec can cover git (see
// gitrules), a wrapper or a hard-blocked program: loading such a spec fails.
//
// # Flags, as the programs parse them
//
//   - Short flags combine (-la); a short flag taking a value takes the rest
//     of its word (-n5, -an5) or the next word (-n 5), even one starting
//     with "-" (head -n -5), as getopt does. With short_values = "separate"
//     (tree), such a flag must end its word and takes the next word. With
//     clusters = false (xxd, which reads -al as -a and ignores the rest)
//     short flags never combine: a word is exactly one listed flag, or a
//     value flag with its value attached (-l64); -al is an unknown flag.
//   - Long flags take --name=value or --name value. They must be written in
//     full: GNU getopt accepts unambiguous prefixes (--out for --output),
//     but clada treats every word that is not an exact long name as an
//     unknown flag, so no abbreviation of a forbidden option can pass.
//     A bool flag given a value (--quiet=1) is denied.
//   - Optional values ("opt": --color[=WHEN], -I[FMT]) are only attached.
//   - Flags may follow operands (GNU permutation), unless permute = false
//     (xxd, which takes xxd a.txt -p as an output file -p); "--" ends the flags;
//     a lone "-" is an operand; -NUM is an option only with number_option.
//   - int values are [+-]digits or 0xHEX with at most three unit letters
//     (-5, +3, 10K, 0x10): such a value never names a file.
//   - date values (date -d, touch -d) are strings that never contain TZ=
//     in any case: GNU date strings take TZ="/any/file" and open that
//     file as a time zone (a FIFO hangs the program). date -f, which
//     reads date strings from a file, is forbidden for the same reason.
//   - Flags are case-sensitive: -R is not -r.
//   - find is parsed as find does: leading options, starting points, then
//     an expression of operators and the spec's tests only; actions that
//     run programs, delete or write files are never tests.
//
// Unknown and forbidden flags are denied with [rules.UnknownFlag] naming the
// word; a forbidden one says why (rm -f "forces removal and hides errors").
//
// # Paths
//
// Every path operand and every path-typed flag value is confined by a
// [Resolver]: resolved from the block's directory component by component,
// following symlinks (dangling ones too) before a following ".." is
// applied, then compared with the resolved root by whole components
// (/p/proj2 is not inside /p/proj). A leading "~" is denied, never
// expanded. Only a missing name (or one below a file) is taken as written;
// any other lookup error (ENAMETOOLONG, EACCES, …) denies the path, and so
// does a path, or its resolution, longer than 4095 bytes: the program, run
// deep inside a long directory chain, would follow links clada cannot see. Written paths (rm, touch, mkdir, mv's sources and destination,
// cp's destination, outpath flag values) may not be, or be inside, a
// directory named .git or .clada anywhere under the root, compared without
// regard to case: on case-insensitive file systems .GIT is .git, and on
// case-sensitive ones refusing .GIT costs nothing. For cp and mv into an
// existing directory, DIR/NAME of each source is checked as written too.
// Reading .git/config is allowed. On unix a written path may not be an
// existing regular file with more than one hard link (rules.ProtectedPath):
// the other link may be inside .git/ or .clada/, or outside the project
// (the sandbox checks paths, not inodes), so cp -l, which makes such
// links, is forbidden too. A mode that sets the setuid or setgid bit is
// denied wherever a spec takes one (mode_operand, mode_flags), and so is
// copying one from a file read (copies_mode: chmod --reference, cp -p).
//
// The Resolver caches the names it has seen (missing ones too), so it must be
// [Resolver.Reset] after a command runs. Programs that descend into
// directories (diff -r, cp -r, grep -r) may meet symlinks below the paths
// given; specs forbid the flags that follow those (grep -R, ls -L, find -L,
// du -L, tree -l, rg -L; cp -L is asked, and a recursive cp -L source holding
// a symlink is denied as for cp -r), and diff runs with --no-dereference.
// A recursive copy writes through the symlinks it meets in an existing
// destination tree, so with a walk_target flag (cp -r, -a) every existing
// directory it writes into (DEST/NAME of each source, or DEST itself with a
// target_self flag: cp -T, mv -T) is walked without following symlinks;
// a symlink, a hard-linked file or a .git/.clada directory below it, or
// more than 10,000 entries, is rules.ProtectedPath naming it. cp -s and
// --parents, which make such symlinks or write through them, are forbidden.
// A recursive copy also copies the symlinks of its sources as they are (a
// source that is a symlink too), and a relative one with ".." copied to a
// shallower place points elsewhere: so each source of a walk_target copy
// that is a symlink, or a directory holding one (same bound), is denied.
//
// # Order of [Set.Check]
//
// A wrapper ([Wrapper]: env, xargs, shells, python -c, …) is Ask with
// [rules.Wrapper], whatever any spec says; an argv[0] containing a slash is
// NoSpec (specs apply to bare names only); git goes to gitrules; a name
// without a spec is NoSpec; then the spec. Allowed programs are resolved
// once per name per Set with exec.LookPath; Exec holds the absolute path.
// [HardBlock] is separate, because the gateway applies it first.
//
// # Deleting and overwriting
//
// A spec's destroys field (none, all, last; by default what writes says)
// and edit_flags say which path operands the command deletes or replaces;
// [Verdict.Destroys] lists those that exist (see destroy.go for which
// symlinks are followed), with the existing files that outpath flag
// values name (sort -o), that tree_flags remove (pytest --basetemp), the
// NAME~ that backup_flags replace (cp -b), every directory an
// extract_flags command extracts into, with everything under it (tar
// -x), and the files git format-patch may write into its output
// directory (gitrules.PatchNames). specs does not decide whether that is
// allowed: the gateway asks git whether it can restore them.
//
// # Simple wrappers
//
// [Unwrap] takes env, nice, timeout, time, stdbuf and nohup apart as they
// parse their arguments (getopt in "+" mode, unique abbreviations of long
// options, optional values only attached), checks their own words (env's
// assignments against a short safe list, durations, signals) and returns
// the command they run, which the gateway decides as if it stood alone.
package specs
