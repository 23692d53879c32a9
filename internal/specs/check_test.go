package specs

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testSet returns the default specs with tree and rg "installed", so that
// their specs can be tested where they are missing.
func testSet(t testing.TB) *Set {
	t.Helper()
	def, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	s := newSet(nil, def.base)
	s.dialect = DialectGNU // the cases are GNU command lines wherever the test runs
	s.path["tree"] = lookResult{path: "/usr/bin/tree"}
	s.path["rg"] = lookResult{path: "/usr/bin/rg"}
	return s
}

type checkCase struct {
	in   string  // command line, split like spec examples
	dir  string  // relative to the root; "" is the root
	want Outcome // expected outcome
	rule Rule    // expected rule
	arg  string  // expected Arg when not ""
}

func allow(in string) checkCase { return checkCase{in: in, want: Allow, rule: RuleSpec} }
func ask(in string) checkCase   { return checkCase{in: in, want: Ask, rule: RuleSpecAsk} }
func deny(in string, rule Rule) checkCase {
	return checkCase{in: in, want: Deny, rule: rule}
}
func denyArg(in string, rule Rule, arg string) checkCase {
	return checkCase{in: in, want: Deny, rule: rule, arg: arg}
}

var checkCases = []checkCase{
	// cat
	allow("cat a.txt"), allow("cat -n a.txt b.txt"), allow("cat -An a.txt"), allow("cat --number a.txt"),
	allow("cat -- -n"), allow("cat -"), allow("cat .git/config"), allow("cat dir/../a.txt"),
	allow("cat inlink/a.txt"), allow("cat dir/up/proj/a.txt"), allow("cat a.txt -n"),
	denyArg("cat /etc/passwd", RulePathOutsideRoot, "/etc/passwd"), deny("cat ~/.ssh/id_rsa", RulePathOutsideRoot),
	deny("cat ../x", RulePathOutsideRoot), denyArg("cat -z a.txt", RuleUnknownFlag, "-z"),
	denyArg("cat -nz a.txt", RuleUnknownFlag, "-nz"), deny("cat --num a.txt", RuleUnknownFlag),
	deny("cat escape/passwd", RulePathOutsideRoot), deny("cat escape/../etc/passwd", RulePathOutsideRoot),
	deny("cat --number=1 a.txt", RuleFlagValue), deny("cat uplink/proj2/x", RulePathOutsideRoot), deny("cat -N a.txt", RuleUnknownFlag),
	// head / tail
	allow("head a.txt"), allow("head -n 5 README.md"), allow("head -n5 a.txt b.txt"), allow("head -5 a.txt"),
	allow("head --lines=3 a.txt"), allow("head --lines 3 a.txt"), allow("head -n -5 a.txt"), allow("head -c 1K a.txt"),
	allow("head -qn3 a.txt"), allow("head -n 0x10 a.txt"),
	deny("head -x a.txt", RuleUnknownFlag), deny("head /etc/passwd", RulePathOutsideRoot), denyArg("head -n abc a.txt", RuleFlagValue, "-n"),
	deny("head -n", RuleFlagValue), deny("head --lines=x a.txt", RuleFlagValue), deny("head --line=3 a.txt", RuleUnknownFlag),
	deny("head --quiet=yes a.txt", RuleFlagValue), deny("head -n /etc/passwd", RuleFlagValue), deny("head -n ../x", RuleFlagValue),
	allow("tail -n +3 a.txt"), allow("tail --lines=+2 a.txt"), allow("tail -5 a.txt"), allow("tail -qn 2 a.txt b.txt"),
	allow("tail -c 10 a.txt"), allow("tail -n5 a.txt"), allow("tail a.txt"), allow("tail -v a.txt"),
	// tail -f never ends: asked (under clada mcp it becomes a background job).
	ask("tail -f a.txt"), deny("tail -nf a.txt", RuleFlagValue), ask("tail -qf a.txt"),
	ask("tail -F a.txt"), ask("tail --follow a.txt"), ask("tail --follow=name a.txt"),
	deny("tail --fol a.txt", RuleUnknownFlag), ask("tail a.txt -f"), deny("tail -f /etc/passwd", RulePathOutsideRoot),
	deny("tail -f .git/../escape/passwd", RulePathOutsideRoot),
	// grep
	allow("grep foo a.txt"), allow("grep -rn TODO ."), allow("grep -e foo -e bar a.txt"), allow("grep -f patterns.txt a.txt"),
	allow("grep -- -x a.txt"), allow("grep -C3 foo a.txt"), allow("grep --include=*.go -r foo dir"), allow("grep /etc/passwd a.txt"),
	allow("grep -e /etc/passwd"), allow("grep -efoo a.txt"), allow("grep --regexp=/etc a.txt"), allow("grep --color foo a.txt"),
	deny("grep foo /etc/passwd", RulePathOutsideRoot), denyArg("grep -f /etc/shadow a.txt", RulePathOutsideRoot, "/etc/shadow"),
	deny("grep --file=/etc/passwd a.txt", RulePathOutsideRoot), deny("grep --file /etc/passwd a.txt", RulePathOutsideRoot),
	deny("grep -f/etc/passwd a.txt", RulePathOutsideRoot), deny("grep -R foo .", RuleUnknownFlag), deny("grep -rR foo .", RuleUnknownFlag),
	deny("grep -e foo /etc/passwd", RulePathOutsideRoot), deny("grep --regex=foo a.txt", RuleUnknownFlag), deny("grep -y foo a.txt", RuleUnknownFlag),
	deny("grep --dereference-recursive foo", RuleUnknownFlag), deny("grep -A x foo a.txt", RuleFlagValue), deny("grep foo a.txt ~", RulePathOutsideRoot),
	// rg
	allow("rg foo"), allow("rg foo dir"), allow("rg -n foo a.txt"), allow("rg -e foo -e bar ."), allow("rg -tgo foo"),
	deny("rg --files /etc", RulePathOutsideRoot), allow("rg --files"), allow("rg foo --files"), allow("rg --type-list"),
	allow("rg -uu foo"), allow("rg /etc/passwd"), allow("rg -C2 foo a.txt"), allow("rg -i -g *.go foo"),
	deny("rg --pre cat foo", RuleUnknownFlag), deny("rg --pre=cat foo", RuleUnknownFlag), deny("rg --pr cat foo", RuleUnknownFlag),
	deny("rg -z foo", RuleUnknownFlag), deny("rg -iz foo", RuleUnknownFlag), deny("rg --search-zip foo", RuleUnknownFlag),
	deny("rg -L foo", RuleUnknownFlag), deny("rg --follow foo", RuleUnknownFlag), deny("rg foo /etc", RulePathOutsideRoot),
	deny("rg -f /etc/passwd", RulePathOutsideRoot), deny("rg --ignore-file=/etc/x foo", RulePathOutsideRoot), deny("rg -PRE foo", RuleUnknownFlag),
	// find
	allow("find"), allow("find ."), allow("find dir -name *.go"), allow("find . -type f -name a.txt"), allow("find . -maxdepth 2 -type d"),
	allow("find . ( -name a -o -name b ) -print"), allow("find . ! -name *.tmp"), allow("find . -newer a.txt"), allow("find -P . -name x"),
	allow("find dir a.txt -mtime -3"), allow("find . -path ./dir -prune -o -print"), allow("find . -name -exec"), allow("find . -printf %p\\n"),
	ask("find . -exec rm {} ;"), ask("find . -execdir ls ;"), ask("find . -ok rm {} ;"), deny("find . -exec rm {}", RuleSpec),
	ask("find . -okdir rm {} ;"), allow("find dir -delete"), deny("find .git -delete", RuleProtectedPath), deny("find . -fprint out.txt", RuleUnknownFlag),
	deny("find . -fprint0 out.txt", RuleUnknownFlag), deny("find . -fprintf out %p", RuleUnknownFlag), deny("find . -fls out", RuleUnknownFlag),
	deny("find /", RulePathOutsideRoot), deny("find /etc -name passwd", RulePathOutsideRoot), deny("find -L .", RuleUnknownFlag),
	deny("find . -follow", RuleUnknownFlag), deny("find . -newer /etc/passwd", RulePathOutsideRoot), deny("find . -name x dir", RuleSpec),
	deny("find . -maxdepth x", RuleFlagValue), deny("find . -Delete", RuleUnknownFlag), deny("find . --exec x", RuleUnknownFlag),
	deny("find . -name", RuleFlagValue), allow("find dir -not -delete"), ask("find . ( -exec x ; )"),
	deny("find .. -name x", RulePathOutsideRoot), deny("find -- -delete", RuleUnknownFlag),
	// ls
	allow("ls"), allow("ls -la"), allow("ls -la dir"), allow("ls --color=never"), allow("ls --color"), allow("ls -R dir"),
	allow("ls -w 80"), allow("ls .git"), allow("ls -- -x"), allow("ls -lt --time-style=long-iso"), allow("ls -w80 -1"),
	deny("ls /", RulePathOutsideRoot), deny("ls /etc", RulePathOutsideRoot), deny("ls ~", RulePathOutsideRoot), deny("ls ~root", RulePathOutsideRoot),
	deny("ls ..", RulePathOutsideRoot), deny("ls -L", RuleUnknownFlag), deny("ls -lL", RuleUnknownFlag), deny("ls -y", RuleUnknownFlag),
	deny("ls --colour", RuleUnknownFlag), deny("ls -w abc", RuleFlagValue), deny("ls escape", RulePathOutsideRoot),
	deny("ls outlink", RulePathOutsideRoot), deny("ls uplink", RulePathOutsideRoot), deny("ls --dereference", RuleUnknownFlag),
	// pwd, whoami, uname
	allow("pwd"), allow("pwd -P"), allow("pwd --"), deny("pwd x", RuleTooManyPaths), deny("pwd -x", RuleUnknownFlag),
	deny("pwd --phys", RuleUnknownFlag), allow("whoami"), deny("whoami x", RuleTooManyPaths), deny("whoami -u", RuleUnknownFlag),
	allow("uname -a"), allow("uname -sr"), deny("uname -az", RuleUnknownFlag), deny("uname x", RuleTooManyPaths),
	// tree
	allow("tree"), allow("tree dir"), allow("tree -L 2"), allow("tree -aL 2"), allow("tree -I node_modules"), allow("tree -P *.go dir"),
	allow("tree --dirsfirst -h"), allow("tree -d --noreport"),
	deny("tree -o out.txt", RuleUnknownFlag), deny("tree -ao out.txt", RuleUnknownFlag), deny("tree -L2", RuleFlagValue),
	denyArg("tree -Lo 3 x", RuleFlagValue, "-Lo"), deny("tree -Po x .git/config", RuleFlagValue), deny("tree -R", RuleUnknownFlag),
	deny("tree -l", RuleUnknownFlag), deny("tree /", RulePathOutsideRoot), deny("tree -L x", RuleFlagValue), deny("tree --output=x", RuleUnknownFlag),
	// wc, diff, file, stat, realpath
	allow("wc -l a.txt b.txt"), denyArg("wc --files0-from=list.txt", RuleUnknownFlag, "--files0-from=list.txt"), deny("wc --files0-from=/etc/x", RuleUnknownFlag), deny("wc --line a.txt", RuleUnknownFlag),
	allow("diff a.txt b.txt"), allow("diff -u a.txt b.txt"), allow("diff -U3 a.txt b.txt"), allow("diff --unified=5 a.txt b.txt"), allow("diff -ru dir dir2"),
	deny("diff a.txt", RuleTooManyPaths), deny("diff a.txt b.txt c.txt", RuleTooManyPaths), deny("diff a.txt /etc/passwd", RulePathOutsideRoot),
	deny("diff --to-file=/etc a.txt", RuleUnknownFlag), deny("diff -X /etc/x a.txt b.txt", RulePathOutsideRoot), deny("diff --unif a.txt b.txt", RuleUnknownFlag),
	deny("sort --files0-from=list.txt", RuleUnknownFlag), deny("sort --files0-from list.txt", RuleUnknownFlag), deny("du --files0-from=list.txt", RuleUnknownFlag),
	deny("file -f list.txt", RuleUnknownFlag), deny("file --files-from=list.txt", RuleUnknownFlag), deny("file -bf list.txt", RuleUnknownFlag),
	ask("file -z a.txt"), ask("file -Z a.txt"), ask("file -iz a.txt"), allow("file -s a.txt"),
	ask("file --uncompress a.txt"), ask("file --uncompress-noreport a.txt"), deny("file -z /etc/passwd", RulePathOutsideRoot),
	allow("file -bi a.txt"), deny("file -C", RuleUnknownFlag), deny("file -bC a.txt", RuleUnknownFlag), deny("file -m /etc/magic a.txt", RuleUnknownFlag),
	allow("stat -c %s a.txt"), allow("stat -Lc %s a.txt"), deny("stat -c", RuleFlagValue), deny("stat /etc/passwd", RulePathOutsideRoot),
	// realpath -L/-s apply .. before symlinks, so they print another name,
	// and open nothing; clada still confines the operand as the kernel
	// resolves it: dir/up/../outside/secret is outside, though -L would
	// print it as inside.
	denyArg("realpath -L -e dir/up/../outside/secret", RulePathOutsideRoot, "dir/up/../outside/secret"), allow("realpath --logical a.txt"),
	allow("realpath -s a.txt"), allow("realpath --strip inlink/../a.txt"), allow("realpath --no-symlinks a.txt"), deny("realpath -s escape/passwd", RulePathOutsideRoot),
	allow("realpath -eL a.txt"), allow("realpath -qs a.txt"), allow("realpath -P dir/../a.txt"), allow("realpath -e inlink/a.txt"),
	allow("realpath --relative-to=dir a.txt"), allow("realpath -m missing/x"), deny("realpath --relative-to=/ a.txt", RulePathOutsideRoot), deny("realpath escape", RulePathOutsideRoot),
	// xxd
	allow("xxd a.txt"), allow("xxd -l 64 a.txt"), allow("xxd -l64 a.txt"), allow("xxd -c 8 -g 1 a.txt"), allow("xxd -ps a.txt"),
	allow("xxd -s 0x10 a.txt"), allow("xxd -s -16 a.txt"), allow("xxd -len 16 a.txt"), allow("xxd -cols 4 a.txt"),
	allow("xxd -r a.txt"), allow("xxd -r a.txt out.bin"), deny("xxd -pr a.txt", RuleUnknownFlag), deny("xxd -r a.txt .git/x", RuleProtectedPath),
	deny("xxd -rp a.txt", RuleUnknownFlag), allow("xxd -revert a.txt"), deny("xxd -ar a.txt", RuleUnknownFlag),
	allow("xxd a.txt out.txt"), deny("xxd a.txt b.txt c.txt", RuleTooManyPaths), deny("xxd /etc/passwd", RulePathOutsideRoot), deny("xxd -l x a.txt", RuleFlagValue),
	deny("xxd -R", RuleFlagValue), deny("xxd -s -r a.txt", RuleFlagValue),
	denyArg("xxd -al 5 .git/config", RuleUnknownFlag, "-al"), deny("xxd -pl 5 a.txt", RuleUnknownFlag), deny("xxd -il 5 a.txt", RuleUnknownFlag),
	deny("xxd -ac 5 a.txt", RuleUnknownFlag), deny("xxd -autoskipx a.txt", RuleUnknownFlag), denyArg("xxd -rfoo a.txt", RuleUnknownFlag, "-rfoo"),
	denyArg("xxd a.txt -p", RuleSpec, "-p"), deny("xxd -l 5 a.txt -ps", RuleSpec), deny("xxd -lx a.txt", RuleFlagValue),
	allow("xxd -a -l 5 a.txt"), allow("xxd -c8 -g1 a.txt"), allow("xxd -- a.txt"), allow("xxd -ps -c 16 a.txt"), allow("xxd -i a.txt"),
	// mkdir, touch
	allow("mkdir newdir"), allow("mkdir -p a/b/c"), allow("mkdir -m 755 x"), allow("mkdir dir/sub/new"), allow("mkdir inlink/new"),
	deny("mkdir /tmp/x", RulePathOutsideRoot), deny("mkdir .git/x", RuleProtectedPath), deny("mkdir -p .clada/x", RuleProtectedPath),
	deny("mkdir .GIT/hooks", RuleProtectedPath), deny("mkdir dir/sub/.git", RuleProtectedPath), deny("mkdir escape/x", RulePathOutsideRoot),
	deny("mkdir .git", RuleProtectedPath), deny("mkdir .clada", RuleProtectedPath), deny("mkdir -Z d", RuleUnknownFlag),
	allow("touch a.txt"), allow("touch new.txt dir/new.txt"), allow("touch -r b.txt a.txt"), allow("touch -d 2020-01-01 a.txt"),
	allow("touch dir/../c.txt"),
	deny("touch .clada/commands.toml", RuleProtectedPath), deny("touch .git/hooks/pre-commit", RuleProtectedPath),
	deny("touch gitlink/config", RuleProtectedPath), deny("touch hooklink", RuleProtectedPath), deny("touch dangling", RulePathOutsideRoot),
	deny("touch -r /etc/passwd a.txt", RulePathOutsideRoot), deny("touch outlink/new", RulePathOutsideRoot), deny("touch dir/up/proj2/x", RulePathOutsideRoot),
	deny("touch ./.git/../.git/config", RuleProtectedPath), deny("touch dir/../.clada/x", RuleProtectedPath),
	// cp
	allow("cp a.txt b.txt"), allow("cp a.txt dir"), allow("cp -r src dir2"), allow("cp -a src newdir"), allow("cp a.txt b.txt dir"),
	allow("cp -t dir a.txt b.txt"), allow("cp --target-directory=dir a.txt"), allow("cp .git/config x.txt"), allow("cp -rv src x"),
	allow("cp -- a.txt c.txt"),
	deny("cp a.txt /tmp/x", RulePathOutsideRoot), deny("cp /etc/passwd a.txt", RulePathOutsideRoot), deny("cp a.txt .git/config", RuleProtectedPath),
	deny("cp a.txt .clada/", RuleProtectedPath), deny("cp a.txt .clada", RuleProtectedPath), deny("cp -t .git a.txt", RuleProtectedPath),
	deny("cp -t.git a.txt", RuleProtectedPath), deny("cp --target-directory=.git/hooks a.txt", RuleProtectedPath),
	deny("cp --target-directory .git/hooks a.txt", RuleProtectedPath), deny("cp a.txt ../x", RulePathOutsideRoot),
	ask("cp -L a.txt x"), deny("cp -rL dir x", RuleProtectedPath), deny("cp a.txt escape/", RulePathOutsideRoot),
	deny("cp a.txt gitlink/hooks/pre-commit", RuleProtectedPath), deny("cp a.txt hooklink", RuleProtectedPath),
	ask("cp --dereference a.txt x"), deny("cp --deref dir x", RuleUnknownFlag),
	denyArg("cp -l .clada/commands.toml p", RuleUnknownFlag, "-l"), deny("cp --link a.txt p", RuleUnknownFlag), deny("cp -al dir x", RuleUnknownFlag),
	denyArg("cp a.txt hardlink", RuleProtectedPath, "hardlink"), deny("touch hardlink", RuleProtectedPath), deny("rm hardlink", RuleProtectedPath),
	deny("cp a.txt dir2/../hardlink", RuleProtectedPath), allow("cat hardlink"), allow("cp hardlink c.txt"),
	deny("cp -s /abs/.git/config dst/src/config", RuleUnknownFlag), deny("cp --symbolic-link a.txt x", RuleUnknownFlag),
	// cp --parents writes DEST/SRC: tree/dir/link is a symlink to .git/config.
	deny("cp --parents dir/link tree", RuleProtectedPath), denyArg("cp --parents -t tree dir/link", RuleProtectedPath, "dir/link"),
	allow("cp --parents src/a.txt dir2"), allow("cp --parents -t dir2 src/sub/b.txt"),
	deny("cp --parents a.txt uplink", RulePathOutsideRoot), deny("cp -r --parents src tree/dir/link/..", RuleProtectedPath),
	deny("cp -rs dir x", RuleUnknownFlag),
	denyArg("cp -r dir tree", RuleProtectedPath, "tree/dir"), deny("cp -a dir tree", RuleProtectedPath), deny("cp -R dir tree", RuleProtectedPath),
	deny("cp --recursive dir tree", RuleProtectedPath), deny("cp --archive dir tree", RuleProtectedPath), deny("cp dir tree -r", RuleProtectedPath),
	deny("cp -rT dir tree/dir", RuleProtectedPath), deny("cp -rT dir tree", RuleProtectedPath), deny("cp -r -t tree dir", RuleProtectedPath),
	deny("cp --target-directory=tree -a dir", RuleProtectedPath), deny("cp -r a.txt dir tree", RuleProtectedPath), deny("cp -r dir/ tree/", RuleProtectedPath),
	deny("cp -T dir tree/dir", RuleProtectedPath),
	allow("cp -r src newdir"), allow("cp -rT src dir2"), allow("cp dir/a.txt tree"),
	allow("cp -r dir/a.txt tree"), allow("cp -r src tree/dir/ok.txt.d"), allow("cp -r src/ newdir"), allow("cp -r src dir/a.txt newdir"),
	// a recursive copy copies its source's symlinks as they are: dir/up -> ../.. copied one level up points out of the project
	denyArg("cp -r dir newdir", RuleProtectedPath, "dir"), denyArg("cp -r tree x", RuleProtectedPath, "tree"), denyArg("cp -a src dir x", RuleProtectedPath, "dir"),
	denyArg("cp -r inlink newdir", RuleProtectedPath, "inlink"), denyArg("cp -r inlink/ newdir", RuleProtectedPath, "inlink/"),
	denyArg("cp -r -t dir2 src tree", RuleProtectedPath, "tree"), denyArg("cp -rT tree/dir newdir", RuleProtectedPath, "tree/dir"),
	denyArg("cp -r gitlink newdir", RuleProtectedPath, "gitlink"), deny("cp --archive dir dir2", RuleProtectedPath), deny("cp dir/.. x -R", RuleProtectedPath),
	allow("cp inlink x"), allow("cp -T inlink x"),
	// backup suffixes name files clada does not check (cp -b -S it x sub/.g makes sub/.git)
	denyArg("cp -b -S it a.txt dir/.g", RuleUnknownFlag, "-S"), deny("cp --suffix=it a.txt b.txt", RuleUnknownFlag),
	deny("cp --suffix it a.txt b.txt", RuleUnknownFlag), denyArg("cp -bSit a.txt b.txt", RuleUnknownFlag, "-bSit"),
	allow("cp -b a.txt b.txt"), allow("cp --backup=numbered a.txt b.txt"),
	// mv
	allow("mv a.txt b.txt"), allow("mv a.txt dir"), allow("mv -t dir a.txt"), allow("mv -n a.txt dir/"), allow("mv a.txt b.txt dir"),
	deny("mv a.txt /tmp/x", RulePathOutsideRoot), deny("mv .git/config x", RuleProtectedPath), deny("mv x .git/hooks/pre-commit", RuleProtectedPath),
	deny("mv .clada/commands.toml x", RuleProtectedPath), deny("mv -t .git a.txt", RuleProtectedPath), deny("mv a.txt gitlink/x", RuleProtectedPath),
	deny("mv a.txt ../x", RulePathOutsideRoot), deny("mv escape/x a.txt", RulePathOutsideRoot), deny("mv .git x", RuleProtectedPath),
	deny("mv -T dir tree/dir", RuleProtectedPath), deny("mv --no-target-directory dir2 tree", RuleProtectedPath), allow("mv -T dir2 emptydir"),
	allow("mv dir tree"),
	denyArg("mv -T -b -S lada b.txt .c", RuleUnknownFlag, "-S"), deny("mv --suffix=lada a.txt b.txt", RuleUnknownFlag),
	deny("mv -bS lada a.txt b.txt", RuleUnknownFlag), deny("mv --backup --suffix lada a.txt b.txt", RuleUnknownFlag),
	allow("mv -b a.txt b.txt"), allow("mv --backup=simple a.txt b.txt"),
	// rm
	allow("rm a.txt"), allow("rm a.txt b.txt"), allow("rm -v a.txt"), allow("rm -d emptydir"), allow("rm -- -x"), allow("rm -iv a.txt"),
	allow("rm --dir emptydir"), allow("rm dir/a.txt"),
	allow("rm -r dir"), allow("rm -rf dir"), allow("rm -fr dir"), allow("rm -f a.txt"), allow("rm -vf a.txt"), allow("rm --force a.txt"),
	allow("rm --recursive dir"), allow("rm -R dir"), allow("rm a.txt -rf"), allow("rm -Rf dir"),
	deny("rm --rec dir", RuleUnknownFlag), deny("rm --force=1 a.txt", RuleFlagValue),
	deny("rm /etc/passwd", RulePathOutsideRoot), deny("rm .git/config", RuleProtectedPath), deny("rm .clada/commands.toml", RuleProtectedPath),
	deny("rm ../x", RulePathOutsideRoot), deny("rm escape/passwd", RulePathOutsideRoot), deny("rm .Git/index", RuleProtectedPath),
	deny("rm -rf .git", RuleProtectedPath), deny("rm -r .clada", RuleProtectedPath), deny("rm -r escape/", RulePathOutsideRoot),
	deny("rm gitlink/index", RuleProtectedPath), deny("rm --no-preserve-root x", RuleUnknownFlag),
	// echo, printf, which, basename, dirname
	allow("echo hello"), allow("echo /etc/passwd"), allow("echo ~"), allow("echo -n hi"), deny("echo -x", RuleUnknownFlag),
	allow("printf %s\\n hello"), allow("printf -- -x"), deny("printf -v x hi", RuleUnknownFlag),
	allow("which -a ls"), allow("which --all ls"), allow("uname --help"), allow("cat --version"), deny("uname --help x", RuleUnknownFlag), allow("basename ~/x"), allow("dirname /etc/passwd"), deny("dirname -x a", RuleUnknownFlag),
	// date
	allow("date"), allow("date +%Y-%m-%d"), allow("date -u"), allow("date -Iseconds"), allow("date --iso-8601=seconds"),
	allow("date -d yesterday +%F"), allow("date -r a.txt"), allow("date -uR"), allow("date --iso-8601"),
	deny("date -s 2020-01-01", RuleUnknownFlag), deny("date --set=2020-01-01", RuleUnknownFlag), deny("date --set 2020-01-01", RuleUnknownFlag),
	deny("date -us x", RuleUnknownFlag), deny("date 010112002020", RuleSpec), deny("date +%F extra", RuleTooManyPaths),
	deny("date -r /etc/passwd", RulePathOutsideRoot), deny("date --se=x", RuleUnknownFlag),
	// a TZ= in a date string opens that file as a time zone (a FIFO hangs date)
	denyArg(`date -d 'TZ="/tmp/fifo" 2020-01-01'`, RuleFlagValue, "-d"), deny(`date --date='tz="/etc/passwd" now'`, RuleFlagValue),
	deny("date --date TZ=UTC", RuleFlagValue), deny("date -ud Tz=x", RuleFlagValue), deny("date -dTZ=x", RuleFlagValue),
	deny(`date -d 'now TZ="x"'`, RuleFlagValue), allow("date -d '2020-01-01 12:00 +02:00'"), allow("date -d tomorrow -u"),
	allow("date --date=@0"), deny("date -f dates.txt", RuleUnknownFlag), deny("date --file=list.txt", RuleUnknownFlag), deny("date -f /etc/x", RuleUnknownFlag),
	denyArg(`touch -d 'TZ="/tmp/fifo" 2020-01-01' a.txt`, RuleFlagValue, "-d"), deny("touch --date=tz=x a.txt", RuleFlagValue),
	deny("touch -cdTZ=UTC a.txt", RuleFlagValue), allow("touch --date=yesterday a.txt"), allow("touch -t 202001010000 a.txt"),
	// du, df
	allow("du -sh dir"), allow("du -h -d 1"), deny("du /", RulePathOutsideRoot), deny("du -sL dir", RuleUnknownFlag),
	allow("df -h ."), allow("df --output=source,size"), deny("df --sync", RuleUnknownFlag), deny("df /", RulePathOutsideRoot),
	// sort, uniq
	allow("sort a.txt"), allow("sort -rn a.txt b.txt"), allow("sort -k 2 -t , a.txt"), allow("sort -k2,2n a.txt"), allow("sort -t: -k3 a.txt"),
	allow("sort -S 10M a.txt"), allow("sort --key=1 a.txt"), allow("sort -u a.txt"),
	allow("sort -o out.txt a.txt"), allow("sort -ro out.txt a.txt"), allow("sort -uo out a.txt"), deny("sort -o /tmp/x a.txt", RulePathOutsideRoot),
	allow("sort --output=out a.txt"), allow("sort --output out a.txt"), deny("sort --out=x a.txt", RuleUnknownFlag),
	deny("sort --compress-program=gzip a.txt", RuleUnknownFlag), deny("sort -T /tmp a.txt", RuleUnknownFlag), deny("sort /etc/passwd", RulePathOutsideRoot),
	deny("sort --random-source=/dev/urandom a.txt", RulePathOutsideRoot), deny("sort -O x a.txt", RuleUnknownFlag), allow("sort a.txt -o b.txt"), deny("sort a.txt -o .git/b", RuleProtectedPath),
	allow("uniq -c a.txt"), allow("uniq -s2 a.txt"), deny("uniq a.txt out.txt", RuleTooManyPaths), deny("uniq -f x a.txt", RuleFlagValue),
	// in a subdirectory
	{in: "cat a.txt", dir: "dir", want: Allow, rule: RuleSpec},
	{in: "cat ../a.txt", dir: "dir", want: Allow, rule: RuleSpec},
	{in: "cat ../../x", dir: "dir", want: Deny, rule: RulePathOutsideRoot},
	{in: "touch ../.git/x", dir: "dir/sub", want: Deny, rule: RuleProtectedPath},
	{in: "touch ../../.git/x", dir: "dir/sub", want: Deny, rule: RuleProtectedPath},
	// wrappers are asked, unknown programs and paths are not specs
	{in: "env ls", want: Ask, rule: RuleWrapper}, {in: "xargs rm", want: Ask, rule: RuleWrapper},
	{in: "sh -c ls", want: Ask, rule: RuleWrapper}, {in: "bash script.sh", want: Ask, rule: RuleWrapper},
	{in: "python3 -c print(1)", want: Ask, rule: RuleWrapper}, {in: "timeout 5 ls", want: Ask, rule: RuleWrapper},
	{in: "taskset 1 ls", want: Ask, rule: RuleWrapper}, {in: "chrt -f 10 ls", want: Ask, rule: RuleWrapper},
	{in: "setpriv --nnp ls", want: Ask, rule: RuleWrapper}, {in: "script -c ls log", want: Ask, rule: RuleWrapper},
	{in: "flock f -c ls", want: Ask, rule: RuleWrapper},
	{in: "./ls", want: NoSpec}, {in: "/bin/cat a.txt", want: NoSpec}, {in: "npm test", want: Ask, rule: RuleSpecAsk}, {in: "npx eslint", want: Ask, rule: RuleSpecAsk}, {in: "CAT a.txt", want: NoSpec},
	{in: "python3 script.py", want: Ask, rule: RuleSpecAsk}, {in: "ruby script.rb", want: NoSpec},
}

