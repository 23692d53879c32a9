package gitrules

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/rules"
)

// checkCase is one table case. in is split on spaces; a case whose words
// contain spaces sets args instead.
type checkCase struct {
	name   string
	in     string
	args   []string
	want   Outcome
	rule   rules.Rule
	arg    string   // offending argument for Ask and Deny
	sub    string   // Verdict.Subcommand
	paths  []string // Verdict.Paths
	writes []string // Verdict.Writes
	reason string   // why the case is not obvious
}

func (c checkCase) argv() []string {
	if c.args != nil {
		return c.args
	}
	return strings.Fields(c.in)
}

// got is the part of a Verdict compared by the table.
type got struct {
	Outcome    Outcome
	Rule       rules.Rule
	Arg        string
	Subcommand string
	Paths      []string
	Writes     []string
}

var checkCases = []checkCase{
	// git alone and global options.
	{name: "git alone prints usage", in: "", want: Allow, reason: "prints help text and changes nothing"},
	{name: "version", in: "--version", want: Allow, sub: "version"},
	{name: "version short", in: "-v", want: Allow, sub: "version"},
	{name: "version build options", in: "--version --build-options", want: Allow, sub: "version"},
	{name: "version with junk", in: "--version log", want: Deny, rule: rules.GitOption, arg: "log", sub: "version"},
	{name: "help asks", in: "--help", want: Ask, rule: rules.GitSubcommand, arg: "--help", sub: "help", reason: "help starts man"},
	{name: "help short asks", in: "-h log", want: Ask, rule: rules.GitSubcommand, arg: "-h", sub: "help"},
	{name: "no-pager", in: "--no-pager log", want: Allow, sub: "log"},
	{name: "-P global is no-pager", in: "-P status", want: Allow, sub: "status"},
	{name: "literal pathspecs", in: "--literal-pathspecs ls-files", want: Allow, sub: "ls-files"},
	{name: "glob pathspecs", in: "--glob-pathspecs --icase-pathspecs status", want: Allow, sub: "status"},
	{name: "noglob pathspecs", in: "--noglob-pathspecs log", want: Allow, sub: "log"},
	{name: "no-replace-objects", in: "--no-replace-objects show", want: Allow, sub: "show"},
	{name: "no-optional-locks", in: "--no-optional-locks status", want: Allow, sub: "status"},
	{name: "-c config", in: "-c x=y log", want: Deny, rule: rules.GitOption, arg: "-c"},
	{name: "-c attached", in: "-ccore.pager=x log", want: Deny, rule: rules.GitOption, arg: "-ccore.pager=x"},
	{name: "-c pager", in: "-c core.pager=sh log", want: Deny, rule: rules.GitOption, arg: "-c"},
	{name: "-C dir", in: "-C .. status", want: Deny, rule: rules.GitOption, arg: "-C"},
	{name: "-C attached", in: "-C.. status", want: Deny, rule: rules.GitOption, arg: "-C.."},
	{name: "git-dir equals", in: "--git-dir=/x status", want: Deny, rule: rules.GitOption, arg: "--git-dir=/x"},
	{name: "git-dir separate", in: "--git-dir /x status", want: Deny, rule: rules.GitOption, arg: "--git-dir"},
	{name: "work-tree", in: "--work-tree=/ status", want: Deny, rule: rules.GitOption, arg: "--work-tree=/"},
	{name: "exec-path equals", in: "--exec-path=/x", want: Deny, rule: rules.GitOption, arg: "--exec-path=/x"},
	{name: "exec-path alone", in: "--exec-path", want: Deny, rule: rules.GitOption, arg: "--exec-path"},
	{name: "namespace", in: "--namespace=x log", want: Deny, rule: rules.GitOption, arg: "--namespace=x"},
	{name: "config-env", in: "--config-env=core.pager=X log", want: Deny, rule: rules.GitOption, arg: "--config-env=core.pager=X"},
	{name: "super-prefix", in: "--super-prefix=x/ status", want: Deny, rule: rules.GitOption, arg: "--super-prefix=x/"},
	{name: "paginate global", in: "-p log", want: Deny, rule: rules.GitOption, arg: "-p"},
	{name: "paginate long global", in: "--paginate log", want: Deny, rule: rules.GitOption, arg: "--paginate"},
	{name: "bare", in: "--bare log", want: Deny, rule: rules.GitOption, arg: "--bare"},
	{name: "list-cmds", in: "--list-cmds=main", want: Deny, rule: rules.GitOption, arg: "--list-cmds=main"},
	{name: "unknown global", in: "--frobnicate log", want: Deny, rule: rules.GitOption, arg: "--frobnicate"},
	{name: "global abbreviation is not accepted", in: "--no-pag log", want: Deny, rule: rules.GitOption, arg: "--no-pag", reason: "git matches globals exactly"},
	{name: "global after allowed global", in: "--no-pager -c a=b log", want: Deny, rule: rules.GitOption, arg: "-c"},
	{name: "upper-case global", in: "--NO-PAGER log", want: Deny, rule: rules.GitOption, arg: "--NO-PAGER"},
	{name: "double dash as global", in: "-- log", want: Deny, rule: rules.GitOption, arg: "--"},

	// Subcommands not in the table.
	{name: "commit asks", in: "commit -m x", want: Ask, rule: rules.GitSubcommand, arg: "commit", sub: "commit"},
	{name: "push asks", in: "push", want: Ask, rule: rules.GitSubcommand, arg: "push", sub: "push"},
	{name: "checkout asks", in: "checkout main", want: Ask, rule: rules.GitSubcommand, arg: "checkout", sub: "checkout"},
	{name: "fetch asks", in: "fetch origin", want: Ask, rule: rules.GitSubcommand, arg: "fetch", sub: "fetch"},

	// Options that run programs are denied on asked subcommands too: a
	// person is never asked to approve a program hidden in an option.
	{name: "fetch upload-pack", in: "fetch --upload-pack=x", want: Deny, rule: rules.GitOption, arg: "--upload-pack=x", sub: "fetch", reason: "the person would approve a fetch and run x"},
	{name: "fetch upload-pack separate", args: []string{"fetch", "--upload-pack", "touch x", "origin"}, want: Deny, rule: rules.GitOption, arg: "--upload-pack", sub: "fetch"},
	{name: "fetch upload-pack abbreviated", in: "fetch --upload=x", want: Deny, rule: rules.GitOption, arg: "--upload=x", sub: "fetch", reason: "parse-options accepts unambiguous prefixes"},
	{name: "fetch -u", in: "fetch -u origin", want: Deny, rule: rules.GitOption, arg: "-u", sub: "fetch"},
	{name: "fetch -u in cluster", in: "fetch -qu origin", want: Deny, rule: rules.GitOption, arg: "-qu", sub: "fetch"},
	{name: "fetch -o value is not -u", in: "fetch -ou origin", want: Ask, rule: rules.GitSubcommand, arg: "fetch", sub: "fetch", reason: "-o takes the rest of the word as its value"},
	{name: "clone upload-pack short", in: "clone -u x https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-u", sub: "clone"},
	{name: "clone upload-pack attached", in: "clone -utouch https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-utouch", sub: "clone"},
	// clone -c KEY=VALUE: a key that runs programs, reads files or
	// redirects the clone is denied; any other is asked, naming it.
	{name: "clone config", in: "clone --config=core.fsmonitor=x https://example.com/r", want: Deny, rule: rules.GitOption, arg: "--config=core.fsmonitor=x", sub: "clone"},
	{name: "clone -c", in: "clone -c core.hooksPath=x https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-c", sub: "clone"},
	{name: "clone -qc cluster", in: "clone -qccore.pager=x https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-qccore.pager=x", sub: "clone"},
	{name: "clone -c sshCommand", in: "clone -c core.sshCommand=touch https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-c", sub: "clone"},
	{name: "clone -c case", in: "clone -cCORE.SSHCOMMAND=touch https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-cCORE.SSHCOMMAND=touch", sub: "clone"},
	{name: "clone -c filter", in: "clone -c filter.x.smudge=touch https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-c", sub: "clone"},
	{name: "clone -c insteadOf", in: "clone -c url.ext::sh.insteadOf=https:// https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-c", sub: "clone"},
	{name: "clone -c protocol", in: "clone -c protocol.ext.allow=always ext::sh https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-c", sub: "clone"},
	{name: "clone -c submodule", in: "clone --recurse-submodules -c submodule.x.update=!touch https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-c", sub: "clone"},
	{name: "clone -c alias", in: "clone -c alias.x=!touch https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-c", sub: "clone"},
	{name: "clone -c hook", in: "clone -c hook.x.command=touch https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-c", sub: "clone"},
	{name: "clone -c include", in: "clone -c include.path=/tmp/x https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-c", sub: "clone"},
	{name: "clone -c templateDir", in: "clone -c init.templateDir=/tmp/t https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-c", sub: "clone"},
	{name: "clone -c core subsection", in: "clone -c core.x.autocrlf=false https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-c", sub: "clone"},
	{name: "clone -c uploadpack", in: "clone -c remote.origin.uploadpack=touch https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-c", sub: "clone"},
	{name: "clone -c http proxy", in: "clone -c http.proxy=http://evil https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-c", sub: "clone"},
	{name: "clone -c not a key", in: "clone -c autocrlf https://example.com/r", want: Deny, rule: rules.GitOption, arg: "-c", sub: "clone"},
	{name: "clone -c autocrlf asked", in: "clone -c core.autocrlf=false https://example.com/r", want: Ask, rule: rules.GitSubcommand, arg: "clone", sub: "clone"},
	{name: "clone --config attached asked", in: "clone --config=init.defaultBranch=main -c user.email=a@b https://example.com/r", want: Ask, rule: rules.GitSubcommand, arg: "clone", sub: "clone"},
	{name: "clone -c remote fetch asked", in: "clone -c remote.origin.fetch=+refs/pull/*:refs/remotes/origin/pr/* https://example.com/r", want: Ask, rule: rules.GitSubcommand, arg: "clone", sub: "clone"},
	{name: "clone -qc cluster asked", in: "clone -qccore.symlinks=false https://example.com/r", want: Ask, rule: rules.GitSubcommand, arg: "clone", sub: "clone"},
	{name: "clone --conf abbreviation", in: "clone --conf core.pager=x https://example.com/r", want: Deny, rule: rules.GitOption, arg: "--conf", sub: "clone"},
	{name: "check-ignore --no-index", in: "check-ignore --no-index -v a.txt", want: Allow, sub: "check-ignore", paths: []string{"a.txt"}, reason: "leaves the index out; unlike diff --no-index it reads nothing outside"},
	{name: "check-ignore --no-index abbreviated", in: "check-ignore --no-i a.txt", want: Allow, sub: "check-ignore", paths: []string{"a.txt"}},
	{name: "diff --no-index still denied", in: "diff --no-index a.txt /etc/passwd", want: Deny, rule: rules.GitOption, arg: "--no-index", sub: "diff"},
	{name: "check-ignore --output still denied", in: "check-ignore --output=x a.txt", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "check-ignore"},
	{name: "clone template", in: "clone --template=t https://example.com/r", want: Deny, rule: rules.GitOption, arg: "--template=t", sub: "clone"},
	{name: "clone separate git dir", in: "clone --separate-git-dir=g https://example.com/r", want: Deny, rule: rules.GitOption, arg: "--separate-git-dir=g", sub: "clone"},
	{name: "clone reference is a read path", in: "clone --reference ../other https://example.com/r", want: Ask, rule: rules.GitSubcommand, arg: "clone", sub: "clone", paths: []string{"../other"}},
	{name: "clone reference-if-able", in: "clone --reference-if-able=/x https://example.com/r", want: Ask, rule: rules.GitSubcommand, arg: "clone", sub: "clone", paths: []string{"/x"}},
	{name: "init template", in: "init --template=/tmp/t", want: Deny, rule: rules.GitOption, arg: "--template=/tmp/t", sub: "init"},
	{name: "init template abbreviated", in: "init --temp /tmp/t", want: Deny, rule: rules.GitOption, arg: "--temp", sub: "init"},
	{name: "init separate git dir", in: "init --separate-git-dir /tmp/g", want: Deny, rule: rules.GitOption, arg: "--separate-git-dir", sub: "init"},
	{name: "init asks", in: "init", want: Ask, rule: rules.GitSubcommand, arg: "init", sub: "init"},
	{name: "pull upload-pack", in: "pull --upload-pack=x origin", want: Deny, rule: rules.GitOption, arg: "--upload-pack=x", sub: "pull"},
	{name: "pull -u", in: "pull -u", want: Deny, rule: rules.GitOption, arg: "-u", sub: "pull"},
	{name: "ls-remote upload-pack", in: "ls-remote --upload-pack=x origin", want: Deny, rule: rules.GitOption, arg: "--upload-pack=x", sub: "ls-remote"},
	{name: "push receive-pack", in: "push --receive-pack=x origin", want: Deny, rule: rules.GitOption, arg: "--receive-pack=x", sub: "push"},
	{name: "push exec", in: "push --exec=x origin", want: Deny, rule: rules.GitOption, arg: "--exec=x", sub: "push"},
	{name: "push to a remote asks", in: "push origin main", want: Ask, rule: rules.GitSubcommand, arg: "push", sub: "push"},
	{name: "archive exec", in: "archive --remote=r --exec=x HEAD", want: Deny, rule: rules.GitOption, arg: "--exec=x", sub: "archive"},
	{name: "archive output is a write path", in: "archive -o out.tar HEAD", want: Ask, rule: rules.GitSubcommand, arg: "archive", sub: "archive", writes: []string{"out.tar"}},
	{name: "archive output long", in: "archive --output=/tmp/x.tar HEAD", want: Ask, rule: rules.GitSubcommand, arg: "archive", sub: "archive", writes: []string{"/tmp/x.tar"}},
	{name: "format-patch output directory", in: "format-patch -o ../out HEAD~1", want: Allow, sub: "format-patch", paths: []string{"HEAD~1"}, writes: []string{"../out"}, reason: "the caller confines the written directory"},
	{name: "format-patch output directory attached", in: "format-patch -o/tmp HEAD~1", want: Allow, sub: "format-patch", paths: []string{"HEAD~1"}, writes: []string{"/tmp"}},
	{name: "format-patch output-directory long", in: "format-patch --output-directory=p HEAD~1", want: Allow, sub: "format-patch", paths: []string{"HEAD~1"}, writes: []string{"p"}},
	{name: "rebase exec", in: "rebase --exec=make main", want: Deny, rule: rules.GitOption, arg: "--exec=make", sub: "rebase"},
	{name: "rebase -x", in: "rebase -x make main", want: Deny, rule: rules.GitOption, arg: "-x", sub: "rebase"},
	{name: "rebase -ix cluster", in: "rebase -ix make main", want: Deny, rule: rules.GitOption, arg: "-ix", sub: "rebase"},
	{name: "rebase strategy value is not -x", in: "rebase -Xours main", want: Ask, rule: rules.GitSubcommand, arg: "rebase", sub: "rebase"},
	{name: "difftool extcmd", in: "difftool --extcmd=sh", want: Deny, rule: rules.GitOption, arg: "--extcmd=sh", sub: "difftool"},
	{name: "difftool -x", in: "difftool -x sh", want: Deny, rule: rules.GitOption, arg: "-x", sub: "difftool"},
	{name: "grep -O", in: "grep -O foo", want: Deny, rule: rules.GitOption, arg: "-O", sub: "grep"},
	{name: "grep -O in a cluster", in: "grep -nOid foo", want: Deny, rule: rules.GitOption, arg: "-nOid", sub: "grep", reason: "-O takes the rest of the word, id, as the pager to run"},
	{name: "grep open-files-in-pager", in: "grep --open-files-in-pager=id foo", want: Deny, rule: rules.GitOption, arg: "--open-files-in-pager=id", sub: "grep"},
	{name: "grep -e value holds an O", in: "grep -eOops", want: Allow, sub: "grep", reason: "-e takes the rest of the word as the pattern"},
	{name: "send-email to-cmd", in: "send-email --to-cmd=x p.patch", want: Deny, rule: rules.GitOption, arg: "--to-cmd=x", sub: "send-email"},
	{name: "send-email smtp-server program", in: "send-email --smtp-server=/tmp/x p.patch", want: Deny, rule: rules.GitOption, arg: "--smtp-server=/tmp/x", sub: "send-email"},
	{name: "send-email smtp-server host", in: "send-email --smtp-server smtp.example.com p.patch", want: Ask, rule: rules.GitSubcommand, arg: "send-email", sub: "send-email"},
	{name: "commit message that looks like a screened option", args: []string{"commit", "-m", "--exec"}, want: Deny, rule: rules.GitOption, arg: "--exec", sub: "commit", reason: "a value word that looks like a screened option is denied: clada cannot tell values of unknown options apart"},
	{name: "filter-branch tree-filter", in: "filter-branch --tree-filter=make HEAD", want: Deny, rule: rules.GitOption, arg: "--tree-filter=make", sub: "filter-branch"},
	{name: "filter-branch msg-filter abbreviated", in: "filter-branch --msg=cat HEAD", want: Deny, rule: rules.GitOption, arg: "--msg=cat", sub: "filter-branch"},
	{name: "instaweb httpd", in: "instaweb --httpd=/tmp/x", want: Deny, rule: rules.GitOption, arg: "--httpd=/tmp/x", sub: "instaweb"},
	{name: "commit template is a read path", in: "commit --template=../msg", want: Ask, rule: rules.GitSubcommand, arg: "commit", sub: "commit", paths: []string{"../msg"}, reason: "for commit --template is a message file, not a hook template"},
	{name: "submodule template copies hooks", in: "submodule update --init --template=t", want: Deny, rule: rules.GitOption, arg: "--template=t", sub: "submodule"},
	{name: "after dashdash nothing is screened", in: "add -- --exec", want: Ask, rule: rules.GitSubcommand, arg: "add", sub: "add"},
	{name: "stash push with template-like pathspec", in: "stash push -- --template", want: Ask, rule: rules.GitSubcommand, arg: "stash push", sub: "stash push"},
	{name: "bare stash with exec", in: "stash --exec=x", want: Deny, rule: rules.GitOption, arg: "--exec=x", sub: "stash"},
	{name: "config write asks", in: "config core.pager x", want: Ask, rule: rules.GitSubcommand, arg: "core.pager", sub: "config"},
	{name: "help subcommand asks", in: "help log", want: Ask, rule: rules.GitSubcommand, arg: "help", sub: "help"},
	{name: "Status capitalised", in: "Status", want: Ask, rule: rules.GitSubcommand, arg: "Status", sub: "Status", reason: "git has no such command; it could be an alias"},
	{name: "STATUS upper case", in: "STATUS", want: Ask, rule: rules.GitSubcommand, arg: "STATUS", sub: "STATUS"},
	{name: "alias-like word", in: "st", want: Ask, rule: rules.GitSubcommand, arg: "st", sub: "st"},
	{name: "dash word is a subcommand", in: "- log", want: Ask, rule: rules.GitSubcommand, arg: "-", sub: "-"},

	// status
	{name: "status", in: "status", want: Allow, sub: "status"},
	{name: "status short branch", in: "status -sb", want: Allow, sub: "status"},
	{name: "status porcelain v2", in: "status --porcelain=v2 -z", want: Allow, sub: "status"},
	{name: "status untracked attached", in: "status -uno", want: Allow, sub: "status"},
	{name: "status untracked long", in: "status --untracked-files=all", want: Allow, sub: "status"},
	{name: "status abbreviation", in: "status --shor", want: Allow, sub: "status", reason: "parse-options accepts unambiguous prefixes"},
	{name: "status negation", in: "status --no-short", want: Allow, sub: "status"},
	{name: "status pathspec", in: "status src", want: Allow, sub: "status", paths: []string{"src"}},
	{name: "status pathspec after dashdash", in: "status -- ../x", want: Allow, sub: "status", paths: []string{"../x"}},
	{name: "status unknown flag", in: "status --frob", want: Deny, rule: rules.GitOption, arg: "--frob", sub: "status"},
	{name: "status bool with value", in: "status --short=1", want: Deny, rule: rules.GitOption, arg: "--short=1", sub: "status"},
	{name: "status unknown short in cluster", in: "status -sx", want: Deny, rule: rules.GitOption, arg: "-sx", sub: "status"},
	{name: "status output", in: "status --output=x", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "status"},
	{name: "status verbose shows a diff with textconv", in: "status -v", want: Allow, sub: "status", reason: "allowed here; Verdict.Textconv makes the caller ask when a textconv driver is configured (TestStatusTextconv)"},
	{name: "status vv", in: "status -vv", want: Allow, sub: "status"},
	{name: "status verbose in a cluster", in: "status -sv", want: Allow, sub: "status"},
	{name: "status verbose long", in: "status --verbose", want: Allow, sub: "status"},
	{name: "status verbose abbreviated", in: "status --verb", want: Allow, sub: "status"},
	{name: "status no-verbose", in: "status --no-verbose", want: Allow, sub: "status"},
	{name: "status help", in: "status --help", want: Ask, rule: rules.GitSubcommand, arg: "--help", sub: "status"},

	// diff
	{name: "diff", in: "diff", want: Allow, sub: "diff"},
	{name: "diff stat rev", in: "diff --stat HEAD~1", want: Allow, sub: "diff", paths: []string{"HEAD~1"}},
	{name: "diff cached", in: "diff --cached", want: Allow, sub: "diff"},
	{name: "diff staged name-only", in: "diff --staged --name-only", want: Allow, sub: "diff"},
	{name: "diff unified attached", in: "diff -U5", want: Allow, sub: "diff"},
	{name: "diff unified long", in: "diff --unified=0", want: Allow, sub: "diff"},
	{name: "diff word-diff", in: "diff --word-diff=color", want: Allow, sub: "diff"},
	{name: "diff stat width", in: "diff --stat=100,40", want: Allow, sub: "diff"},
	{name: "diff find renames", in: "diff -M50% -C", want: Allow, sub: "diff", reason: "-C after the subcommand is copy detection"},
	{name: "diff digits", in: "diff -1", want: Allow, sub: "diff"},
	{name: "diff text", in: "diff --text", want: Allow, sub: "diff", reason: "--text is exact, though a prefix of --textconv"},
	{name: "diff no-ext-diff", in: "diff --no-ext-diff --no-textconv", want: Allow, sub: "diff"},
	{name: "diff pickaxe separate", in: "diff -S foo", want: Allow, sub: "diff"},
	{name: "diff pickaxe attached", in: "diff -Sfoo", want: Allow, sub: "diff"},
	{name: "diff paths", in: "diff HEAD -- a.go b.go", want: Allow, sub: "diff", paths: []string{"HEAD", "a.go", "b.go"}},
	{name: "diff filter separate", in: "diff --diff-filter M", want: Allow, sub: "diff"},
	{name: "diff output equals", in: "diff --output=x", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "diff"},
	{name: "diff output separate", in: "diff --output x", want: Deny, rule: rules.GitOption, arg: "--output", sub: "diff"},
	{name: "diff output abbreviated", in: "diff --outp=x", want: Deny, rule: rules.GitOption, arg: "--outp=x", sub: "diff"},
	{name: "diff output short prefix", in: "diff --o=x", want: Deny, rule: rules.GitOption, arg: "--o=x", sub: "diff"},
	{name: "diff output upper case", in: "diff --OUTPUT=x", want: Deny, rule: rules.GitOption, arg: "--OUTPUT=x", sub: "diff"},
	{name: "diff -o has no meaning", in: "diff -ofile", want: Deny, rule: rules.GitOption, arg: "-ofile", sub: "diff"},
	{name: "diff ext-diff", in: "diff --ext-diff", want: Deny, rule: rules.GitOption, arg: "--ext-diff", sub: "diff"},
	{name: "diff ext abbreviated", in: "diff --ext", want: Deny, rule: rules.GitOption, arg: "--ext", sub: "diff"},
	{name: "diff textconv", in: "diff --textconv", want: Deny, rule: rules.GitOption, arg: "--textconv", sub: "diff"},
	{name: "diff textconv abbreviated", in: "diff --textc", want: Deny, rule: rules.GitOption, arg: "--textc", sub: "diff"},
	{name: "diff tex ambiguous", in: "diff --tex", want: Deny, rule: rules.GitOption, arg: "--tex", sub: "diff"},
	{name: "diff no-index", in: "diff --no-index /etc/passwd x", want: Deny, rule: rules.GitOption, arg: "--no-index", sub: "diff"},
	{name: "diff no-index abbreviated", in: "diff --no-ind a b", want: Deny, rule: rules.GitOption, arg: "--no-ind", sub: "diff"},
	{name: "diff order file", in: "diff -O/etc/passwd", want: Deny, rule: rules.GitOption, arg: "-O/etc/passwd", sub: "diff"},
	{name: "diff order file in cluster", in: "diff -pO/x", want: Deny, rule: rules.GitOption, arg: "-pO/x", sub: "diff"},
	{name: "diff value hides option", in: "diff -S --output=x", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "diff", reason: "a separate value may not look like an option"},
	{name: "diff value missing", in: "diff -S", want: Deny, rule: rules.GitOption, arg: "-S", sub: "diff"},
	{name: "diff paginate", in: "diff --paginate", want: Deny, rule: rules.GitOption, arg: "--paginate", sub: "diff"},
	{name: "diff open-files-in-pager", in: "diff --open-files-in-pager", want: Deny, rule: rules.GitOption, arg: "--open-files-in-pager", sub: "diff"},
	{name: "diff output after dashdash is a path", in: "diff -- --output=x", want: Allow, sub: "diff", paths: []string{"--output=x"}},

	// log
	{name: "log", in: "log", want: Allow, sub: "log"},
	{name: "log oneline", in: "log --oneline --graph --decorate", want: Allow, sub: "log"},
	{name: "log format", in: "log --format=%H", want: Allow, sub: "log"},
	{name: "log format with spaces", args: []string{"log", "--format=%h %s"}, want: Allow, sub: "log"},
	{name: "log n separate", in: "log -n 5", want: Allow, sub: "log"},
	{name: "log n attached", in: "log -n5", want: Allow, sub: "log"},
	{name: "log max-count", in: "log --max-count=5", want: Allow, sub: "log"},
	{name: "log max-count separate", in: "log --max-count 5", want: Allow, sub: "log"},
	{name: "log number", in: "log -5", want: Allow, sub: "log"},
	{name: "log -c is combined diff", in: "log -c", want: Allow, sub: "log", reason: "after the subcommand -c is log's flag"},
	{name: "log -p is patch", in: "log -p", want: Allow, sub: "log", reason: "after the subcommand -p is --patch"},
	{name: "log -P is perl regexp", in: "log -P --grep=x", want: Allow, sub: "log"},
	{name: "log since author", in: "log --since=2.weeks --author=bob", want: Allow, sub: "log"},
	{name: "log grep separate", in: "log --grep fix -i", want: Allow, sub: "log"},
	{name: "log range and path", in: "log main..HEAD -- src", want: Allow, sub: "log", paths: []string{"main..HEAD", "src"}},
	{name: "log follow", in: "log --follow -- a.go", want: Allow, sub: "log", paths: []string{"a.go"}},
	{name: "log line range", in: "log -L 1,5:main.go", want: Allow, sub: "log", paths: []string{"main.go"}},
	{name: "log line range funcname", in: "log -L:main:main.go", want: Allow, sub: "log", paths: []string{"main.go"}},
	{name: "log end-of-options", in: "log --end-of-options --output=x", want: Allow, sub: "log", paths: []string{"--output=x"}},
	{name: "log output after dashdash", in: "log -- --output=x", want: Allow, sub: "log", paths: []string{"--output=x"}},
	{name: "log output", in: "log --output=x", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "log"},
	{name: "log out abbreviation", in: "log --out=x", want: Deny, rule: rules.GitOption, arg: "--out=x", sub: "log"},
	{name: "log outp separate", in: "log --outp x", want: Deny, rule: rules.GitOption, arg: "--outp", sub: "log"},
	{name: "log show-signature", in: "log --show-signature", want: Deny, rule: rules.GitOption, arg: "--show-signature", sub: "log"},
	{name: "log exec", in: "log --exec=x", want: Deny, rule: rules.GitOption, arg: "--exec=x", sub: "log"},
	{name: "log upload-pack", in: "log --upload-pack=x", want: Deny, rule: rules.GitOption, arg: "--upload-pack=x", sub: "log"},
	{name: "log upload abbreviated", in: "log --upl=x", want: Deny, rule: rules.GitOption, arg: "--upl=x", sub: "log"},
	{name: "log ext-diff", in: "log -p --ext-diff", want: Deny, rule: rules.GitOption, arg: "--ext-diff", sub: "log"},
	{name: "log unknown", in: "log --frob", want: Deny, rule: rules.GitOption, arg: "--frob", sub: "log"},
	{name: "log upper-case option", in: "log --ONELINE", want: Deny, rule: rules.GitOption, arg: "--ONELINE", sub: "log"},
	{name: "log oneline with value", in: "log --oneline=x", want: Deny, rule: rules.GitOption, arg: "--oneline=x", sub: "log"},
	{name: "log n value hides option", in: "log -n --output=x", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "log"},
	{name: "log O in cluster", in: "log -cO", want: Deny, rule: rules.GitOption, arg: "-cO", sub: "log"},
	{name: "log help", in: "log --help", want: Ask, rule: rules.GitSubcommand, arg: "--help", sub: "log", reason: "--help opens the manual"},
	{name: "log -h", in: "log -h", want: Allow, sub: "log", reason: "every subcommand prints its usage for -h"},
	{name: "log bare double dash prefix", in: "log --=x", want: Deny, rule: rules.GitOption, arg: "--=x", sub: "log"},

	// show
	{name: "show", in: "show", want: Allow, sub: "show"},
	{name: "show blob", in: "show HEAD:file", want: Allow, sub: "show", paths: []string{"HEAD:file"}},
	{name: "show stat", in: "show --stat HEAD~2", want: Allow, sub: "show", paths: []string{"HEAD~2"}},
	{name: "show no patch", in: "show -s --format=%an", want: Allow, sub: "show"},
	{name: "show name-status", in: "show --name-status", want: Allow, sub: "show"},
	{name: "show output", in: "show --output=/tmp/x", want: Deny, rule: rules.GitOption, arg: "--output=/tmp/x", sub: "show"},
	{name: "show textconv", in: "show --textconv HEAD:a", want: Deny, rule: rules.GitOption, arg: "--textconv", sub: "show"},

	// branch
	{name: "branch", in: "branch", want: Allow, sub: "branch"},
	{name: "branch all", in: "branch -a", want: Allow, sub: "branch"},
	{name: "branch remotes", in: "branch -r", want: Allow, sub: "branch"},
	{name: "branch verbose", in: "branch -v", want: Allow, sub: "branch"},
	{name: "branch very verbose", in: "branch -vv", want: Allow, sub: "branch"},
	{name: "branch combined", in: "branch -av", want: Allow, sub: "branch"},
	{name: "branch list", in: "branch --list", want: Allow, sub: "branch"},
	{name: "branch list pattern", in: "branch --list feat*", want: Allow, sub: "branch", reason: "patterns are not paths"},
	{name: "branch -l pattern", in: "branch -l feat", want: Allow, sub: "branch"},
	{name: "branch show-current", in: "branch --show-current", want: Allow, sub: "branch"},
	{name: "branch contains", in: "branch --contains HEAD~3", want: Allow, sub: "branch"},
	{name: "branch contains last", in: "branch --contains", want: Allow, sub: "branch", reason: "defaults to HEAD when last"},
	{name: "branch merged", in: "branch --merged main", want: Allow, sub: "branch"},
	{name: "branch no-merged", in: "branch --no-merged", want: Allow, sub: "branch"},
	{name: "branch format", in: "branch --format=%(refname)", want: Allow, sub: "branch"},
	{name: "branch sort separate", in: "branch --sort -committerdate", want: Allow, sub: "branch", reason: "git takes the next word as the value; as an option it would be unknown"},
	{name: "branch sort value hides a denied option", in: "branch --sort --output=x", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "branch"},
	{name: "log format value hides an abbreviation", in: "log --format --out=x", want: Deny, rule: rules.GitOption, arg: "--out=x", sub: "log"},
	{name: "log format value hides a cluster", in: "log -n -pO", want: Deny, rule: rules.GitOption, arg: "-pO", sub: "log"},
	{name: "log grep value starting with a dash", in: "log --grep -foo", want: Allow, sub: "log", reason: "-f is no log option: git would fail, never run"},
	{name: "log value is help", in: "log --grep --help", want: Deny, rule: rules.GitOption, arg: "--help", sub: "log"},
	{name: "branch sort attached", in: "branch --sort=-committerdate", want: Allow, sub: "branch"},
	{name: "branch create", in: "branch foo", want: Ask, rule: rules.GitSubcommand, arg: "foo", sub: "branch"},
	{name: "branch create from", in: "branch foo main", want: Ask, rule: rules.GitSubcommand, arg: "foo", sub: "branch"},
	{name: "branch create after dashdash", in: "branch -- foo", want: Ask, rule: rules.GitSubcommand, arg: "foo", sub: "branch"},
	{name: "branch -r with name", in: "branch -r foo", want: Ask, rule: rules.GitSubcommand, arg: "foo", sub: "branch"},
	{name: "branch delete force", in: "branch -D x", want: Ask, rule: rules.GitSubcommand, arg: "-D", sub: "branch"},
	{name: "branch delete", in: "branch -d x", want: Ask, rule: rules.GitSubcommand, arg: "-d", sub: "branch"},
	{name: "branch delete in cluster", in: "branch -dr x", want: Ask, rule: rules.GitSubcommand, arg: "-dr", sub: "branch"},
	{name: "branch force hidden in cluster", in: "branch -rf x", want: Ask, rule: rules.GitSubcommand, arg: "-rf", sub: "branch"},
	{name: "branch delete long", in: "branch --delete x", want: Ask, rule: rules.GitSubcommand, arg: "--delete", sub: "branch"},
	{name: "branch delete abbreviated", in: "branch --del x", want: Ask, rule: rules.GitSubcommand, arg: "--del", sub: "branch"},
	{name: "branch move", in: "branch -m a b", want: Ask, rule: rules.GitSubcommand, arg: "-m", sub: "branch"},
	{name: "branch move force", in: "branch -M a b", want: Ask, rule: rules.GitSubcommand, arg: "-M", sub: "branch"},
	{name: "branch copy", in: "branch -c a b", want: Ask, rule: rules.GitSubcommand, arg: "-c", sub: "branch"},
	{name: "branch copy force", in: "branch -C a b", want: Ask, rule: rules.GitSubcommand, arg: "-C", sub: "branch"},
	{name: "branch force", in: "branch -f main HEAD~1", want: Ask, rule: rules.GitSubcommand, arg: "-f", sub: "branch"},
	{name: "branch set-upstream-to", in: "branch --set-upstream-to=origin/main", want: Ask, rule: rules.GitSubcommand, arg: "--set-upstream-to=origin/main", sub: "branch"},
	{name: "branch set-upstream abbreviated", in: "branch --set-u=origin/x", want: Deny, rule: rules.GitOption, arg: "--set-u=origin/x", sub: "branch", reason: "ambiguous between two denied options"},
	{name: "branch -u", in: "branch -u origin/main", want: Ask, rule: rules.GitSubcommand, arg: "-u", sub: "branch"},
	{name: "branch edit-description", in: "branch --edit-description", want: Ask, rule: rules.GitSubcommand, arg: "--edit-description", sub: "branch"},
	{name: "branch edit abbreviated", in: "branch --edit", want: Ask, rule: rules.GitSubcommand, arg: "--edit", sub: "branch"},
	{name: "branch unset-upstream", in: "branch --unset-upstream", want: Ask, rule: rules.GitSubcommand, arg: "--unset-upstream", sub: "branch"},
	{name: "branch track", in: "branch -t x origin/x", want: Ask, rule: rules.GitSubcommand, arg: "-t", sub: "branch"},
	{name: "branch contains value hides option", in: "branch --contains -D", want: Deny, rule: rules.GitOption, arg: "-D", sub: "branch"},

	// ls-files
	{name: "ls-files", in: "ls-files", want: Allow, sub: "ls-files"},
	{name: "ls-files others", in: "ls-files -o --exclude-standard", want: Allow, sub: "ls-files"},
	{name: "ls-files cluster", in: "ls-files -cmz", want: Allow, sub: "ls-files"},
	{name: "ls-files stage", in: "ls-files -s src", want: Allow, sub: "ls-files", paths: []string{"src"}},
	{name: "ls-files exclude-from is a path", in: "ls-files -o --exclude-from=.gitignore", want: Allow, sub: "ls-files", paths: []string{".gitignore"}},
	{name: "ls-files -X attached path", in: "ls-files -X/etc/ignore", want: Allow, sub: "ls-files", paths: []string{"/etc/ignore"}, reason: "the caller confines it"},
	{name: "ls-files exclude pattern", in: "ls-files -x *.o -i -o", want: Allow, sub: "ls-files"},
	{name: "ls-files with-tree", in: "ls-files --with-tree=HEAD", want: Allow, sub: "ls-files"},
	{name: "ls-files unknown", in: "ls-files --frob", want: Deny, rule: rules.GitOption, arg: "--frob", sub: "ls-files"},
	{name: "ls-files output", in: "ls-files --output=x", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "ls-files"},

	// rev-parse
	{name: "rev-parse head", in: "rev-parse HEAD", want: Allow, sub: "rev-parse", paths: []string{"HEAD"}},
	{name: "rev-parse git-dir", in: "rev-parse --git-dir", want: Allow, sub: "rev-parse", reason: "after the subcommand --git-dir only prints"},
	{name: "rev-parse toplevel", in: "rev-parse --show-toplevel", want: Allow, sub: "rev-parse"},
	{name: "rev-parse superproject", in: "rev-parse --show-superproject-working-tree", want: Deny, rule: rules.GitOption, arg: "--show-superproject-working-tree", sub: "rev-parse", reason: "runs git ls-files in the directory above the project"},
	{name: "rev-parse abbrev-ref", in: "rev-parse --abbrev-ref HEAD", want: Allow, sub: "rev-parse", paths: []string{"HEAD"}},
	{name: "rev-parse short", in: "rev-parse --short=8 HEAD", want: Allow, sub: "rev-parse", paths: []string{"HEAD"}},
	{name: "rev-parse verify quiet", in: "rev-parse -q --verify main", want: Allow, sub: "rev-parse", paths: []string{"main"}},
	{name: "rev-parse inside work tree", in: "rev-parse --is-inside-work-tree", want: Allow, sub: "rev-parse"},
	{name: "rev-parse since bare takes no value", in: "rev-parse --since /outside/secret", want: Allow, sub: "rev-parse", paths: []string{"/outside/secret"}, reason: "rev-parse reads --since only as --since=DATE; the next word is looked up as a file"},
	{name: "rev-parse since attached", in: "rev-parse --since=yesterday HEAD", want: Allow, sub: "rev-parse", paths: []string{"HEAD"}},
	{name: "rev-parse after before until bare", in: "rev-parse --after a --before b --until c", want: Allow, sub: "rev-parse", paths: []string{"a", "b", "c"}},
	{name: "rev-parse glob bare", in: "rev-parse --glob /etc", want: Allow, sub: "rev-parse", paths: []string{"/etc"}},
	{name: "rev-parse exclude bare", in: "rev-parse --exclude /x --all", want: Allow, sub: "rev-parse", paths: []string{"/x"}},
	{name: "rev-parse glob attached", in: "rev-parse --glob=refs/heads/*", want: Allow, sub: "rev-parse"},
	{name: "rev-parse disambiguate bare", in: "rev-parse --disambiguate /x", want: Allow, sub: "rev-parse", paths: []string{"/x"}},
	{name: "rev-parse prefix", in: "rev-parse --prefix /outside/ x", want: Deny, rule: rules.GitOption, arg: "--prefix", sub: "rev-parse", reason: "rev-parse stats /outside/x"},
	{name: "rev-parse prefix attached", in: "rev-parse --prefix=sub/ x", want: Deny, rule: rules.GitOption, arg: "--prefix=sub/", sub: "rev-parse"},
	{name: "ls-files exclude-per-directory name", in: "ls-files --exclude-per-directory=.gitignore -o", want: Allow, sub: "ls-files"},
	{name: "ls-files exclude-per-directory path", in: "ls-files --exclude-per-directory=/etc/shadow -o", want: Deny, rule: rules.GitOption, arg: "--exclude-per-directory=/etc/shadow", sub: "ls-files", reason: "git opens that file and uses its lines as patterns"},
	{name: "ls-files exclude-per-directory separate", in: "ls-files --exclude-per-directory ../x", want: Deny, rule: rules.GitOption, arg: "--exclude-per-directory", sub: "ls-files"},
	{name: "ls-files exclude-from outside is a path", in: "ls-files --exclude-from=/etc/shadow", want: Allow, sub: "ls-files", paths: []string{"/etc/shadow"}, reason: "reported in Paths, which specs confine"},
	{name: "rev-parse work-tree is not its flag", in: "rev-parse --work-tree", want: Deny, rule: rules.GitOption, arg: "--work-tree", sub: "rev-parse"},
	{name: "rev-parse parseopt", in: "rev-parse --parseopt", want: Deny, rule: rules.GitOption, arg: "--parseopt", sub: "rev-parse"},
	{name: "rev-parse output", in: "rev-parse --output=x", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "rev-parse"},

	// blame
	{name: "blame file", in: "blame main.go", want: Allow, sub: "blame", paths: []string{"main.go"}},
	{name: "blame rev file", in: "blame HEAD~1 -- main.go", want: Allow, sub: "blame", paths: []string{"HEAD~1", "main.go"}},
	{name: "blame line range", in: "blame -L 10,20 main.go", want: Allow, sub: "blame", paths: []string{"main.go"}},
	{name: "blame cluster", in: "blame -wM -C main.go", want: Allow, sub: "blame", paths: []string{"main.go"}},
	{name: "blame porcelain", in: "blame -p main.go", want: Allow, sub: "blame", paths: []string{"main.go"}, reason: "blame's -p is --porcelain"},
	{name: "blame ignore-revs-file", in: "blame --ignore-revs-file=.revs a", want: Allow, sub: "blame", paths: []string{".revs", "a"}},
	{name: "blame contents", in: "blame --contents /etc/passwd a", want: Deny, rule: rules.GitOption, arg: "--contents", sub: "blame"},
	{name: "blame contents abbreviated", in: "blame --cont=/etc/passwd a", want: Deny, rule: rules.GitOption, arg: "--cont=/etc/passwd", sub: "blame"},
	{name: "blame textconv", in: "blame --textconv a", want: Deny, rule: rules.GitOption, arg: "--textconv", sub: "blame"},
	{name: "blame output", in: "blame --output=x a", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "blame"},

	// stash
	{name: "stash list", in: "stash list", want: Allow, sub: "stash list"},
	{name: "stash list log options", in: "stash list --oneline -p", want: Allow, sub: "stash list"},
	{name: "stash show", in: "stash show", want: Allow, sub: "stash show"},
	{name: "stash show ref", in: "stash show -p stash@{1}", want: Allow, sub: "stash show", paths: []string{"stash@{1}"}},
	{name: "stash show untracked", in: "stash show --include-untracked --stat", want: Allow, sub: "stash show"},
	{name: "stash show output", in: "stash show --output=x", want: Deny, rule: rules.GitOption, arg: "--output=x", sub: "stash show"},
	{name: "stash list output", in: "stash list --out=x", want: Deny, rule: rules.GitOption, arg: "--out=x", sub: "stash list"},
	{name: "stash alone asks", in: "stash", want: Ask, rule: rules.GitSubcommand, arg: "stash", sub: "stash", reason: "creates a stash"},
	{name: "stash with message asks", in: "stash -m wip", want: Ask, rule: rules.GitSubcommand, arg: "stash", sub: "stash"},
	{name: "stash push asks", in: "stash push", want: Ask, rule: rules.GitSubcommand, arg: "stash push", sub: "stash push"},
	{name: "stash pop", in: "stash pop", want: Ask, rule: rules.GitSubcommand, arg: "pop", sub: "stash pop"},
	{name: "stash apply", in: "stash apply stash@{0}", want: Ask, rule: rules.GitSubcommand, arg: "apply", sub: "stash apply"},
	{name: "stash drop", in: "stash drop", want: Ask, rule: rules.GitSubcommand, arg: "drop", sub: "stash drop"},
	{name: "stash clear", in: "stash clear", want: Ask, rule: rules.GitSubcommand, arg: "clear", sub: "stash clear"},
	{name: "stash branch", in: "stash branch x", want: Ask, rule: rules.GitSubcommand, arg: "branch", sub: "stash branch"},
	{name: "stash List capitalised", in: "stash List", want: Ask, rule: rules.GitSubcommand, arg: "stash List", sub: "stash List"},
}

