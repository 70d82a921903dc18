#!/usr/bin/env bash
# Instructions per decision from Python, which the machine's load does not change:
# callgrind counts a run making CALLS calls and one making none, and the same two runs with a
# loop that calls nothing; the difference divided by CALLS is one call's cost (the Python
# loop's own cost and the interpreter's start-up cancel out). Not run in CI.
#
#   bindings/python/instructions.sh [req|dec] [wide|deep] [N] [allow|deny|nomatch] [CALLS]
#
# `req` times `engine.decide_request(dict)`, `dec` `engine.decide(agent, tool, args)`, on the
# policies and requests of bench.py. Uses `python` from PATH (or $PY) and valgrind.
set -euo pipefail
MODE="${1:-req}" LAYOUT="${2:-wide}" N="${3:-10}" OUTCOME="${4:-allow}" CALLS="${5:-5000}"
PY="${PY:-python}"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

LOOP='
import sys
sys.path.insert(0, sys.argv[1])
import bench, toolgate
mode, layout, n, outcome, calls = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
engine = toolgate.Engine.from_source(bench.wide(n) if layout == "wide" else bench.deep(n), "bench.policy")
args = {o: a for o, a, _ in bench.requests(layout, n)}[outcome]
tool = f"t{n // 2}" if layout == "wide" else "t0"
request = {"agent": "bench", "tool": tool, "args": args}
if mode == "req":
    f = lambda: engine.decide_request(request)
elif mode == "dec":
    f = lambda: engine.decide("bench", tool, args)
else:
    f = lambda: None
f()
for _ in range(calls):
    f()
'

count() {
  valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.out" \
    "$PY" -c "$LOOP" "$HERE" "$1" "$LAYOUT" "$N" "$OUTCOME" "$2" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
with=$(count "$MODE" "$CALLS"); without=$(count "$MODE" 0)
empty=$(count empty "$CALLS"); none=$(count empty 0)
echo "$MODE $LAYOUT N=$N $OUTCOME: $(( (with - without - (empty - none)) / CALLS )) instructions per call"
