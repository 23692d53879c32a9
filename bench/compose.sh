#!/usr/bin/env bash
# bench/compose.sh: a composition through `clada exec --line` against the
# same command line in bash (issue: composition without a shell).
#
#   bash bench/compose.sh          # RUNS=40 by default
#
# Two lines, each timed as a whole process, median of RUNS runs:
#   pipe: cat big.txt | grep X | head -5   (a 10,000-line file)
#   list: ten `true`-like parts joined by && (echo N, printed to /dev/null by the caller)
# clada decides every part and starts each process itself, confined by the
# sandbox; bash forks them. The ratio is what the gate costs per line.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
RUNS=${RUNS:-40}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clada-compose.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CGO_ENABLED=0 go build -tags urfave_cli_no_docs -o "$WORK/clada" ./cmd/clada
mkdir -p "$WORK/p" && cd "$WORK/p" && git init -q
for i in $(seq 10000); do echo "line $i of the file"; done > big.txt
echo "line X marks the spot" >> big.txt
pipe='cat big.txt | grep X | head -5'
list='echo 1 && echo 2 && echo 3 && echo 4 && echo 5 && echo 6 && echo 7 && echo 8 && echo 9 && echo 10'
now() { if [ -n "${EPOCHREALTIME:-}" ]; then echo "${EPOCHREALTIME/./}"; else echo $(( $(date +%s%N) / 1000 )); fi; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() { # name, command...
  local name=$1; shift
  local t
  for _ in $(seq "$RUNS"); do
    t=$(now); "$@" >/dev/null 2>&1; echo $(( $(now) - t ))
  done | median
}
for what in pipe list; do
  line=${!what}
  c=$(measure clada "$WORK/clada" exec --line "$line")
  b=$(measure bash bash -c "$line")
  awk -v w="$what" -v c="$c" -v b="$b" 'BEGIN {printf "%-5s clada exec %7.2f ms   bash %6.2f ms   ratio %.1fx\n", w, c/1000, b/1000, c/b}'
done
