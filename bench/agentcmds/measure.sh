#!/usr/bin/env bash
# measure.sh CLADA [commands.txt]: how `CLADA hook claude-code` decides the
# shell commands coding agents write.
#
# Builds the fixture project (fixture.sh) in a temporary directory, sends
# Claude Code's PreToolUse payload for every command of commands.txt (records
# separated by lines holding only `#---`; `{{ROOT}}` stands for the fixture's
# absolute path) to `CLADA hook claude-code` on stdin, with the fixture as the
# working directory and as CLAUDE_PROJECT_DIR, and classifies the answer:
#
#   allowed  permissionDecision "allow"
#   asked    permissionDecision "ask"
#   refused  permissionDecision "deny", or no decision at all (a non-zero
#            exit, such as exit 2 with the reason on stderr, or stdout that
#            is not the expected JSON); the TSV tells the two apart.
#
# Prints totals, shares and the most frequent rules; writes one line per
# command to $OUT (default /tmp/agentcmds-results.tsv):
#   n  class  decision  rule  command
# decision is allow/ask/deny, or exit=N / no-decision; the command is on one
# line, with \ newline tab CR written as \\ \n \t \r.
#
# Environment: OUT (TSV path), TOP (rules listed, default 10), TIMEOUT
# (seconds per hook call, default 30), KEEP=1 keeps the fixture.
# Needs bash, git and python3. Reads nothing from stdin.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: measure.sh CLADA [commands.txt]" >&2
	exit 2
fi
clada=$1
commands=${2:-$here/commands.txt}
case $clada in
*/*) clada=$(cd "$(dirname "$clada")" && pwd -P)/$(basename "$clada") ;;
*) clada=$(command -v "$clada") || { echo "measure.sh: $1 not found" >&2; exit 2; } ;;
esac
[ -x "$clada" ] || { echo "measure.sh: $clada is not executable" >&2; exit 2; }
[ -f "$commands" ] || { echo "measure.sh: $commands not found" >&2; exit 2; }
command -v python3 >/dev/null || { echo "measure.sh: python3 is needed" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/agentcmds.XXXXXX")
tmp=$(cd "$tmp" && pwd -P)
if [ "${KEEP:-}" = 1 ]; then
	echo "fixture kept in $tmp/project" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi
bash "$here/fixture.sh" "$tmp/project" </dev/null >/dev/null

cat >"$tmp/measure.py" <<'PY'
import collections, json, os, re, signal, subprocess, sys

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends quietly

clada, root, out = os.environ["CLADA"], os.environ["ROOT"], os.environ["OUT"]
top, timeout = int(os.environ["TOP"]), float(os.environ["TIMEOUT"])

# newline="": a command keeps its bytes, a CR too
with open(os.environ["COMMANDS"], encoding="utf-8", newline="") as f:
    text = f.read()
records, cur = [], []
for line in text.split("\n"):
    if line.rstrip("\r") == "#---":
        records.append("\n".join(cur))
        cur = []
    else:
        cur.append(line)
records.append("\n".join(cur))
# a record is its lines without the newlines around it; blank records are skipped
commands = [r.strip("\n") for r in records]
commands = [c.replace("{{ROOT}}", root) for c in commands if c.strip()]

env = dict(os.environ, CLAUDE_PROJECT_DIR=root)
for k in ("CLADA", "COMMANDS", "ROOT", "OUT", "TOP", "TIMEOUT"):
    env.pop(k, None)
rule_re = re.compile(r"\(rule ([^)\s]+)\)")

def one_line(s):
    return (s.replace("\\", "\\\\").replace("\n", "\\n")
             .replace("\t", "\\t").replace("\r", "\\r"))

def decide(command):
    payload = json.dumps({
        "session_id": "s", "transcript_path": "/tmp/t", "cwd": root,
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command, "description": "d"},
    }, ensure_ascii=False).encode("utf-8")
    try:
        p = subprocess.run([clada, "hook", "claude-code"], input=payload,
                           capture_output=True, cwd=root, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "refused", "no-decision", "timeout", ""
    stderr = p.stderr.decode("utf-8", "replace").strip()
    if p.returncode != 0:
        m = rule_re.search(stderr)
        return "refused", "exit=%d" % p.returncode, m.group(1) if m else "-", stderr
    try:
        o = json.loads(p.stdout)["hookSpecificOutput"]
        decision, reason = o["permissionDecision"], o.get("permissionDecisionReason", "")
    except (ValueError, KeyError, TypeError):
        return "refused", "no-decision", "-", p.stdout.decode("utf-8", "replace")
    m = rule_re.search(reason)
    rule = m.group(1) if m else "-"
    cls = {"allow": "allowed", "ask": "asked", "deny": "refused"}.get(decision)
    if cls is None:
        return "refused", "no-decision", rule, reason
    return cls, decision, rule, reason

results = []
for i, c in enumerate(commands, 1):
    results.append((i, c) + decide(c))

os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
with open(out, "w", encoding="utf-8") as f:
    f.write("n\tclass\tdecision\trule\tcommand\n")
    for i, c, cls, dec, rule, _ in results:
        f.write("%d\t%s\t%s\t%s\t%s\n" % (i, cls, dec, rule, one_line(c.replace(root, "{{ROOT}}"))))

n = len(results)
classes = collections.Counter(r[2] for r in results)
decisions = collections.Counter(r[3] for r in results)
pct = lambda k: 100.0 * k / n if n else 0.0
print("clada: %s" % clada)
print("commands: %d (%s)" % (n, os.environ["COMMANDS"]))
for cls in ("allowed", "asked", "refused"):
    print("  %-8s %4d  %5.1f%%" % (cls, classes[cls], pct(classes[cls])))
errors = classes["refused"] - decisions["deny"]
print("  (refused: %d deny, %d with no decision: non-zero exit or no JSON answer)" % (decisions["deny"], errors))
for cls in ("refused", "asked", "allowed"):
    rules = collections.Counter(r[4] for r in results if r[2] == cls)
    if not rules:
        continue
    print("top rules, %s:" % cls)
    for rule, k in rules.most_common(top):
        print("  %4d  %5.1f%% of %s  %s" % (k, 100.0 * k / classes[cls], cls, rule))
print("per-command results: %s" % out)
PY
CLADA=$clada COMMANDS=$commands ROOT=$tmp/project OUT=${OUT:-/tmp/agentcmds-results.tsv} \
	TOP=${TOP:-10} TIMEOUT=${TIMEOUT:-30} python3 "$tmp/measure.py" </dev/null
