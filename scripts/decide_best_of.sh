#!/usr/bin/env bash
# Runs `cargo bench --bench decide` (the decide cells) R times and prints, per layout, N and
# outcome, the lowest of the R criterion medians. On a shared machine a burst of load from
# elsewhere shifts a whole cell; the lowest median of several runs is the least disturbed.
# Usage: scripts/decide_best_of.sh [R]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$runs"); do
  cargo bench --quiet --bench decide -- 'decide/' --warm-up-time 1 --measurement-time 3 >/dev/null 2>&1
  for f in target/criterion/decide_*/*/*/new/estimates.json; do
    cell=$(echo "$f" | cut -d/ -f3-5 | sed 's/^decide_//')
    python3 -c "import json,sys; print(sys.argv[1], json.load(open(sys.argv[2]))['median']['point_estimate'])" "$cell" "$f" >> "$out/medians"
  done
done
python3 - "$out/medians" "$runs" <<'PY'
import sys, collections
best = collections.defaultdict(lambda: float("inf"))
for line in open(sys.argv[1]):
    cell, ns = line.split()
    best[cell] = min(best[cell], float(ns))
sizes = ["10", "100", "1000", "10000"]
print(f"Lowest median of {sys.argv[2]} runs, ns per decision:")
print()
print("| layout | outcome | N=10 | N=100 | N=1,000 | N=10,000 | N=10,000 / N=10 |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for layout in ["wide", "deep"]:
    for outcome in ["allow", "deny", "nomatch"]:
        row = [best[f"{layout}/{outcome}/{n}"] for n in sizes]
        print(f"| {layout} | {outcome} | " + " | ".join(f"{v:.0f}" for v in row) + f" | {row[3] / row[0]:.2f} |")
PY
