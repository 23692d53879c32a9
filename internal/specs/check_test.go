package specs

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/rules"
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
	in   string     // command line, split like spec examples
	dir  string     // relative to the root; "" is the root
	want Outcome    // expected outcome
	rule rules.Rule // expected rule
	arg  string     // expected Arg when not ""
}

func allow(in string) checkCase { return checkCase{in: in, want: Allow, rule: rules.Spec} }
func ask(in string) checkCase   { return checkCase{in: in, want: Ask, rule: rules.SpecAsk} }
func deny(in string, rule rules.Rule) checkCase {
	return checkCase{in: in, want: Deny, rule: rule}
}
func denyArg(in string, rule rules.Rule, arg string) checkCase {
	return checkCase{in: in, want: Deny, rule: rule, arg: arg}
}

var checkCases = []checkCase{
	// cat
	allow("cat a.txt"), allow("cat -n a.txt b.txt"), allow("cat -An a.txt"), allow("cat --number a.txt"),
	allow("cat -- -n"), allow("cat -"), allow("cat .git/config"), allow("cat dir/../a.txt"),
	allow("cat inlink/a.txt"), allow("cat dir/up/proj/a.txt"), allow("cat a.txt -n"),
	denyArg("cat /etc/passwd", rules.PathOutsideRoot, "/etc/passwd"), deny("cat ~/.ssh/id_rsa", rules.PathOutsideRoot),
	deny("cat ../x", rules.PathOutsideRoot), denyArg("cat -z a.txt", rules.UnknownFlag, "-z"),
	denyArg("cat -nz a.txt", rules.UnknownFlag, "-nz"), deny("cat --num a.txt", rules.UnknownFlag),
	deny("cat escape/passwd", rules.PathOutsideRoot), deny("cat escape/../etc/passwd", rules.PathOutsideRoot),
	deny("cat --number=1 a.txt", rules.FlagValue), deny("cat uplink/proj2/x", rules.PathOutsideRoot), deny("cat -N a.txt", rules.UnknownFlag),
	// head / tail
	allow("head a.txt"), allow("head -n 5 README.md"), allow("head -n5 a.txt b.txt"), allow("head -5 a.txt"),
	allow("head --lines=3 a.txt"), allow("head --lines 3 a.txt"), allow("head -n -5 a.txt"), allow("head -c 1K a.txt"),
	allow("head -qn3 a.txt"), allow("head -n 0x10 a.txt"),
	deny("head -x a.txt", rules.UnknownFlag), deny("head /etc/passwd", rules.PathOutsideRoot), denyArg("head -n abc a.txt", rules.FlagValue, "-n"),
	deny("head -n", rules.FlagValue), deny("head --lines=x a.txt", rules.FlagValue), deny("head --line=3 a.txt", rules.UnknownFlag),
	deny("head --quiet=yes a.txt", rules.FlagValue), deny("head -n /etc/passwd", rules.FlagValue), deny("head -n ../x", rules.FlagValue),
	allow("tail -n +3 a.txt"), allow("tail --lines=+2 a.txt"), allow("tail -5 a.txt"), allow("tail -qn 2 a.txt b.txt"),
	allow("tail -c 10 a.txt"), allow("tail -n5 a.txt"), allow("tail a.txt"), allow("tail -v a.txt"),
	// tail -f never ends: asked (under clada mcp it becomes a background job).
	ask("tail -f a.txt"), deny("tail -nf a.txt", rules.FlagValue), ask("tail -qf a.txt"),
	ask("tail -F a.txt"), ask("tail --follow a.txt"), ask("tail --follow=name a.txt"),
	deny("tail --fol a.txt", rules.UnknownFlag), ask("tail a.txt -f"), deny("tail -f /etc/passwd", rules.PathOutsideRoot),
	deny("tail -f .git/../escape/passwd", rules.PathOutsideRoot),
	// grep
	allow("grep foo a.txt"), allow("grep -rn TODO ."), allow("grep -e foo -e bar a.txt"), allow("grep -f patterns.txt a.txt"),
	allow("grep -- -x a.txt"), allow("grep -C3 foo a.txt"), allow("grep --include=*.go -r foo dir"), allow("grep /etc/passwd a.txt"),
	allow("grep -e /etc/passwd"), allow("grep -efoo a.txt"), allow("grep --regexp=/etc a.txt"), allow("grep --color foo a.txt"),
	deny("grep foo /etc/passwd", rules.PathOutsideRoot), denyArg("grep -f /etc/shadow a.txt", rules.PathOutsideRoot, "/etc/shadow"),
	deny("grep --file=/etc/passwd a.txt", rules.PathOutsideRoot), deny("grep --file /etc/passwd a.txt", rules.PathOutsideRoot),
	deny("grep -f/etc/passwd a.txt", rules.PathOutsideRoot), deny("grep -R foo .", rules.UnknownFlag), deny("grep -rR foo .", rules.UnknownFlag),
	deny("grep -e foo /etc/passwd", rules.PathOutsideRoot), deny("grep --regex=foo a.txt", rules.UnknownFlag), deny("grep -y foo a.txt", rules.UnknownFlag),
	deny("grep --dereference-recursive foo", rules.UnknownFlag), deny("grep -A x foo a.txt", rules.FlagValue), deny("grep foo a.txt ~", rules.PathOutsideRoot),
	// rg
	allow("rg foo"), allow("rg foo dir"), allow("rg -n foo a.txt"), allow("rg -e foo -e bar ."), allow("rg -tgo foo"),
	deny("rg --files /etc", rules.PathOutsideRoot), allow("rg --files"), allow("rg foo --files"), allow("rg --type-list"),
	allow("rg -uu foo"), allow("rg /etc/passwd"), allow("rg -C2 foo a.txt"), allow("rg -i -g *.go foo"),
	deny("rg --pre cat foo", rules.UnknownFlag), deny("rg --pre=cat foo", rules.UnknownFlag), deny("rg --pr cat foo", rules.UnknownFlag),
	deny("rg -z foo", rules.UnknownFlag), deny("rg -iz foo", rules.UnknownFlag), deny("rg --search-zip foo", rules.UnknownFlag),
	deny("rg -L foo", rules.UnknownFlag), deny("rg --follow foo", rules.UnknownFlag), deny("rg foo /etc", rules.PathOutsideRoot),
	deny("rg -f /etc/passwd", rules.PathOutsideRoot), deny("rg --ignore-file=/etc/x foo", rules.PathOutsideRoot), deny("rg -PRE foo", rules.UnknownFlag),
	// find
	allow("find"), allow("find ."), allow("find dir -name *.go"), allow("find . -type f -name a.txt"), allow("find . -maxdepth 2 -type d"),
	allow("find . ( -name a -o -name b ) -print"), allow("find . ! -name *.tmp"), allow("find . -newer a.txt"), allow("find -P . -name x"),
	allow("find dir a.txt -mtime -3"), allow("find . -path ./dir -prune -o -print"), allow("find . -name -exec"), allow("find . -printf %p\\n"),
	ask("find . -exec rm {} ;"), ask("find . -execdir ls ;"), ask("find . -ok rm {} ;"), deny("find . -exec rm {}", rules.Spec),
	ask("find . -okdir rm {} ;"), allow("find dir -delete"), deny("find .git -delete", rules.ProtectedPath), deny("find . -fprint out.txt", rules.UnknownFlag),
	deny("find . -fprint0 out.txt", rules.UnknownFlag), deny("find . -fprintf out %p", rules.UnknownFlag), deny("find . -fls out", rules.UnknownFlag),
	deny("find /", rules.PathOutsideRoot), deny("find /etc -name passwd", rules.PathOutsideRoot), deny("find -L .", rules.UnknownFlag),
	deny("find . -follow", rules.UnknownFlag), deny("find . -newer /etc/passwd", rules.PathOutsideRoot), deny("find . -name x dir", rules.Spec),
	deny("find . -maxdepth x", rules.FlagValue), deny("find . -Delete", rules.UnknownFlag), deny("find . --exec x", rules.UnknownFlag),
	deny("find . -name", rules.FlagValue), allow("find dir -not -delete"), ask("find . ( -exec x ; )"),
	deny("find .. -name x", rules.PathOutsideRoot), deny("find -- -delete", rules.UnknownFlag),
	// ls
	allow("ls"), allow("ls -la"), allow("ls -la dir"), allow("ls --color=never"), allow("ls --color"), allow("ls -R dir"),
	allow("ls -w 80"), allow("ls .git"), allow("ls -- -x"), allow("ls -lt --time-style=long-iso"), allow("ls -w80 -1"),
	deny("ls /", rules.PathOutsideRoot), deny("ls /etc", rules.PathOutsideRoot), deny("ls ~", rules.PathOutsideRoot), deny("ls ~root", rules.PathOutsideRoot),
	deny("ls ..", rules.PathOutsideRoot), deny("ls -L", rules.UnknownFlag), deny("ls -lL", rules.UnknownFlag), deny("ls -y", rules.UnknownFlag),
	deny("ls --colour", rules.UnknownFlag), deny("ls -w abc", rules.FlagValue), deny("ls escape", rules.PathOutsideRoot),
	deny("ls outlink", rules.PathOutsideRoot), deny("ls uplink", rules.PathOutsideRoot), deny("ls --dereference", rules.UnknownFlag),
	// pwd, whoami, uname
	allow("pwd"), allow("pwd -P"), allow("pwd --"), deny("pwd x", rules.TooManyPaths), deny("pwd -x", rules.UnknownFlag),
	deny("pwd --phys", rules.UnknownFlag), allow("whoami"), deny("whoami x", rules.TooManyPaths), deny("whoami -u", rules.UnknownFlag),
	allow("uname -a"), allow("uname -sr"), deny("uname -az", rules.UnknownFlag), deny("uname x", rules.TooManyPaths),
	// tree
	allow("tree"), allow("tree dir"), allow("tree -L 2"), allow("tree -aL 2"), allow("tree -I node_modules"), allow("tree -P *.go dir"),
	allow("tree --dirsfirst -h"), allow("tree -d --noreport"),
	deny("tree -o out.txt", rules.UnknownFlag), deny("tree -ao out.txt", rules.UnknownFlag), deny("tree -L2", rules.FlagValue),
	denyArg("tree -Lo 3 x", rules.FlagValue, "-Lo"), deny("tree -Po x .git/config", rules.FlagValue), deny("tree -R", rules.UnknownFlag),
	deny("tree -l", rules.UnknownFlag), deny("tree /", rules.PathOutsideRoot), deny("tree -L x", rules.FlagValue), deny("tree --output=x", rules.UnknownFlag),
	// wc, diff, file, stat, realpath
	allow("wc -l a.txt b.txt"), denyArg("wc --files0-from=list.txt", rules.UnknownFlag, "--files0-from=list.txt"), deny("wc --files0-from=/etc/x", rules.UnknownFlag), deny("wc --line a.txt", rules.UnknownFlag),
	allow("diff a.txt b.txt"), allow("diff -u a.txt b.txt"), allow("diff -U3 a.txt b.txt"), allow("diff --unified=5 a.txt b.txt"), allow("diff -ru dir dir2"),
	deny("diff a.txt", rules.TooManyPaths), deny("diff a.txt b.txt c.txt", rules.TooManyPaths), deny("diff a.txt /etc/passwd", rules.PathOutsideRoot),
	deny("diff --to-file=/etc a.txt", rules.UnknownFlag), deny("diff -X /etc/x a.txt b.txt", rules.PathOutsideRoot), deny("diff --unif a.txt b.txt", rules.UnknownFlag),
	deny("sort --files0-from=list.txt", rules.UnknownFlag), deny("sort --files0-from list.txt", rules.UnknownFlag), deny("du --files0-from=list.txt", rules.UnknownFlag),
	deny("file -f list.txt", rules.UnknownFlag), deny("file --files-from=list.txt", rules.UnknownFlag), deny("file -bf list.txt", rules.UnknownFlag),
	ask("file -z a.txt"), ask("file -Z a.txt"), ask("file -iz a.txt"), allow("file -s a.txt"),
	ask("file --uncompress a.txt"), ask("file --uncompress-noreport a.txt"), deny("file -z /etc/passwd", rules.PathOutsideRoot),
	allow("file -bi a.txt"), deny("file -C", rules.UnknownFlag), deny("file -bC a.txt", rules.UnknownFlag), deny("file -m /etc/magic a.txt", rules.UnknownFlag),
	allow("stat -c %s a.txt"), allow("stat -Lc %s a.txt"), deny("stat -c", rules.FlagValue), deny("stat /etc/passwd", rules.PathOutsideRoot),
	// realpath -L/-s apply .. before symlinks, so they print another name,
	// and open nothing; clada still confines the operand as the kernel
	// resolves it: dir/up/../outside/secret is outside, though -L would
	// print it as inside.
	denyArg("realpath -L -e dir/up/../outside/secret", rules.PathOutsideRoot, "dir/up/../outside/secret"), allow("realpath --logical a.txt"),
	allow("realpath -s a.txt"), allow("realpath --strip inlink/../a.txt"), allow("realpath --no-symlinks a.txt"), deny("realpath -s escape/passwd", rules.PathOutsideRoot),
	allow("realpath -eL a.txt"), allow("realpath -qs a.txt"), allow("realpath -P dir/../a.txt"), allow("realpath -e inlink/a.txt"),
	allow("realpath --relative-to=dir a.txt"), allow("realpath -m missing/x"), deny("realpath --relative-to=/ a.txt", rules.PathOutsideRoot), deny("realpath escape", rules.PathOutsideRoot),
	// xxd
	allow("xxd a.txt"), allow("xxd -l 64 a.txt"), allow("xxd -l64 a.txt"), allow("xxd -c 8 -g 1 a.txt"), allow("xxd -ps a.txt"),
	allow("xxd -s 0x10 a.txt"), allow("xxd -s -16 a.txt"), allow("xxd -len 16 a.txt"), allow("xxd -cols 4 a.txt"),
	allow("xxd -r a.txt"), allow("xxd -r a.txt out.bin"), deny("xxd -pr a.txt", rules.UnknownFlag), deny("xxd -r a.txt .git/x", rules.ProtectedPath),
	deny("xxd -rp a.txt", rules.UnknownFlag), allow("xxd -revert a.txt"), deny("xxd -ar a.txt", rules.UnknownFlag),
	allow("xxd a.txt out.txt"), deny("xxd a.txt b.txt c.txt", rules.TooManyPaths), deny("xxd /etc/passwd", rules.PathOutsideRoot), deny("xxd -l x a.txt", rules.FlagValue),
	deny("xxd -R", rules.FlagValue), deny("xxd -s -r a.txt", rules.FlagValue),
	denyArg("xxd -al 5 .git/config", rules.UnknownFlag, "-al"), deny("xxd -pl 5 a.txt", rules.UnknownFlag), deny("xxd -il 5 a.txt", rules.UnknownFlag),
	deny("xxd -ac 5 a.txt", rules.UnknownFlag), deny("xxd -autoskipx a.txt", rules.UnknownFlag), denyArg("xxd -rfoo a.txt", rules.UnknownFlag, "-rfoo"),
	denyArg("xxd a.txt -p", rules.Spec, "-p"), deny("xxd -l 5 a.txt -ps", rules.Spec), deny("xxd -lx a.txt", rules.FlagValue),
	allow("xxd -a -l 5 a.txt"), allow("xxd -c8 -g1 a.txt"), allow("xxd -- a.txt"), allow("xxd -ps -c 16 a.txt"), allow("xxd -i a.txt"),
	// mkdir, touch
	allow("mkdir newdir"), allow("mkdir -p a/b/c"), allow("mkdir -m 755 x"), allow("mkdir dir/sub/new"), allow("mkdir inlink/new"),
	deny("mkdir /tmp/x", rules.PathOutsideRoot), deny("mkdir .git/x", rules.ProtectedPath), deny("mkdir -p .clada/x", rules.ProtectedPath),
	deny("mkdir .GIT/hooks", rules.ProtectedPath), deny("mkdir dir/sub/.git", rules.ProtectedPath), deny("mkdir escape/x", rules.PathOutsideRoot),
	deny("mkdir .git", rules.ProtectedPath), deny("mkdir .clada", rules.ProtectedPath), deny("mkdir -Z d", rules.UnknownFlag),
	allow("touch a.txt"), allow("touch new.txt dir/new.txt"), allow("touch -r b.txt a.txt"), allow("touch -d 2020-01-01 a.txt"),
	allow("touch dir/../c.txt"),
	deny("touch .clada/commands.toml", rules.ProtectedPath), deny("touch .git/hooks/pre-commit", rules.ProtectedPath),
	deny("touch gitlink/config", rules.ProtectedPath), deny("touch hooklink", rules.ProtectedPath), deny("touch dangling", rules.PathOutsideRoot),
	deny("touch -r /etc/passwd a.txt", rules.PathOutsideRoot), deny("touch outlink/new", rules.PathOutsideRoot), deny("touch dir/up/proj2/x", rules.PathOutsideRoot),
	deny("touch ./.git/../.git/config", rules.ProtectedPath), deny("touch dir/../.clada/x", rules.ProtectedPath),
	// cp
	allow("cp a.txt b.txt"), allow("cp a.txt dir"), allow("cp -r src dir2"), allow("cp -a src newdir"), allow("cp a.txt b.txt dir"),
	allow("cp -t dir a.txt b.txt"), allow("cp --target-directory=dir a.txt"), allow("cp .git/config x.txt"), allow("cp -rv src x"),
	allow("cp -- a.txt c.txt"),
	deny("cp a.txt /tmp/x", rules.PathOutsideRoot), deny("cp /etc/passwd a.txt", rules.PathOutsideRoot), deny("cp a.txt .git/config", rules.ProtectedPath),
	deny("cp a.txt .clada/", rules.ProtectedPath), deny("cp a.txt .clada", rules.ProtectedPath), deny("cp -t .git a.txt", rules.ProtectedPath),
	deny("cp -t.git a.txt", rules.ProtectedPath), deny("cp --target-directory=.git/hooks a.txt", rules.ProtectedPath),
	deny("cp --target-directory .git/hooks a.txt", rules.ProtectedPath), deny("cp a.txt ../x", rules.PathOutsideRoot),
	ask("cp -L a.txt x"), deny("cp -rL dir x", rules.ProtectedPath), deny("cp a.txt escape/", rules.PathOutsideRoot),
	deny("cp a.txt gitlink/hooks/pre-commit", rules.ProtectedPath), deny("cp a.txt hooklink", rules.ProtectedPath),
	ask("cp --dereference a.txt x"), deny("cp --deref dir x", rules.UnknownFlag),
	denyArg("cp -l .clada/commands.toml p", rules.UnknownFlag, "-l"), deny("cp --link a.txt p", rules.UnknownFlag), deny("cp -al dir x", rules.UnknownFlag),
	denyArg("cp a.txt hardlink", rules.ProtectedPath, "hardlink"), deny("touch hardlink", rules.ProtectedPath), deny("rm hardlink", rules.ProtectedPath),
	deny("cp a.txt dir2/../hardlink", rules.ProtectedPath), allow("cat hardlink"), allow("cp hardlink c.txt"),
	deny("cp -s /abs/.git/config dst/src/config", rules.UnknownFlag), deny("cp --symbolic-link a.txt x", rules.UnknownFlag),
	// cp --parents writes DEST/SRC: tree/dir/link is a symlink to .git/config.
	deny("cp --parents dir/link tree", rules.ProtectedPath), denyArg("cp --parents -t tree dir/link", rules.ProtectedPath, "dir/link"),
	allow("cp --parents src/a.txt dir2"), allow("cp --parents -t dir2 src/sub/b.txt"),
	deny("cp --parents a.txt uplink", rules.PathOutsideRoot), deny("cp -r --parents src tree/dir/link/..", rules.ProtectedPath),
	deny("cp -rs dir x", rules.UnknownFlag),
	denyArg("cp -r dir tree", rules.ProtectedPath, "tree/dir"), deny("cp -a dir tree", rules.ProtectedPath), deny("cp -R dir tree", rules.ProtectedPath),
	deny("cp --recursive dir tree", rules.ProtectedPath), deny("cp --archive dir tree", rules.ProtectedPath), deny("cp dir tree -r", rules.ProtectedPath),
	deny("cp -rT dir tree/dir", rules.ProtectedPath), deny("cp -rT dir tree", rules.ProtectedPath), deny("cp -r -t tree dir", rules.ProtectedPath),
	deny("cp --target-directory=tree -a dir", rules.ProtectedPath), deny("cp -r a.txt dir tree", rules.ProtectedPath), deny("cp -r dir/ tree/", rules.ProtectedPath),
	deny("cp -T dir tree/dir", rules.ProtectedPath),
	allow("cp -r src newdir"), allow("cp -rT src dir2"), allow("cp dir/a.txt tree"),
	allow("cp -r dir/a.txt tree"), allow("cp -r src tree/dir/ok.txt.d"), allow("cp -r src/ newdir"), allow("cp -r src dir/a.txt newdir"),
	// a recursive copy copies its source's symlinks as they are: dir/up -> ../.. copied one level up points out of the project
	denyArg("cp -r dir newdir", rules.ProtectedPath, "dir"), denyArg("cp -r tree x", rules.ProtectedPath, "tree"), denyArg("cp -a src dir x", rules.ProtectedPath, "dir"),
	denyArg("cp -r inlink newdir", rules.ProtectedPath, "inlink"), denyArg("cp -r inlink/ newdir", rules.ProtectedPath, "inlink/"),
	denyArg("cp -r -t dir2 src tree", rules.ProtectedPath, "tree"), denyArg("cp -rT tree/dir newdir", rules.ProtectedPath, "tree/dir"),
	denyArg("cp -r gitlink newdir", rules.ProtectedPath, "gitlink"), deny("cp --archive dir dir2", rules.ProtectedPath), deny("cp dir/.. x -R", rules.ProtectedPath),
	allow("cp inlink x"), allow("cp -T inlink x"),
	// backup suffixes name files clada does not check (cp -b -S it x sub/.g makes sub/.git)
	denyArg("cp -b -S it a.txt dir/.g", rules.UnknownFlag, "-S"), deny("cp --suffix=it a.txt b.txt", rules.UnknownFlag),
	deny("cp --suffix it a.txt b.txt", rules.UnknownFlag), denyArg("cp -bSit a.txt b.txt", rules.UnknownFlag, "-bSit"),
	allow("cp -b a.txt b.txt"), allow("cp --backup=numbered a.txt b.txt"),
	// mv
	allow("mv a.txt b.txt"), allow("mv a.txt dir"), allow("mv -t dir a.txt"), allow("mv -n a.txt dir/"), allow("mv a.txt b.txt dir"),
	deny("mv a.txt /tmp/x", rules.PathOutsideRoot), deny("mv .git/config x", rules.ProtectedPath), deny("mv x .git/hooks/pre-commit", rules.ProtectedPath),
	deny("mv .clada/commands.toml x", rules.ProtectedPath), deny("mv -t .git a.txt", rules.ProtectedPath), deny("mv a.txt gitlink/x", rules.ProtectedPath),
	deny("mv a.txt ../x", rules.PathOutsideRoot), deny("mv escape/x a.txt", rules.PathOutsideRoot), deny("mv .git x", rules.ProtectedPath),
	deny("mv -T dir tree/dir", rules.ProtectedPath), deny("mv --no-target-directory dir2 tree", rules.ProtectedPath), allow("mv -T dir2 emptydir"),
	allow("mv dir tree"),
	denyArg("mv -T -b -S lada b.txt .c", rules.UnknownFlag, "-S"), deny("mv --suffix=lada a.txt b.txt", rules.UnknownFlag),
	deny("mv -bS lada a.txt b.txt", rules.UnknownFlag), deny("mv --backup --suffix lada a.txt b.txt", rules.UnknownFlag),
	allow("mv -b a.txt b.txt"), allow("mv --backup=simple a.txt b.txt"),
	// rm
	allow("rm a.txt"), allow("rm a.txt b.txt"), allow("rm -v a.txt"), allow("rm -d emptydir"), allow("rm -- -x"), allow("rm -iv a.txt"),
	allow("rm --dir emptydir"), allow("rm dir/a.txt"),
	allow("rm -r dir"), allow("rm -rf dir"), allow("rm -fr dir"), allow("rm -f a.txt"), allow("rm -vf a.txt"), allow("rm --force a.txt"),
	allow("rm --recursive dir"), allow("rm -R dir"), allow("rm a.txt -rf"), allow("rm -Rf dir"),
	deny("rm --rec dir", rules.UnknownFlag), deny("rm --force=1 a.txt", rules.FlagValue),
	deny("rm /etc/passwd", rules.PathOutsideRoot), deny("rm .git/config", rules.ProtectedPath), deny("rm .clada/commands.toml", rules.ProtectedPath),
	deny("rm ../x", rules.PathOutsideRoot), deny("rm escape/passwd", rules.PathOutsideRoot), deny("rm .Git/index", rules.ProtectedPath),
	deny("rm -rf .git", rules.ProtectedPath), deny("rm -r .clada", rules.ProtectedPath), deny("rm -r escape/", rules.PathOutsideRoot),
	deny("rm gitlink/index", rules.ProtectedPath), deny("rm --no-preserve-root x", rules.UnknownFlag),
	// echo, printf, which, basename, dirname
	allow("echo hello"), allow("echo /etc/passwd"), allow("echo ~"), allow("echo -n hi"), deny("echo -x", rules.UnknownFlag),
	allow("printf %s\\n hello"), allow("printf -- -x"), deny("printf -v x hi", rules.UnknownFlag),
	allow("which -a ls"), allow("which --all ls"), allow("uname --help"), allow("cat --version"), deny("uname --help x", rules.UnknownFlag), allow("basename ~/x"), allow("dirname /etc/passwd"), deny("dirname -x a", rules.UnknownFlag),
	// date
	allow("date"), allow("date +%Y-%m-%d"), allow("date -u"), allow("date -Iseconds"), allow("date --iso-8601=seconds"),
	allow("date -d yesterday +%F"), allow("date -r a.txt"), allow("date -uR"), allow("date --iso-8601"),
	deny("date -s 2020-01-01", rules.UnknownFlag), deny("date --set=2020-01-01", rules.UnknownFlag), deny("date --set 2020-01-01", rules.UnknownFlag),
	deny("date -us x", rules.UnknownFlag), deny("date 010112002020", rules.Spec), deny("date +%F extra", rules.TooManyPaths),
	deny("date -r /etc/passwd", rules.PathOutsideRoot), deny("date --se=x", rules.UnknownFlag),
	// a TZ= in a date string opens that file as a time zone (a FIFO hangs date)
	denyArg(`date -d 'TZ="/tmp/fifo" 2020-01-01'`, rules.FlagValue, "-d"), deny(`date --date='tz="/etc/passwd" now'`, rules.FlagValue),
	deny("date --date TZ=UTC", rules.FlagValue), deny("date -ud Tz=x", rules.FlagValue), deny("date -dTZ=x", rules.FlagValue),
	deny(`date -d 'now TZ="x"'`, rules.FlagValue), allow("date -d '2020-01-01 12:00 +02:00'"), allow("date -d tomorrow -u"),
	allow("date --date=@0"), deny("date -f dates.txt", rules.UnknownFlag), deny("date --file=list.txt", rules.UnknownFlag), deny("date -f /etc/x", rules.UnknownFlag),
	denyArg(`touch -d 'TZ="/tmp/fifo" 2020-01-01' a.txt`, rules.FlagValue, "-d"), deny("touch --date=tz=x a.txt", rules.FlagValue),
	deny("touch -cdTZ=UTC a.txt", rules.FlagValue), allow("touch --date=yesterday a.txt"), allow("touch -t 202001010000 a.txt"),
	// du, df
	allow("du -sh dir"), allow("du -h -d 1"), deny("du /", rules.PathOutsideRoot), deny("du -sL dir", rules.UnknownFlag),
	allow("df -h ."), allow("df --output=source,size"), deny("df --sync", rules.UnknownFlag), deny("df /", rules.PathOutsideRoot),
	// sort, uniq
	allow("sort a.txt"), allow("sort -rn a.txt b.txt"), allow("sort -k 2 -t , a.txt"), allow("sort -k2,2n a.txt"), allow("sort -t: -k3 a.txt"),
	allow("sort -S 10M a.txt"), allow("sort --key=1 a.txt"), allow("sort -u a.txt"),
	allow("sort -o out.txt a.txt"), allow("sort -ro out.txt a.txt"), allow("sort -uo out a.txt"), deny("sort -o /tmp/x a.txt", rules.PathOutsideRoot),
	allow("sort --output=out a.txt"), allow("sort --output out a.txt"), deny("sort --out=x a.txt", rules.UnknownFlag),
	deny("sort --compress-program=gzip a.txt", rules.UnknownFlag), deny("sort -T /tmp a.txt", rules.UnknownFlag), deny("sort /etc/passwd", rules.PathOutsideRoot),
	deny("sort --random-source=/dev/urandom a.txt", rules.PathOutsideRoot), deny("sort -O x a.txt", rules.UnknownFlag), allow("sort a.txt -o b.txt"), deny("sort a.txt -o .git/b", rules.ProtectedPath),
	allow("uniq -c a.txt"), allow("uniq -s2 a.txt"), deny("uniq a.txt out.txt", rules.TooManyPaths), deny("uniq -f x a.txt", rules.FlagValue),
	// in a subdirectory
	{in: "cat a.txt", dir: "dir", want: Allow, rule: rules.Spec},
	{in: "cat ../a.txt", dir: "dir", want: Allow, rule: rules.Spec},
	{in: "cat ../../x", dir: "dir", want: Deny, rule: rules.PathOutsideRoot},
	{in: "touch ../.git/x", dir: "dir/sub", want: Deny, rule: rules.ProtectedPath},
	{in: "touch ../../.git/x", dir: "dir/sub", want: Deny, rule: rules.ProtectedPath},
	// wrappers are asked, unknown programs and paths are not specs
	{in: "env ls", want: Ask, rule: rules.Wrapper}, {in: "xargs rm", want: Ask, rule: rules.Wrapper},
	{in: "sh -c ls", want: Ask, rule: rules.Wrapper}, {in: "bash script.sh", want: Ask, rule: rules.Wrapper},
	{in: "python3 -c print(1)", want: Ask, rule: rules.Wrapper}, {in: "timeout 5 ls", want: Ask, rule: rules.Wrapper},
	{in: "taskset 1 ls", want: Ask, rule: rules.Wrapper}, {in: "chrt -f 10 ls", want: Ask, rule: rules.Wrapper},
	{in: "setpriv --nnp ls", want: Ask, rule: rules.Wrapper}, {in: "script -c ls log", want: Ask, rule: rules.Wrapper},
	{in: "flock f -c ls", want: Ask, rule: rules.Wrapper},
	{in: "./ls", want: NoSpec}, {in: "/bin/cat a.txt", want: NoSpec}, {in: "npm test", want: Ask, rule: rules.SpecAsk}, {in: "npx eslint", want: Ask, rule: rules.SpecAsk}, {in: "CAT a.txt", want: NoSpec},
	{in: "python3 script.py", want: Ask, rule: rules.SpecAsk}, {in: "ruby script.rb", want: NoSpec},
}

