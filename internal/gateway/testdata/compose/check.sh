#!/usr/bin/env bash
# Checks the corpus of TestComposeDifferential with bash alone: every
# record of cases.txt parses (bash -n), and running it twice with
# `bash -c`, each time in a fresh copy of the fixture (fixture.sh), gives
# the same stdout, stderr, exit status and files. A case that does not
# is nondeterministic, and the differential test could not trust it.
#
# Usage: bash check.sh [-v] [CASES]
#   -v     also print every case with its outcome
#   CASES  defaults to cases.txt next to this script
#
# Records are split as the Go test splits them: on a line `#---`, each
# trimmed of leading and trailing newlines, empty ones dropped.
set -u
verbose=0
if [ "${1:-}" = -v ]; then
	verbose=1
	shift
fi
here=$(cd "$(dirname "$0")" && pwd)
cases=${1:-$here/cases.txt}
export LC_ALL=C LANG=C

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/fixture" "$work/cases"
bash "$here/fixture.sh" "$work/fixture" || { echo "fixture.sh failed" >&2; exit 1; }

# One file per record: case.1, case.2, ... without a final newline.
awk -v dir="$work/cases" '
function flush(   i, first, last, f, s) {
	first = 1; last = nl
	while (first <= last && lines[first] == "") first++
	while (last >= first && lines[last] == "") last--
	if (first <= last) {
		n++
		f = dir "/case." n
		s = lines[first]
		for (i = first + 1; i <= last; i++) s = s "\n" lines[i]
		printf "%s", s > f
		close(f)
	}
	nl = 0
}
$0 == "#---" { flush(); next }
{ lines[++nl] = $0 }
END { flush() }
' "$cases"

count=$(ls "$work/cases" | wc -l)
bad=0

# outcome DIR BODY: runs BODY with bash -c in a fresh copy of the fixture
# under DIR and prints what it left.
outcome() {
	local d=$1 body=$2 rc
	mkdir -p "$d"
	cp -a "$work/fixture" "$d/p"
	(cd "$d/p" && timeout 20 bash -c "$body" >"$d/out" 2>"$d/err" </dev/null)
	rc=$?
	printf 'exit %d\nstdout:\n' "$rc"
	cat "$d/out"
	printf '\nstderr:\n'
	cat "$d/err"
	printf '\nfiles:\n'
	(cd "$d/p" && {
		find . -mindepth 1 -type d -printf '%p/\n'
		find . -mindepth 1 ! -type d -print0 | xargs -0 -r sha256sum | sed 's/^\([0-9a-f]*\)  \(.*\)$/\2 \1/'
	} | LC_ALL=C sort)
	rm -rf "$d"
}

# check I: writes $work/res.I, empty when case I is fine.
check() {
	local i=$1 body err one two
	body=$(cat "$work/cases/case.$i"; printf x)
	body=${body%x}
	{
		case $body in
		'#'*)
			echo "case $i starts with #, which the record format forbids:"
			printf '%s\n\n' "$body"
			return
			;;
		esac
		if ! err=$(bash -n -c "$body" 2>&1) || [ -n "$err" ]; then
			echo "case $i does not parse with bash -n:"
			printf '%s\n%s\n\n' "$body" "$err"
			return
		fi
		one=$(outcome "$work/run1.$i" "$body")
		two=$(outcome "$work/run2.$i" "$body")
		if [ "$one" != "$two" ]; then
			echo "case $i is nondeterministic:"
			printf '%s\n' "$body"
			diff <(printf '%s\n' "$one") <(printf '%s\n' "$two") | sed 's/^/    /'
			echo
		fi
	} >"$work/res.$i"
	if [ "$verbose" = 1 ] && [ ! -s "$work/res.$i" ]; then
		printf '=== case %d\n%s\n--- outcome\n%s\n\n' "$i" "$body" "$one" >"$work/show.$i"
	fi
}

jobs=$(nproc 2>/dev/null || echo 4)
running=0
for i in $(seq 1 "$count"); do
	check "$i" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

for i in $(seq 1 "$count"); do
	if [ -s "$work/res.$i" ]; then
		cat "$work/res.$i"
		bad=$((bad + 1))
	elif [ "$verbose" = 1 ]; then
		cat "$work/show.$i"
	fi
done

echo "$count cases, $bad bad"
if [ "$count" -lt 330 ]; then
	echo "fewer than 330 cases"
	exit 1
fi
[ "$bad" = 0 ]
