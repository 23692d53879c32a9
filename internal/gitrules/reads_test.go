package gitrules

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/rules"
)

// readCases cover the read-only subcommands beyond status/diff/log/show,
// and the forms of them that ask or deny (issue 15).
var readCases = []checkCase{
	// shortlog
	{name: "shortlog", in: "shortlog", want: Allow, sub: "shortlog"},
	{name: "shortlog numbered summary email", in: "shortlog -sne --all", want: Allow, sub: "shortlog", reason: "-n is --numbered here, not log's count"},
	{name: "shortlog long forms", in: "shortlog --summary --numbered --email --all", want: Allow, sub: "shortlog"},
	{name: "shortlog committer", in: "shortlog -c", want: Allow, sub: "shortlog"},
	{name: "shortlog range", in: "shortlog HEAD~5..HEAD", want: Allow, sub: "shortlog", paths: []string{"HEAD~5..HEAD"}},
	{name: "shortlog group", in: "shortlog --group=trailer:co-authored-by", want: Allow, sub: "shortlog"},
	{name: "shortlog width", in: "shortlog -w80,4,8", want: Allow, sub: "shortlog"},
	{name: "shortlog output", in: "shortlog --output=x", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "shortlog"},

	// for-each-ref
	{name: "for-each-ref", in: "for-each-ref", want: Allow, sub: "for-each-ref"},
	{name: "for-each-ref patterns are not paths", in: "for-each-ref refs/heads/ refs/tags/", want: Allow, sub: "for-each-ref"},
	{name: "for-each-ref merged", in: "for-each-ref --merged HEAD refs/heads/", want: Allow, sub: "for-each-ref"},
	{name: "for-each-ref format", args: []string{"for-each-ref", "--format", "%(refname:short)"}, want: Allow, sub: "for-each-ref"},
	{name: "for-each-ref sort descending separate", in: "for-each-ref --sort -committerdate", want: Allow, sub: "for-each-ref"},
	{name: "for-each-ref sort descending attached", in: "for-each-ref --sort=-committerdate", want: Allow, sub: "for-each-ref"},
	{name: "for-each-ref count", in: "for-each-ref --count 5", want: Allow, sub: "for-each-ref"},
	{name: "for-each-ref shell quoting", in: "for-each-ref --shell --format=x", want: Allow, sub: "for-each-ref"},

	// rev-list
	{name: "rev-list count", in: "rev-list --count HEAD", want: Allow, sub: "rev-list", paths: []string{"HEAD"}},
	{name: "rev-list all objects", in: "rev-list --all --objects", want: Allow, sub: "rev-list"},
	{name: "rev-list range path", in: "rev-list main..HEAD -- src", want: Allow, sub: "rev-list", paths: []string{"main..HEAD", "src"}},
	{name: "rev-list number", in: "rev-list -3 HEAD", want: Allow, sub: "rev-list", paths: []string{"HEAD"}},
	{name: "rev-list output", in: "rev-list --output=x HEAD", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "rev-list"},

	// describe
	{name: "describe", in: "describe", want: Allow, sub: "describe"},
	{name: "describe abbrev", in: "describe --abbrev=4", want: Allow, sub: "describe"},
	{name: "describe all tags", in: "describe --all --tags --always", want: Allow, sub: "describe"},
	{name: "describe dirty asks", in: "describe --dirty", want: Ask, rule: rules.GitSubcommand, arg: "--dirty", sub: "describe", reason: "git describe --dirty rewrites .git/index (found by the strace test)"},
	{name: "log max-parents bare", in: "log --max-parents /outside/x", want: Allow, sub: "log", paths: []string{"/outside/x"}, reason: "git reads --max-parents only as --max-parents=N; the next word is looked up as a file"},
	{name: "log max-parents attached", in: "log --max-parents=1", want: Allow, sub: "log"},
	{name: "rev-list filter bare", in: "rev-list --filter /outside/x", want: Allow, sub: "rev-list", paths: []string{"/outside/x"}},
	{name: "rev-list missing bare", in: "rev-list --missing /outside/x", want: Allow, sub: "rev-list", paths: []string{"/outside/x"}},
	{name: "format-patch decorate-refs bare", in: "format-patch --stdout --decorate-refs /outside/x", want: Allow, sub: "format-patch", paths: []string{"/outside/x"}},
	{name: "log remerge-diff", in: "log --remerge-diff", want: Deny, rule: rules.GitOption, arg: "--remerge-diff", sub: "log", reason: "writes temporary objects into .git/objects"},
	{name: "log diff-merges remerge", in: "log --diff-merges=remerge", want: Deny, rule: rules.GitOption, arg: "--diff-merges=remerge", sub: "log"},
	{name: "show diff-merges r", in: "show --diff-merges r", want: Deny, rule: rules.GitOption, arg: "--diff-merges", sub: "show"},
	{name: "log diff-merges first-parent", in: "log --diff-merges=first-parent", want: Allow, sub: "log"},
	{name: "describe rev", in: "describe v1.0.0", want: Allow, sub: "describe", paths: []string{"v1.0.0"}},
	{name: "describe unknown", in: "describe --frob", want: Deny, rule: rules.GitOption, arg: "--frob", sub: "describe"},

	// check-ignore, check-attr
	{name: "check-ignore", in: "check-ignore -v a.txt", want: Allow, sub: "check-ignore", paths: []string{"a.txt"}},
	{name: "check-ignore outside is reported", in: "check-ignore ../x", want: Allow, sub: "check-ignore", paths: []string{"../x"}, reason: "the caller confines it"},
	{name: "check-ignore no-index", in: "check-ignore --no-index a.txt", want: Allow, sub: "check-ignore", paths: []string{"a.txt"}, reason: "check-ignore's --no-index leaves the index out; it is not diff's --no-index"},
	{name: "check-attr", in: "check-attr -a -- a.txt", want: Allow, sub: "check-attr", paths: []string{"a.txt"}},

	// diff-tree, diff-index, diff-files, range-diff, whatchanged
	{name: "diff-tree", in: "diff-tree HEAD~1 HEAD", want: Allow, sub: "diff-tree", paths: []string{"HEAD~1", "HEAD"}},
	{name: "diff-tree recursive patch", in: "diff-tree -r -p HEAD~1 HEAD", want: Allow, sub: "diff-tree", paths: []string{"HEAD~1", "HEAD"}},
	{name: "diff-tree path", in: "diff-tree HEAD~1 HEAD -- notes.md", want: Allow, sub: "diff-tree", paths: []string{"HEAD~1", "HEAD", "notes.md"}},
	{name: "diff-tree no-commit-id", in: "diff-tree --no-commit-id --name-only -r HEAD", want: Allow, sub: "diff-tree", paths: []string{"HEAD"}},
	{name: "diff-tree ext-diff", in: "diff-tree -p --ext-diff HEAD", want: Deny, rule: rules.GitOption, arg: "--ext-diff", sub: "diff-tree"},
	{name: "diff-tree textconv", in: "diff-tree --textconv HEAD", want: Deny, rule: rules.GitOption, arg: "--textconv", sub: "diff-tree"},
	{name: "diff-index cached", in: "diff-index --cached HEAD", want: Allow, sub: "diff-index", paths: []string{"HEAD"}},
	{name: "diff-files", in: "diff-files -p", want: Allow, sub: "diff-files"},
	{name: "range-diff asks", in: "range-diff main...HEAD", want: Ask, rule: rules.GitSubcommand, arg: "range-diff", sub: "range-diff", reason: "its child git log runs textconv programs"},
	{name: "range-diff program option still denied", in: "range-diff -O/tmp/x main...HEAD", want: Deny, rule: rules.GitOption, arg: "-O/tmp/x", sub: "range-diff"},
	{name: "whatchanged", in: "whatchanged -3", want: Allow, sub: "whatchanged"},

	// grep
	{name: "grep pattern is not a path", in: "grep -n TODO", want: Allow, sub: "grep"},
	{name: "grep pattern looks like a path", in: "grep /etc/passwd", want: Allow, sub: "grep", reason: "the first positional is the pattern"},
	{name: "grep pattern and paths", in: "grep foo -- src docs", want: Allow, sub: "grep", paths: []string{"src", "docs"}},
	{name: "grep tree", in: "grep foo HEAD~1", want: Allow, sub: "grep", paths: []string{"HEAD~1"}},
	{name: "grep -e patterns then paths", in: "grep -e a --and -e b src", want: Allow, sub: "grep", paths: []string{"src"}},
	{name: "grep parens", in: "grep -e a --and ( -e b --or -e c )", want: Allow, sub: "grep"},
	{name: "grep pattern file", in: "grep -f pats.txt", want: Allow, sub: "grep", paths: []string{"pats.txt"}},
	{name: "grep context digits", in: "grep -3 foo", want: Allow, sub: "grep"},
	{name: "grep context", in: "grep -C 2 -i foo", want: Allow, sub: "grep"},
	{name: "grep -h is no-filename", in: "grep -h foo", want: Allow, sub: "grep"},
	{name: "grep cached untracked", in: "grep --cached --untracked foo", want: Allow, sub: "grep"},
	{name: "grep open files in pager", in: "grep --open-files-in-pager foo", want: Deny, rule: rules.GitOption, arg: "--open-files-in-pager", sub: "grep"},
	{name: "grep open abbreviated", in: "grep --open=vi foo", want: Deny, rule: rules.GitOption, arg: "--open=vi", sub: "grep"},
	{name: "grep O attached", in: "grep -Ovi foo", want: Deny, rule: rules.GitOption, arg: "-Ovi", sub: "grep"},
	{name: "grep O in cluster", in: "grep -nO foo", want: Deny, rule: rules.GitOption, arg: "-nO", sub: "grep"},
	{name: "grep textconv", in: "grep --textconv foo", want: Deny, rule: rules.GitOption, arg: "--textconv", sub: "grep"},
	{name: "grep no-index", in: "grep --no-index foo /etc", want: Deny, rule: rules.GitOption, arg: "--no-index", sub: "grep"},

	// reflog
	{name: "reflog", in: "reflog", want: Allow, sub: "reflog"},
	{name: "reflog ref", in: "reflog feature", want: Allow, sub: "reflog", paths: []string{"feature"}},
	{name: "reflog count", in: "reflog -n 5", want: Allow, sub: "reflog"},
	{name: "reflog max-count", in: "reflog --max-count 5", want: Allow, sub: "reflog"},
	{name: "reflog show", in: "reflog show --date=iso HEAD", want: Allow, sub: "reflog", paths: []string{"HEAD"}},
	{name: "reflog list", in: "reflog list", want: Allow, sub: "reflog list"},
	{name: "reflog exists", in: "reflog exists main", want: Allow, sub: "reflog exists"},
	{name: "reflog expire asks", in: "reflog expire --all", want: Ask, rule: rules.GitSubcommand, arg: "expire", sub: "reflog expire"},
	{name: "reflog delete asks", in: "reflog delete HEAD@{1}", want: Ask, rule: rules.GitSubcommand, arg: "delete", sub: "reflog delete"},
	{name: "reflog output", in: "reflog --output=x", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "reflog"},

	// show-ref, merge-base, cat-file, ls-tree, name-rev, count-objects, cherry, show-branch
	{name: "show-ref", in: "show-ref --heads --tags", want: Allow, sub: "show-ref"},
	{name: "show-ref verify", in: "show-ref --verify refs/heads/main", want: Allow, sub: "show-ref"},
	{name: "merge-base", in: "merge-base main feature", want: Allow, sub: "merge-base", paths: []string{"main", "feature"}},
	{name: "merge-base is-ancestor", in: "merge-base --is-ancestor HEAD~1 HEAD", want: Allow, sub: "merge-base", paths: []string{"HEAD~1", "HEAD"}},
	{name: "cat-file pretty", in: "cat-file -p HEAD:a.txt", want: Allow, sub: "cat-file", reason: "object names are not paths"},
	{name: "cat-file type", in: "cat-file -t HEAD", want: Allow, sub: "cat-file"},
	{name: "cat-file type and object", in: "cat-file blob HEAD:a.txt", want: Allow, sub: "cat-file"},
	{name: "cat-file textconv", in: "cat-file --textconv HEAD:a.txt", want: Deny, rule: rules.GitOption, arg: "--textconv", sub: "cat-file"},
	{name: "cat-file filters", in: "cat-file --filters HEAD:a.txt", want: Deny, rule: rules.GitOption, arg: "--filters", sub: "cat-file"},
	{name: "cat-file filters abbreviated", in: "cat-file --filt HEAD:a.txt", want: Deny, rule: rules.GitOption, arg: "--filt", sub: "cat-file"},
	{name: "ls-tree", in: "ls-tree -r --name-only HEAD", want: Allow, sub: "ls-tree", paths: []string{"HEAD"}},
	{name: "ls-tree path", in: "ls-tree HEAD src", want: Allow, sub: "ls-tree", paths: []string{"HEAD", "src"}},
	{name: "name-rev", in: "name-rev --name-only HEAD", want: Allow, sub: "name-rev", paths: []string{"HEAD"}},
	{name: "count-objects", in: "count-objects -vH", want: Allow, sub: "count-objects"},
	{name: "cherry", in: "cherry -v main", want: Allow, sub: "cherry", paths: []string{"main"}},
	{name: "show-branch", in: "show-branch -a", want: Allow, sub: "show-branch"},
	{name: "symbolic-ref read", in: "symbolic-ref --short HEAD", want: Allow, sub: "symbolic-ref"},
	{name: "symbolic-ref write asks", in: "symbolic-ref HEAD refs/heads/x", want: Ask, rule: rules.GitSubcommand, arg: "HEAD", sub: "symbolic-ref HEAD"},
	{name: "symbolic-ref delete asks", in: "symbolic-ref -d HEAD", want: Ask, rule: rules.GitSubcommand, arg: "-d", sub: "symbolic-ref -d"},
	{name: "hash-object", in: "hash-object a.txt", want: Allow, sub: "hash-object", paths: []string{"a.txt"}},
	{name: "hash-object write asks", in: "hash-object -w a.txt", want: Ask, rule: rules.GitSubcommand, arg: "-w", sub: "hash-object"},
	{name: "version subcommand", in: "version", want: Allow, sub: "version"},
	{name: "notes list", in: "notes", want: Allow, sub: "notes list"},
	{name: "notes show", in: "notes --ref=review show HEAD", want: Allow, sub: "notes show"},
	{name: "notes add asks", in: "notes add -m x", want: Ask, rule: rules.GitSubcommand, arg: "add", sub: "notes add"},

	// tag
	{name: "tag lists", in: "tag", want: Allow, sub: "tag"},
	{name: "tag list pattern", in: "tag -l v1.*", want: Allow, sub: "tag"},
	{name: "tag list long", in: "tag --list v1.*", want: Allow, sub: "tag"},
	{name: "tag contains", in: "tag --contains HEAD~1", want: Allow, sub: "tag"},
	{name: "tag n lines", in: "tag -n3", want: Allow, sub: "tag"},
	{name: "tag sort", in: "tag --sort=-v:refname", want: Allow, sub: "tag"},
	{name: "tag create asks", in: "tag v1.0", want: Ask, rule: rules.GitSubcommand, arg: "v1.0", sub: "tag"},
	{name: "tag create at rev asks", in: "tag v1.0 HEAD~1", want: Ask, rule: rules.GitSubcommand, arg: "v1.0", sub: "tag"},
	{name: "tag annotated asks", in: "tag v1.0 -m release", want: Ask, rule: rules.GitSubcommand, arg: "-m", sub: "tag"},
	{name: "tag delete asks", in: "tag -d v1.0", want: Ask, rule: rules.GitSubcommand, arg: "-d", sub: "tag"},
	{name: "tag delete long asks", in: "tag --delete v1.0", want: Ask, rule: rules.GitSubcommand, arg: "--delete", sub: "tag"},
	{name: "tag verify asks", in: "tag -v v1.0", want: Ask, rule: rules.GitSubcommand, arg: "-v", sub: "tag", reason: "verifying runs gpg"},
	{name: "tag list hides no option", in: "tag -l --output=x", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "tag"},
	{name: "tag ask then deny", in: "tag -d x --exec=y", want: Deny, rule: rules.GitOption, arg: "--exec=y", sub: "tag", reason: "a denied option still denies after an asking one"},

	// worktree, clean, bisect
	{name: "worktree list", in: "worktree list", want: Allow, sub: "worktree list"},
	{name: "worktree list porcelain", in: "worktree list --porcelain -v", want: Allow, sub: "worktree list"},
	{name: "worktree add asks", in: "worktree add ../x", want: Ask, rule: rules.GitSubcommand, arg: "add", sub: "worktree add"},
	{name: "clean dry run", in: "clean -n", want: Allow, sub: "clean"},
	{name: "clean dry run long", in: "clean --dry-run -d -x", want: Allow, sub: "clean"},
	{name: "clean dry run wins over force", in: "clean -fdn", want: Allow, sub: "clean", reason: "git only lists with -n, even with -f"},
	{name: "clean force asks", in: "clean -f", want: Ask, rule: rules.GitSubcommand, arg: "clean", sub: "clean"},
	{name: "clean alone asks", in: "clean", want: Ask, rule: rules.GitSubcommand, arg: "clean", sub: "clean"},
	{name: "clean interactive asks", in: "clean -n -i", want: Ask, rule: rules.GitSubcommand, arg: "-i", sub: "clean"},
	{name: "bisect log", in: "bisect log", want: Allow, sub: "bisect log"},
	{name: "bisect terms", in: "bisect terms", want: Allow, sub: "bisect terms"},
	{name: "bisect start asks", in: "bisect start", want: Ask, rule: rules.GitSubcommand, arg: "start", sub: "bisect start"},
	{name: "bisect run asks", in: "bisect run make", want: Ask, rule: rules.GitSubcommand, arg: "run", sub: "bisect run"},

	// remote
	{name: "remote", in: "remote", want: Allow, sub: "remote"},
	{name: "remote verbose", in: "remote -v", want: Allow, sub: "remote"},
	{name: "remote get-url", in: "remote get-url origin", want: Allow, sub: "remote get-url"},
	{name: "remote get-url push all", in: "remote get-url --push --all origin", want: Allow, sub: "remote get-url"},
	{name: "remote show offline", in: "remote show -n origin", want: Allow, sub: "remote show"},
	{name: "remote show asks", in: "remote show origin", want: Ask, rule: rules.GitSubcommand, arg: "show", sub: "remote show"},
	{name: "remote add asks", in: "remote add x https://example.com", want: Ask, rule: rules.GitSubcommand, arg: "add", sub: "remote add"},
	{name: "remote set-url asks", in: "remote set-url origin x", want: Ask, rule: rules.GitSubcommand, arg: "set-url", sub: "remote set-url"},
	{name: "remote unknown option", in: "remote --frob", want: Deny, rule: rules.GitOption, arg: "--frob", sub: "remote"},
	{name: "ls-remote asks", in: "ls-remote origin", want: Ask, rule: rules.GitSubcommand, arg: "ls-remote", sub: "ls-remote"},
	{name: "fetch origin asks", in: "fetch origin", want: Ask, rule: rules.GitSubcommand, arg: "fetch", sub: "fetch"},

	// config
	{name: "config get", in: "config --get user.name", want: Allow, sub: "config"},
	{name: "config name alone gets", in: "config user.email", want: Allow, sub: "config"},
	{name: "config list", in: "config --list", want: Allow, sub: "config"},
	{name: "config list short", in: "config -l --show-origin", want: Allow, sub: "config"},
	{name: "config list local", in: "config --local --list", want: Allow, sub: "config"},
	{name: "config list new style", in: "config list", want: Allow, sub: "config"},
	{name: "config get new style", in: "config get core.editor", want: Allow, sub: "config"},
	{name: "config get-regexp", in: "config --get-regexp ^remote", want: Allow, sub: "config"},
	{name: "config file", in: "config --file .gitmodules --list", want: Allow, sub: "config", paths: []string{".gitmodules"}},
	{name: "config file includes", in: "config --file evil.cfg --includes --list", want: Deny, rule: rules.GitOption, arg: "--includes", sub: "config", reason: "an [include] in a file the model wrote names any file outside"},
	{name: "config includes get", in: "config --includes --get app.region", want: Deny, rule: rules.GitOption, arg: "--includes", sub: "config"},
	{name: "config no-includes", in: "config --file x.cfg --no-includes --list", want: Allow, sub: "config", paths: []string{"x.cfg"}},
	{name: "config file attached", in: "config -f.gitmodules --list", want: Allow, sub: "config", paths: []string{".gitmodules"}},
	{name: "config credential asks", in: "config --get credential.helper", want: Ask, rule: rules.GitSubcommand, arg: "credential.helper", sub: "config"},
	{name: "config credential case asks", in: "config Credential.https://x.Username", want: Ask, rule: rules.GitSubcommand, arg: "Credential.https://x.Username", sub: "config"},
	{name: "config extraheader asks", in: "config --get http.https://github.com/.extraheader", want: Ask, rule: rules.GitSubcommand, arg: "http.https://github.com/.extraheader", sub: "config"},
	{name: "config token asks", in: "config --get hub.oauthtoken", want: Ask, rule: rules.GitSubcommand, arg: "hub.oauthtoken", sub: "config"},
	{name: "config smtp password asks", in: "config sendemail.smtppass", want: Ask, rule: rules.GitSubcommand, arg: "sendemail.smtppass", sub: "config"},
	{name: "config urlmatch http asks", in: "config --get-urlmatch http https://x", want: Ask, rule: rules.GitSubcommand, arg: "http", sub: "config"},
	{name: "config set asks", in: "config user.name bob", want: Ask, rule: rules.GitSubcommand, arg: "user.name", sub: "config"},
	{name: "config add asks", in: "config --add core.pager x", want: Ask, rule: rules.GitSubcommand, arg: "--add", sub: "config"},
	{name: "config unset asks", in: "config --unset core.pager", want: Ask, rule: rules.GitSubcommand, arg: "--unset", sub: "config"},
	{name: "config edit asks", in: "config -e", want: Ask, rule: rules.GitSubcommand, arg: "-e", sub: "config"},
	{name: "config set new style asks", in: "config set core.pager x", want: Ask, rule: rules.GitSubcommand, arg: "set", sub: "config"},
	{name: "config blob asks", in: "config --blob HEAD:.gitmodules --list", want: Ask, rule: rules.GitSubcommand, arg: "--blob", sub: "config"},
	{name: "config unknown", in: "config --frob", want: Deny, rule: rules.GitOption, arg: "--frob", sub: "config"},
	{name: "config two actions", in: "config --get --list x", want: Deny, rule: rules.GitOption, arg: "--list", sub: "config"},

	// format-patch writes into -o DIR or the block's directory
	{name: "format-patch since", in: "format-patch origin", want: Allow, sub: "format-patch", paths: []string{"origin"}, writes: []string{"."}},
	{name: "format-patch range", in: "format-patch HEAD~1..HEAD", want: Allow, sub: "format-patch", paths: []string{"HEAD~1..HEAD"}, writes: []string{"."}},
	{name: "format-patch count", in: "format-patch -5", want: Allow, sub: "format-patch", writes: []string{"."}},
	{name: "format-patch output dir", in: "format-patch -o out HEAD~2", want: Allow, sub: "format-patch", paths: []string{"HEAD~2"}, writes: []string{"out"}},
	{name: "format-patch output dir long", in: "format-patch --output-directory=/tmp/x -1", want: Allow, sub: "format-patch", writes: []string{"/tmp/x"}, reason: "the caller confines it"},
	{name: "format-patch stdout", in: "format-patch --stdout -1", want: Allow, sub: "format-patch"},
	{name: "format-patch suffix with a slash", in: "format-patch --suffix=/../../../x -1", want: Deny, rule: rules.GitOption, arg: "--suffix=/../../../x", sub: "format-patch", reason: "the suffix ends the file name git writes"},
	{name: "format-patch reroll with a slash", in: "format-patch -v ../../x -1", want: Deny, rule: rules.GitOption, arg: "-v", sub: "format-patch"},
	{name: "format-patch suffix", in: "format-patch --suffix=.txt -v2 -1", want: Allow, sub: "format-patch", writes: []string{"."}},
	{name: "format-patch output file", in: "format-patch --output=x -1", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "format-patch"},
	{name: "format-patch output-dir abbreviates output-directory", in: "format-patch --output-dir=x -1", want: Allow, sub: "format-patch", writes: []string{"x"}},
	{name: "format-patch outp ambiguous", in: "format-patch --outp=x -1", want: Deny, rule: rules.GitOption, arg: "--outp=x", sub: "format-patch", reason: "ambiguous between --output and --output-directory"},
}

func TestConfigRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want *ConfigRead
	}{
		{"config --list", &ConfigRead{All: true}},
		{"config --global -l", &ConfigRead{All: true, Scope: "global"}},
		{"config --list --name-only", &ConfigRead{All: true, NamesOnly: true}},
		{"config -f x.cfg --list", &ConfigRead{All: true, Scope: "file", File: "x.cfg"}},
		{"config --get remote.origin.url", &ConfigRead{Names: []string{"remote.origin.url"}}},
		{"config remote.origin.url", &ConfigRead{Names: []string{"remote.origin.url"}}},
		{"config --get-regexp ^remote", &ConfigRead{Regexps: []string{"^remote"}}},
		{"config --get-urlmatch url.x https://y", &ConfigRead{Regexps: []string{`^url\.`}}},
		{"config --get-color color.ui", nil},
		{"remote -v", &ConfigRead{Regexps: remoteURLs}},
		{"remote get-url origin", &ConfigRead{Names: []string{"remote.origin.url", "remote.origin.pushurl"}, Regexps: remoteURLs[1:]}},
		{"remote", nil},
	}
	for _, tt := range tests {
		v := Check(strings.Fields(tt.in))
		if v.Outcome != Allow {
			t.Errorf("Check(%q) = %v: %s", tt.in, v.Outcome, v.Reason)
			continue
		}
		if diff := cmp.Diff(tt.want, v.Config); diff != "" {
			t.Errorf("Check(%q).Config (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestCredentialEntry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, value string
		want        bool
	}{
		{"credential.helper", "store", true},
		{"CREDENTIAL.https://x.username", "bob", true},
		{"http.extraheader", "AUTHORIZATION: bearer x", true},
		{"http.https://github.com/.extraHeader", "x", true},
		{"http.sslverify", "false", false},
		{"remote.origin.url", "https://ghp_abc@github.com/o/r.git", true},
		{"remote.origin.url", "https://user:pw@example.com/r.git", true},
		{"remote.origin.url", "ssh://git@github.com/o/r.git", false},
		{"remote.origin.url", "ssh://git:pw@github.com/o/r.git", true},
		{"remote.origin.url", "git@github.com:o/r.git", false},
		{"remote.origin.url", "https://github.com/o/r.git", false},
		{"remote.origin.url", "https://github.com/a@b", false},
		{"url.https://tok@github.com/.insteadof", "https://github.com/", true},
		{"sendemail.smtppass", "x", true},
		{"github.token", "x", true},
		{"user.name", "bob", false},
		{"core.editor", "vim", false},
	}
	for _, tt := range tests {
		if got := CredentialEntry(tt.name, tt.value) != ""; got != tt.want {
			t.Errorf("CredentialEntry(%q, %q) = %v, want %v", tt.name, tt.value, got, tt.want)
		}
	}
}
