#!/usr/bin/env bash
# Instructions per decide call from JS, counted by valgrind: node runs N1 and then N2 calls of
# each case, and the difference of the two totals is divided by N2 - N1, so start-up cancels
# out. Node runs with `--single-threaded`: V8 then optimizes on the main thread, at the same
# call every time, instead of on compiler threads that valgrind schedules as the machine's
# load allows (which moved the count by up to 25 % between runs); N1 is well past that point,
# so the figure is the optimized steady state (about 1-2 % apart between runs). Cases: `bad`
# (a request that is not an object: reading and the bad_request answer), `allow` (one tool,
# one glob argument, the allow rule fires). Needs valgrind and a built addon (`npm run build`).
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
// In a function, so the loop itself is optimized too (a top-level loop stays in the
// interpreter and adds its own few hundred instructions to every call).
function run(n) { for (let i = 0; i < n; i++) f() }
run(Number(process.argv[2]))
'
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded -e "$script" "$1" "$2" 2>&1 \
    | awk '/Collected/ {print $4}'
}
for c in "${@:-bad allow}"; do
  for one in $c; do
    a=$(count "$one" $N1)
    b=$(count "$one" $N2)
    echo "$one: $(( (b - a) / (N2 - N1) )) instructions per decide"
  done
done