// sideEffectCases are options and spellings that reach what a spec
// forbids by another way (issue 16 §1, §5), under the GNU dialect.
var sideEffectCases = []checkCase{
	denyArg("tail +1f a.txt", RuleSpec, "+1f"), denyArg("tail +5 a.txt", RuleSpec, "+5"), denyArg("tail a.txt +1f", RuleSpec, "+1f"),
	allow("tail ./+1f"), allow("tail -n +1 a.txt"),
	denyArg("which /etc/passwd", RulePathOutsideRoot, "/etc/passwd"), denyArg("which ../x", RulePathOutsideRoot, "../x"),
	deny("which escape/passwd", RulePathOutsideRoot), allow("which ls"), allow("which ./a.txt"), allow("which dir/x"),
	denyArg("diff -l a.txt b.txt", RuleUnknownFlag, "-l"), denyArg("diff --paginate a.txt b.txt", RuleUnknownFlag, "--paginate"),
	denyArg("diff -ul a.txt b.txt", RuleUnknownFlag, "-ul"),
	denyArg("file -p a.txt", RuleUnknownFlag, "-p"), denyArg("file --preserve-date .git/config", RuleUnknownFlag, "--preserve-date"),
	denyArg("file -bp a.txt", RuleUnknownFlag, "-bp"),
}

