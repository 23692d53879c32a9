// Package gitrules decides whether a git command line is read-only enough to
// run without asking, and hardens the command line that clada actually runs.
//
// [Check] screens argv (without the leading "git") as git parses it:
//
//   - Global options are screened by position, before the subcommand word, so
//     "git log -c" is log's -c (combined diff) while "git -c k=v log" is the
//     global -c that sets configuration, which is denied. Globals that change
//     what git runs or where it looks (-c, -C, --git-dir, --work-tree,
//     --exec-path, --namespace, --config-env, --super-prefix, --bare, ...) and
//     -p/--paginate are denied; so is any global clada does not know.
//   - On every subcommand, asked ones included, options that make git run a
//     program the model names (--upload-pack, --receive-pack, --exec,
//     rebase -x, clone/fetch/pull/ls-remote -u, -O in a grep cluster,
//     --template, --separate-git-dir, clone --config/-c of a key that
//     runs programs or redirects the clone (cloneConfigWhy), difftool
//     --extcmd, send-email's *-cmd options) are denied, so a person is never
//     asked to approve one; an output path (--output, format-patch -o,
//     archive -o) is reported in [Verdict.Writes] and a --reference in
//     [Verdict.Paths] for the caller to confine. See programs.go.
//   - The subcommand must be one of git's reads: status, diff, log, show,
//     grep (never -O), blame, shortlog, describe, rev-list, rev-parse,
//     for-each-ref, show-ref, show-branch, merge-base, name-rev, cherry,
//     cat-file, ls-files, ls-tree, diff-tree, diff-index, diff-files,
//     whatchanged, check-ignore, check-attr, count-objects,
//     hash-object (without -w), symbolic-ref NAME, version, and the read
//     forms of branch and tag (listing), reflog (show, list, exists),
//     stash list/show, worktree list, notes list/show, bisect log/terms,
//     clean -n, remote [-v], remote get-url, remote show -n, config
//     --get/--get-all/--get-regexp/--list (and config get/list), and
//     format-patch, whose output directory ([Verdict.Writes]) the caller
//     confines as written, and in which it checks the existing files
//     that git may replace ([Verdict.Patches], [PatchNames]). Any other subcommand (commit, push, checkout,
//     an alias, "Status" in the wrong case, ...) is [Ask]: the person at
//     the terminal decides; the reason says when it contacts the network
//     (fetch, pull, push, ls-remote, remote show). Risky but legitimate
//     forms of the reads are [Ask] with the reason: creating, deleting,
//     renaming or reconfiguring a branch or tag, stash pop/apply/drop/
//     clear/branch, reflog expire/delete, clean without -n, config writes,
//     remote add/set-url. "git stash" alone and stash push/save/create/store
//     create a stash and are [Ask], like commit. --help after a subcommand
//     opens the manual and is [Ask]; -h prints the usage and is allowed.
//   - Reading configuration can reveal credentials: [Verdict.Config] names
//     what a command prints (config --get/--list, remote -v), and the caller
//     looks at the configuration files ([CredentialEntry]); credential.*,
//     http.*.extraheader, keys naming a password, token or secret, and URLs
//     with a user-info part are asked. Names that hold credentials by
//     themselves (git config --get credential.helper) are asked here.
//   - Every option of a listed subcommand must be in that subcommand's table.
//     Long options are matched as git's parse-options does: an unambiguous
//     prefix ("--out=x") is the option it abbreviates, an ambiguous or unknown
//     one is denied, and case matters ("--OUTPUT" is unknown). git
//     itself rejects abbreviations of diff and log options; screening them
//     the same way everywhere costs nothing. Combined short
//     flags ("-rf") are split so no denied letter can hide inside them.
//     Options that write files or run programs (--output, --ext-diff,
//     --textconv, --upload-pack, --exec, -O/--open-files-in-pager,
//     --no-index, --contents, --show-signature, --paginate) are denied
//     wherever they appear (but check-ignore's own --no-index, which only
//     leaves the index out). A value given as a separate word that starts with
//     "-" is denied when, read as an option, it would be a denied or asking
//     one, so a value-taking flag can never hide an option; git takes it as
//     the value (git for-each-ref --sort -committerdate).
//   - "--" and "--end-of-options" end options; what follows is reported in
//     [Verdict.Paths] together with every other positional argument that git
//     may open as a file (a revision such as HEAD~1 is reported too: git
//     decides between revision and path at run time, so the caller confines
//     all of them to the project root). Branch patterns are not paths.
//     Confining them matters: git diff compares two paths as --no-index
//     would when one of them lies outside the working tree.
//   - "git" alone, "git --version" and "git version" are allowed (they print
//     text); "git --help"/"-h" is [Ask], because help starts man or a browser.
//
// [Harden] returns the arguments clada passes to git: --no-pager and -c
// settings that stop repository configuration from starting programs (pager,
// fsmonitor hook, every hook through core.hooksPath, the OpenPGP, X.509 and
// SSH signature programs, transports for lazy fetches) or writing the index
// (diff.autoRefreshIndex), plus --no-ext-diff and --no-textconv right after
// every read-only subcommand whose table knows them (diff, log, show,
// whatchanged, reflog, format-patch, diff-tree, stash list,
// stash show …; --no-textconv after blame). A read-only form that shows a
// diff without such an option (status -v) is denied; range-diff, whose
// child git log gets none of them, is asked. The read-only
// settings are added only for forms that are not asked, so an approved git
// tag -s can still sign. [Env] returns the extra
// environment. Environment variables cannot unset configuration (an empty
// GIT_EXTERNAL_DIFF simply means "not set", and diff.external from
// .git/config still applies), so the -c and -- flags are the real guard; the
// tests run a real git against a booby-trapped repository to prove it.
//
// gitrules will not: run git, resolve or confine paths (the caller does that
// with [Verdict.Paths]), or disable clean/smudge filter drivers, which git
// runs for status and diff and which no generic option turns off; those come
// from git configuration that a model cannot write (.git/ is protected and
// ~/.gitconfig is outside the project).
package gitrules
