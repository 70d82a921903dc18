#!/usr/bin/env bash
# Instructions per decide call from JS, counted by valgrind (deterministic, unlike wall time
# on a shared machine): node runs N1 and then N2 calls of each case, and the difference of the
# two totals is divided by N2 - N1, so start-up cancels out. Under valgrind, V8 finishes
# optimizing `decide` and the text writer only after a few thousand calls (its compiler
# threads get little time), so N1 is well past that and the figure is the optimized steady
# state (N1=2000 N2=12000 in the environment gives the window used before, which counted
# part of the warm-up). Cases: `bad` (a request that is not an object: reading and the
# bad_request answer), `allow` (one tool, one glob argument, the allow rule fires). Needs
# valgrind and a built addon (`npm run build`).
#   ./instructions.sh [bad] [allow]
set -euo pipefail
cd "$(dirname "$0")"
N1=${N1:-10000}
N2=${N2:-30000}
script='
const { Engine } = require("./toolgate.js")
const e = Engine.fromSource("tool t0(path, command?) needs fs:read\nagent bench {\n  grant fs:*\n  allow t0 where path matches \"/data/team5/**/*.csv\"\n  deny t0 where command contains any [\"rm -rf\", \"mkfs\", \"sudo \"]\n}\n", "x.policy")
const req = { agent: "bench", tool: "t0", args: { path: "/data/team5/q3/report.csv" } }
const cases = { bad: () => e.decide(5), allow: () => e.decide(req) }
const f = cases[process.argv[1]]
if (!f) throw new Error("unknown case " + process.argv[1])
for (let i = 0, n = Number(process.argv[2]); i < n; i++) f()
'
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null node -e "$script" "$1" "$2" 2>&1 \
    | awk '/Collected/ {print $4}'
}
for c in "${@:-bad allow}"; do
  for one in $c; do
    a=$(count "$one" $N1)
    b=$(count "$one" $N2)
    echo "$one: $(( (b - a) / (N2 - N1) )) instructions per decide"
  done
done