func TestCheckSideEffects(t *testing.T) {
	t.Parallel()
	runCases(t, testSet(t), sideEffectCases)
}

// bsdCases are decided under the BSD dialect (clada check --os darwin):
// the first operand ends the options, and options that differ there are
// typed as macOS has them.
var bsdCases = []checkCase{
	// An option after an operand: a file name for BSD getopt, an option
	// for GNU or getopt_long programs.
	denyArg("touch a.txt -t /outside/x", RuleOptionAfterOperand, "-t"),
	denyArg("stat a.txt -c /etc/passwd", RuleOptionAfterOperand, "-c"),
	denyArg("ls . --hide /etc", RuleOptionAfterOperand, "--hide"),
	denyArg("rm a.txt -rf", RuleOptionAfterOperand, "-rf"), denyArg("cat a.txt -- b.txt", RuleOptionAfterOperand, "--"),
	denyArg("grep foo a.txt --exclude-from=/etc/x", RuleOptionAfterOperand, "--exclude-from=/etc/x"),
	denyArg("head a.txt -5", RuleOptionAfterOperand, "-5"), denyArg("cp a.txt b.txt -R", RuleOptionAfterOperand, "-R"),
	allow("touch -t 202001010000 a.txt"), allow("rm -rf dir"), allow("rm -- -x"), allow("cat -"), allow("cat a.txt - b.txt"),
	allow("grep -rn TODO ."), allow("grep -e foo a.txt"), allow("head -5 a.txt"),
	// ls: -I, -T and -w take no value on macOS, so the next word is an
	// operand; GNU long options do not exist there.
	denyArg("ls -I /etc", RulePathOutsideRoot, "/etc"), denyArg("ls -T /etc", RulePathOutsideRoot, "/etc"),
	deny("ls -w ../x", RulePathOutsideRoot), allow("ls -I dir"), allow("ls -la dir"), allow("ls --color=auto"),
	denyArg("ls --hide=x", RuleUnknownFlag, "--hide=x"), deny("ls --all", RuleUnknownFlag), allow("ls -D %F -l"),
	// stat: -f and -t take a format on macOS, a format that GNU stat
	// would read as a file: checked as a path.
	allow("stat -f %z a.txt"), allow("stat -x a.txt"), denyArg("stat -f /etc/passwd a.txt", RulePathOutsideRoot, "/etc/passwd"),
	denyArg("stat -c %s a.txt", RuleUnknownFlag, "-c"), deny("stat --format=%n a.txt", RuleUnknownFlag),
	// cp and mv have no -t, -T, -u, -b on macOS.
	denyArg("cp -t dir a.txt", RuleUnknownFlag, "-t"), denyArg("mv -T a.txt b.txt", RuleUnknownFlag, "-T"), allow("cp -R src dir2"),
	// date: -d sets the kernel's DST on old macOS; -r names a file or seconds.
	denyArg("date -d yesterday", RuleUnknownFlag, "-d"), deny("date -r /etc/passwd", RulePathOutsideRoot), allow("date -r a.txt"),
	allow("date -u +%F"), denyArg("date +%F -u", RuleOptionAfterOperand, "-u"),
	// Portable programs parse alike everywhere; find has its own parser.
	allow("rg foo dir -i"), allow("xxd -l 16 a.txt"), allow("find . -name x"), deny("find /etc", RulePathOutsideRoot),
	// Programs reviewed against their FreeBSD sources (issue 16).
	denyArg("head --lines=3 a.txt", RuleUnknownFlag, "--lines=3"), denyArg("tail -s 1 a.txt", RuleUnknownFlag, "-s"),
	allow("tail -n 5 a.txt"), denyArg("uniq -w 3 a.txt", RuleUnknownFlag, "-w"), deny("which --all ls", RuleUnknownFlag),
	denyArg("echo -e a", RuleUnknownFlag, "-e"), allow("echo -n hi"), deny("diff -E a.txt b.txt", RuleUnknownFlag),
	allow("sort -o out.txt a.txt"), denyArg("sort a.txt -o /tmp/x", RuleOptionAfterOperand, "-o"),
	deny("sort --compress-program=gzip a.txt", RuleUnknownFlag),
	// bsdtar: -W NAME=VALUE spells any long option, -H follows symlinks,
	// -I is a file list, @ARCHIVE copies another archive's members.
	denyArg("tar -cf out.tar -W use-compress-program=/tmp/x", RuleUnknownFlag, "-W"),
	denyArg("tar cfW out.tar use-compress-program=/tmp/x", RuleUnknownFlag, "-W"),
	denyArg("tar -cH -f out.tar a.txt", RuleUnknownFlag, "-cH"), denyArg("tar -I list.txt -cf out.tar", RuleUnknownFlag, "-I"),
	denyArg("tar -cf out.tar @/etc/x.tar", RuleSpec, "@/etc/x.tar"), allow("tar -cf out.tar ./@x"),
	allow("tar czf out.tar.gz a.txt b.txt"), denyArg("tar -rf out.tar -A other.tar", RuleUnknownFlag, "-A"),
	// BWK awk ignores options it does not know: awk --file=x PROG runs PROG.
	denyArg("awk --file=prog.awk {print} a.txt", RuleUnknownFlag, "--file=prog.awk"), deny("awk -e {print} a.txt", RuleUnknownFlag),
	// BSD sed: -l takes no value (the next word is checked as a path).
	deny("sed -l 5 /etc/passwd", RulePathOutsideRoot), deny("sed -i '' ../x a.txt", RulePathOutsideRoot),
	deny("sed --in-place s/a/b/ a.txt", RuleUnknownFlag), denyArg("sed s/a/b/ a.txt -i", RuleOptionAfterOperand, "-i"),
	// chmod, ln, cut, nl: no long options there; chmod has no -c, ln no -t or -r.
	deny("chmod --reference=a.txt b.txt", RuleUnknownFlag), denyArg("chmod -c 644 a.txt", RuleUnknownFlag, "-c"),
	denyArg("ln -sr a.txt dir/link", RuleUnknownFlag, "-sr"), deny("cut --fields=1 a.txt", RuleUnknownFlag), deny("nl --body-numbering=a a.txt", RuleUnknownFlag),
	// jq, gawk and less are the same programs everywhere (portable).
	allow("jq . data.json -r"),
	// GNU's traps stay closed.
	deny("tail +1f a.txt", RuleSpec), deny("which /etc/passwd", RulePathOutsideRoot), deny("diff -l a.txt b.txt", RuleUnknownFlag),
}

