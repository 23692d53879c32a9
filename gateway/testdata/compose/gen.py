#!/usr/bin/env python3
"""Writes cases.txt: compositions of the forms clada runs itself, for
TestComposeDifferential. Run it again after changing the lists."""
import itertools

producers = [
    "cat a.txt", "cat b.txt", "cat words.txt", "cat nums.txt", "cat data.csv",
    "cat missing.txt", "cat a.txt b.txt", "ls", "ls sub", "ls -a sub", "echo hello world",
    "printf 'x\\ny\\n'", "seq 5", "grep a a.txt", "grep -n e b.txt", "grep zzz a.txt",
    "sort words.txt", "head -2 b.txt", "tail -1 a.txt", "wc -l a.txt",
]
filters = [
    "wc -l", "head -1", "tail -2", "sort", "sort -r", "uniq -c", "grep a", "grep -v e",
    "tr a-z A-Z", "cut -c1-3", "sed -n 1p", "cat", "nl", "rev", "wc -c",
]
lists = [
    ("true", "echo yes"), ("false", "echo no"), ("cat a.txt", "cat b.txt"),
    ("cat missing.txt", "echo after"), ("grep zzz a.txt", "echo found"), ("ls sub", "ls empty"),
    ("mkdir -p out", "ls out"), ("echo x", "false"),
]
cases = []
for p, f in itertools.product(producers, filters[:9]):
    cases.append(f"{p} | {f}")
for p in producers[:12]:
    cases.append(f"{p} 2>&1 | wc -l")
    cases.append(f"{p} 2>/dev/null | head -3")
    cases.append(f"{p} |& tail -1")
for a, b in lists:
    for op in ["&&", "||", ";"]:
        cases.append(f"{a} {op} {b}")
    cases.append(f"{a} && {b} || echo fallback")
    cases.append(f"{a} || {b} && echo end")
    cases.append(f"{a}\n{b}")
cases += [
    "cd sub && ls", "cd sub && cat a.txt b.txt", "cd sub/deep && cat x.txt", "cd sub; ls; cd deep; ls",
    "cd sub && cd deep && cat x.txt", "cd sub && cd .. && ls", "cd sub && ls *.txt", "cd sub && grep -n sub *.txt",
    "cd empty && ls -a", "cd sub && echo hi > new.txt && cat new.txt",
    "sort words.txt > sorted.txt && cat sorted.txt", "echo x > out.txt", "echo x >> a.txt && cat a.txt",
    "cat missing.txt 2> err.txt; cat err.txt", "cat a.txt missing.txt &> both.txt; cat both.txt",
    "cat a.txt missing.txt > out.txt 2>&1; cat out.txt", "cat a.txt missing.txt 2>&1 > out.txt; cat out.txt",
    "wc -l < a.txt", "sort < words.txt | uniq -c", "tr a-z A-Z < b.txt > up.txt && cat up.txt",
    "echo err >&2", "echo err 1>&2 | wc -c", "echo out; echo err >&2", "cat missing.txt 2>/dev/null || echo fallback",
    "ls build 2>/dev/null || echo \"no build yet\"", "cat a.txt >/dev/null && echo quiet", "cat a.txt &>/dev/null; echo $?x".replace("$?x", "done"),
    "mkdir -p out/x && echo hi > out/x/f.txt && cat out/x/f.txt", "touch t1 t2 && ls t*", "cp a.txt c.txt && cat c.txt",
    "mv b.txt z.txt && ls", "rm a.txt && ls", "echo {a,b,c}", "echo x{1,2}y", "mkdir -p d/{p,q} && ls d",
    "touch f{1,2,3}.txt && ls f*.txt", "echo pre{a,b{c,d}}post", "echo '{a,b}'", "echo \\{a,b\\}",
    "ls *.txt", "cat sub/*.txt", "wc -l *.txt", "echo nomatch*.zzz", "ls ?.txt", "echo [ab].txt", "echo [!a].txt",
    "ls sub/*/x.txt", "echo .h*", "echo *", "echo sub/*", "cat 'a.txt' \"b.txt\"", "echo 'a | b' \"c && d\" 'e > f'",
    "echo it\\'s", "echo \"it's\"", "echo a\\ b | wc -c", "echo \\| \\&", "echo 'x*' \"*\"", "ls # list",
    "echo one # and a comment\necho two", "FOO=bar printenv FOO", "LC_ALL=C sort words.txt", "A=1 B=2 printenv A B",
    "X='a b' printenv X | wc -c", "cat <<'EOF'\nline one\nline two\nEOF", "cat <<'EOF' | grep two\nline one\nline two\nEOF",
    "cat <<EOF\nplain text\nEOF", "cat <<\"END\"\n$HOME is literal\nEND", "cat <<\\EOF\n`x` too\nEOF",
    "cat <<-EOF\n\tindented\n\t\tdouble\nEOF", "wc -l <<'EOF'\na\nb\nc\nEOF", "cat <<< 'a here string'", "cat <<< word | tr a-z A-Z",
    "grep b <<< 'abc'", "echo \"$(cat <<'EOF'\nmessage line\n\nbody\nEOF\n)\"", "printf '%s\\n' \"$(cat <<'EOF'\nx\ny\n\n\nEOF\n)\" | wc -l",
    "seq 100000 | head -3", "seq 100000 | grep 99 | tail -1", "seq 20 | sort -n -r | head -2", "cat nums.txt | sort -n | tail -1",
    "cut -d, -f1 data.csv | tail -2", "paste a.txt b.txt", "comm words.txt words.txt | wc -l", "od -c a.txt | head -1",
    "basename sub/a.txt", "dirname sub/a.txt", "tee copy.txt < a.txt | wc -l; cat copy.txt", "echo a | tee t.txt > /dev/null; cat t.txt",
    "grep -c a a.txt b.txt", "head -1 a.txt b.txt", "sed -n 2p b.txt", "sed -e s/a/A/g a.txt", "sed -n '/ee/p' b.txt | wc -l",
    "printf '%s-%s\\n' a b c", "echo -n x | wc -c", "true | false", "false | true", "cat missing.txt | true; echo next",
    "ls empty | wc -l", "ls missing 2>&1 | head -1", "ls missing; echo status", "grep -q alpha a.txt && echo has",
    "grep -q zeta a.txt || echo lacks", "cat a.txt | grep -q beta && echo yes || echo no",
    "cat a.txt\ncat b.txt\necho end", "cd sub\nls\ncat a.txt", "echo a; echo b; echo c", "echo a && echo b && echo c",
    "false || false || echo third", "true && false && echo never; echo after",
]
out = "\n#---\n".join(cases) + "\n"
open("cases.txt", "w").write(out)
print(len(cases))