func TestCheck(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, tt := range append(checkCases, readCases...) {
		if seen[tt.name] {
			t.Fatalf("duplicate case name %q", tt.name)
		}
		seen[tt.name] = true
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := Check(tt.argv())
			want := got{Outcome: tt.want, Rule: tt.rule, Arg: tt.arg, Subcommand: tt.sub, Paths: tt.paths, Writes: tt.writes}
			if diff := cmp.Diff(want, got{v.Outcome, v.Rule, v.Arg, v.Subcommand, v.Paths, v.Writes}); diff != "" {
				t.Errorf("Check(%q) mismatch (-want +got):\n%s\nreason: %s\nadvice: %s", tt.argv(), diff, v.Reason, v.Advice)
			}
			if v.Outcome != Allow && (v.Reason == "" || v.Advice == "") {
				t.Errorf("Check(%q) = %v without reason or advice: %+v", tt.argv(), v.Outcome, v)
			}
			if v.Outcome == Allow && (v.Reason != "" || v.Advice != "" || v.Rule != "") {
				t.Errorf("Check(%q) allowed with a reason: %+v", tt.argv(), v)
			}
		})
	}
}

func TestReasons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"ask names the subcommand", "commit", "git commit is not in clada's read-only git table"},
		{"network subcommand", "push", "git push contacts the network"},
		{"output writes a file", "log --output=x", "--output writes a file"},
		{"abbreviation names the full option", "diff --out=x", "--out (abbreviating --output) writes a file"},
		{"global -c", "-c a=b log", "global option -c sets git configuration, which can name programs for git to run"},
		{"branch creation", "branch foo", "git branch foo creates a branch"},
		{"branch deletion", "branch -d x", "git branch -d creates, deletes, renames, copies or reconfigures a branch"},
		{"stash pop", "stash pop", "git stash pop changes the working tree or deletes stashes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Check(strings.Fields(tt.in)).Reason); diff != "" {
				t.Errorf("Check(%q).Reason mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestUnknownOptionAdviceListsAllowed(t *testing.T) {
	t.Parallel()
	v := Check([]string{"log", "--frob"})
	if !strings.Contains(v.Advice, "--oneline") {
		t.Errorf("advice %q does not list allowed log options", v.Advice)
	}
}

func TestOutcomeString(t *testing.T) {
	t.Parallel()
	got := []string{Allow.String(), Ask.String(), Deny.String(), Outcome(7).String()}
	if diff := cmp.Diff([]string{"allow", "ask", "deny", "Outcome(7)"}, got); diff != "" {
		t.Errorf("Outcome.String mismatch (-want +got):\n%s", diff)
	}
}

// TestTablesKeepDeniedOptions guards the abbreviation screening: every
// subcommand table must know the denied options, or "--out" would be unknown
// in one table and resolve to something harmless in another.
func TestTablesKeepDeniedOptions(t *testing.T) {
	t.Parallel()
	all := []*table{stashListTable.get(), stashShowTable.get(), reflogShowTable.get(), worktreeListTable.get(), hashObjectTable.get()}
	for _, tb := range tables {
		all = append(all, tb.get())
	}
	for _, tb := range all {
		for name := range alwaysDeniedLong {
			if tb.name == "check-ignore" && name == "no-index" {
				continue // check-ignore's own --no-index leaves the index out (tables.go)
			}
			if o, ok := tb.long[name]; !ok || o.kind != kDeny {
				t.Errorf("table %s: --%s is not denied", tb.name, name)
			}
		}
		if o := tb.short['O']; o.kind != kDeny {
			t.Errorf("table %s: -O is not denied", tb.name)
		}
	}
}

// TestStatusTextconv: git status -v shows a diff with textconv drivers and
// has no --no-textconv, so the verdict names the option for the caller,
// which asks when a driver is configured.
func TestStatusTextconv(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"status -v", "-v"}, {"status -sv", "-sv"}, {"status --verbose --verbose", "--verbose"},
		{"status --verb", "--verb"}, {"status -s", ""}, {"status", ""}, {"diff --cached", ""},
	} {
		if got := Check(strings.Fields(tt.in)).Textconv; got != tt.want {
			t.Errorf("Check(%q).Textconv = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCloneConfigNamed: git clone -c KEY=VALUE is asked with every key it
// sets named in the question; a denied key is named in the refusal.
func TestCloneConfigNamed(t *testing.T) {
	v := Check([]string{"clone", "--config=init.defaultBranch=main", "-c", "user.email=a@b", "https://example.com/r"})
	if v.Outcome != Ask || !strings.Contains(v.Reason, "it sets init.defaultBranch in the new repository; it sets user.email in the new repository") {
		t.Errorf("clone -c asked: %v %q", v.Outcome, v.Reason)
	}
	v = Check([]string{"clone", "-c", "core.autocrlf=false", "-c", "core.sshCommand=touch x", "https://example.com/r"})
	if v.Outcome != Deny || !strings.Contains(v.Reason, "core.sshCommand") || v.Advice == "" {
		t.Errorf("clone -c core.sshCommand: %v %q %q", v.Outcome, v.Reason, v.Advice)
	}
}