func TestCheckBSD(t *testing.T) {
	t.Parallel()
	s := testSet(t).ForOS(OSDarwin)
	s.path["rg"] = lookResult{path: "/usr/bin/rg"}
	if s.Dialect() != DialectBSD {
		t.Fatalf("ForOS(darwin) dialect = %s", s.Dialect())
	}
	runCases(t, s, bsdCases)
	// The same command lines under the GNU dialect: what BSD parsing
	// changes.
	gnu := testSet(t)
	for _, in := range []string{"touch a.txt -t x", "rm a.txt -rf", "ls -I x", "stat -c %s a.txt", "date -d yesterday", "tar -cWf out.tar a.txt", "tar -H pax -cf out.tar a.txt", "head --lines=3 a.txt", "echo -e a", "jq . data.json -r"} {
		argv, _ := splitExample(in)
		r, _ := newFixture(t)
		if v := gnu.Check(argv, r.Root(), r); v.Outcome != Allow {
			t.Errorf("GNU dialect: %s is %s (%s), want allow", in, v.Outcome, v.Reason)
		}
	}
}

func TestDialectOf(t *testing.T) {
	for os, want := range map[string]Dialect{OSLinux: DialectGNU, OSWindows: DialectGNU, OSDarwin: DialectBSD, OSFreeBSD: DialectBSD, "openbsd": DialectBSD} {
		if got := DialectOf(os); got != want {
			t.Errorf("DialectOf(%s) = %s, want %s", os, got, want)
		}
	}
	if _, err := ParseOS("plan9"); err == nil {
		t.Error("ParseOS(plan9) accepted")
	}
	if got, _ := ParseOS(""); got != HostOS() {
		t.Errorf("ParseOS(\"\") = %s, want the host %s", got, HostOS())
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	runCases(t, testSet(t), checkCases)
}

func runCases(t *testing.T, s *Set, cases []checkCase) {
	t.Helper()
	r, _ := newFixture(t)
	for _, tt := range cases {
		t.Run(tt.in, func(t *testing.T) {
			argv, err := splitExample(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got := s.Check(argv, filepath.Join(r.Root(), tt.dir), r)
			type result struct {
				Outcome Outcome
				Rule    Rule
			}
			if diff := cmp.Diff(result{tt.want, tt.rule}, result{got.Outcome, got.Rule}); diff != "" {
				t.Errorf("Check(%q) mismatch (-want +got):\n%s\nreason: %s", tt.in, diff, got.Reason)
			}
			if tt.arg != "" && got.Arg != tt.arg {
				t.Errorf("Arg = %q, want %q", got.Arg, tt.arg)
			}
			if got.Outcome == Deny && (got.Reason == "" || got.Advice == "") {
				t.Errorf("deny without reason or advice: %+v", got)
			}
			if got.Outcome == Allow && (len(got.Exec) == 0 || !filepath.IsAbs(got.Exec[0])) {
				t.Errorf("Exec = %q, want an absolute program", got.Exec)
			}
		})
	}
}

// TestHarden checks that a spec's harden arguments come right after the
// program: diff must never follow symlinks below the directories given
// (diff -r dir dir2 with dir/x -> /etc/passwd would print it).
func TestHarden(t *testing.T) {
	t.Parallel()
	s := testSet(t)
	r, _ := newFixture(t)
	tests := []struct {
		in   string
		want []string // Exec without the program
	}{
		{"diff -ru dir dir2", []string{"--no-dereference", "-ru", "dir", "dir2"}},
		{"diff a.txt b.txt", []string{"--no-dereference", "a.txt", "b.txt"}},
		{"diff -- a.txt b.txt", []string{"--no-dereference", "--", "a.txt", "b.txt"}},
		{"rg foo", []string{"--no-config", "--no-ignore-parent", "foo"}},
		{"cat a.txt", []string{"a.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			argv, err := splitExample(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			v := s.Check(argv, r.Root(), r)
			if v.Outcome != Allow {
				t.Fatalf("Check(%q) = %s: %s", tt.in, v.Outcome, v.Reason)
			}
			if diff := cmp.Diff(tt.want, v.Exec[1:]); diff != "" {
				t.Errorf("Exec (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTarChdirCumulative: GNU tar takes each -C from the directory the
// one before led to, so from dir/ `-C .. -C ..` leaves the project even
// though each .. alone, from dir/, stays inside.
func TestTarChdirCumulative(t *testing.T) {
	t.Parallel()
	s := testSet(t)
	r, _ := newFixture(t)
	dir := filepath.Join(r.Root(), "dir")
	for _, tt := range []struct {
		cmd  string
		want Outcome
	}{
		{"tar -cf out.tar -C .. a.txt", Allow},
		{"tar -cf out.tar -C .. -C .. x.txt", Deny},
		{"tar -cf out.tar -C .. -C dir -C .. a.txt", Allow},
		{"tar -tf out.tar -C .. -C .. x.txt", Deny},
	} {
		r.Reset()
		v := s.Check(strings.Fields(tt.cmd), dir, r)
		if v.Outcome != tt.want || (tt.want == Deny && (v.Rule != RulePathOutsideRoot || v.Arg != "..")) {
			t.Errorf("Check(%q) in dir/ = %v (%s %q: %s), want %v", tt.cmd, v.Outcome, v.Rule, v.Arg, v.Reason, tt.want)
		}
	}
}