// sideEffectCases are options and spellings that reach what a spec
// forbids by another way (issue 16 §1, §5), under the GNU dialect.
var sideEffectCases = []checkCase{
	denyArg("tail +1f a.txt", rules.Spec, "+1f"), denyArg("tail +5 a.txt", rules.Spec, "+5"), denyArg("tail a.txt +1f", rules.Spec, "+1f"),
	allow("tail ./+1f"), allow("tail -n +1 a.txt"),
	denyArg("which /etc/passwd", rules.PathOutsideRoot, "/etc/passwd"), denyArg("which ../x", rules.PathOutsideRoot, "../x"),
	deny("which escape/passwd", rules.PathOutsideRoot), allow("which ls"), allow("which ./a.txt"), allow("which dir/x"),
	denyArg("diff -l a.txt b.txt", rules.UnknownFlag, "-l"), denyArg("diff --paginate a.txt b.txt", rules.UnknownFlag, "--paginate"),
	denyArg("diff -ul a.txt b.txt", rules.UnknownFlag, "-ul"),
	denyArg("file -p a.txt", rules.UnknownFlag, "-p"), denyArg("file --preserve-date .git/config", rules.UnknownFlag, "--preserve-date"),
	denyArg("file -bp a.txt", rules.UnknownFlag, "-bp"),
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
	denyArg("touch a.txt -t /outside/x", rules.OptionAfterOperand, "-t"),
	denyArg("stat a.txt -c /etc/passwd", rules.OptionAfterOperand, "-c"),
	denyArg("ls . --hide /etc", rules.OptionAfterOperand, "--hide"),
	denyArg("rm a.txt -rf", rules.OptionAfterOperand, "-rf"), denyArg("cat a.txt -- b.txt", rules.OptionAfterOperand, "--"),
	denyArg("grep foo a.txt --exclude-from=/etc/x", rules.OptionAfterOperand, "--exclude-from=/etc/x"),
	denyArg("head a.txt -5", rules.OptionAfterOperand, "-5"), denyArg("cp a.txt b.txt -R", rules.OptionAfterOperand, "-R"),
	allow("touch -t 202001010000 a.txt"), allow("rm -rf dir"), allow("rm -- -x"), allow("cat -"), allow("cat a.txt - b.txt"),
	allow("grep -rn TODO ."), allow("grep -e foo a.txt"), allow("head -5 a.txt"),
	// ls: -I, -T and -w take no value on macOS, so the next word is an
	// operand; GNU long options do not exist there.
	denyArg("ls -I /etc", rules.PathOutsideRoot, "/etc"), denyArg("ls -T /etc", rules.PathOutsideRoot, "/etc"),
	deny("ls -w ../x", rules.PathOutsideRoot), allow("ls -I dir"), allow("ls -la dir"), allow("ls --color=auto"),
	denyArg("ls --hide=x", rules.UnknownFlag, "--hide=x"), deny("ls --all", rules.UnknownFlag), allow("ls -D %F -l"),
	// stat: -f and -t take a format on macOS, a format that GNU stat
	// would read as a file: checked as a path.
	allow("stat -f %z a.txt"), allow("stat -x a.txt"), denyArg("stat -f /etc/passwd a.txt", rules.PathOutsideRoot, "/etc/passwd"),
	denyArg("stat -c %s a.txt", rules.UnknownFlag, "-c"), deny("stat --format=%n a.txt", rules.UnknownFlag),
	// cp and mv have no -t, -T, -u, -b on macOS.
	denyArg("cp -t dir a.txt", rules.UnknownFlag, "-t"), denyArg("mv -T a.txt b.txt", rules.UnknownFlag, "-T"), allow("cp -R src dir2"),
	// date: -d sets the kernel's DST on old macOS; -r names a file or seconds.
	denyArg("date -d yesterday", rules.UnknownFlag, "-d"), deny("date -r /etc/passwd", rules.PathOutsideRoot), allow("date -r a.txt"),
	allow("date -u +%F"), denyArg("date +%F -u", rules.OptionAfterOperand, "-u"),
	// Portable programs parse alike everywhere; find has its own parser.
	allow("rg foo dir -i"), allow("xxd -l 16 a.txt"), allow("find . -name x"), deny("find /etc", rules.PathOutsideRoot),
	// Programs reviewed against their FreeBSD sources (issue 16).
	denyArg("head --lines=3 a.txt", rules.UnknownFlag, "--lines=3"), denyArg("tail -s 1 a.txt", rules.UnknownFlag, "-s"),
	allow("tail -n 5 a.txt"), denyArg("uniq -w 3 a.txt", rules.UnknownFlag, "-w"), deny("which --all ls", rules.UnknownFlag),
	denyArg("echo -e a", rules.UnknownFlag, "-e"), allow("echo -n hi"), deny("diff -E a.txt b.txt", rules.UnknownFlag),
	allow("sort -o out.txt a.txt"), denyArg("sort a.txt -o /tmp/x", rules.OptionAfterOperand, "-o"),
	deny("sort --compress-program=gzip a.txt", rules.UnknownFlag),
	// bsdtar: -W NAME=VALUE spells any long option, -H follows symlinks,
	// -I is a file list, @ARCHIVE copies another archive's members.
	denyArg("tar -cf out.tar -W use-compress-program=/tmp/x", rules.UnknownFlag, "-W"),
	denyArg("tar cfW out.tar use-compress-program=/tmp/x", rules.UnknownFlag, "-W"),
	denyArg("tar -cH -f out.tar a.txt", rules.UnknownFlag, "-cH"), denyArg("tar -I list.txt -cf out.tar", rules.UnknownFlag, "-I"),
	denyArg("tar -cf out.tar @/etc/x.tar", rules.Spec, "@/etc/x.tar"), allow("tar -cf out.tar ./@x"),
	allow("tar czf out.tar.gz a.txt b.txt"), denyArg("tar -rf out.tar -A other.tar", rules.UnknownFlag, "-A"),
	// BWK awk ignores options it does not know: awk --file=x PROG runs PROG.
	denyArg("awk --file=prog.awk {print} a.txt", rules.UnknownFlag, "--file=prog.awk"), deny("awk -e {print} a.txt", rules.UnknownFlag),
	// BSD sed: -l takes no value (the next word is checked as a path).
	deny("sed -l 5 /etc/passwd", rules.PathOutsideRoot), deny("sed -i '' ../x a.txt", rules.PathOutsideRoot),
	deny("sed --in-place s/a/b/ a.txt", rules.UnknownFlag), denyArg("sed s/a/b/ a.txt -i", rules.OptionAfterOperand, "-i"),
	// chmod, ln, cut, nl: no long options there; chmod has no -c, ln no -t or -r.
	deny("chmod --reference=a.txt b.txt", rules.UnknownFlag), denyArg("chmod -c 644 a.txt", rules.UnknownFlag, "-c"),
	denyArg("ln -sr a.txt dir/link", rules.UnknownFlag, "-sr"), deny("cut --fields=1 a.txt", rules.UnknownFlag), deny("nl --body-numbering=a a.txt", rules.UnknownFlag),
	// jq, gawk and less are the same programs everywhere (portable).
	allow("jq . data.json -r"),
	// GNU's traps stay closed.
	deny("tail +1f a.txt", rules.Spec), deny("which /etc/passwd", rules.PathOutsideRoot), deny("diff -l a.txt b.txt", rules.UnknownFlag),
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
				Rule    rules.Rule
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
		if v.Outcome != tt.want || (tt.want == Deny && (v.Rule != rules.PathOutsideRoot || v.Arg != "..")) {
			t.Errorf("Check(%q) in dir/ = %v (%s %q: %s), want %v", tt.cmd, v.Outcome, v.Rule, v.Arg, v.Reason, tt.want)
		}
	}
}
