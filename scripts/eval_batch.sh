#!/usr/bin/env bash
# Times `toolgate eval` batch mode: K requests (one third each allow, deny, no match) against
# the generated wide and deep policies at N = 10 and N = 10,000, from the policy source and
# from a compiled bundle; the requests either each target a different rule (varied) or all
# the same one (same). Prints the best of R runs (wall seconds), with the policy's load (eval
# on an empty input) shown separately.
# Usage: scripts/eval_batch.sh [K] [R]
set -euo pipefail
cd "$(dirname "$0")/.."
k=${1:-100000}
runs=${2:-3}
cargo build --release --quiet --bin toolgate --example generate_policy --example generate_requests
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=scripts/best_time.sh
. scripts/best_time.sh
printf '| layout | N | input | load only (s) | %s varied (s) | per decision (µs) | %s same (s) | per decision (µs) |\n' "$k" "$k"
printf '| --- | --- | --- | --- | --- | --- | --- | --- |\n'
for layout in wide deep; do
  for n in 10 10000; do
    target/release/examples/generate_policy "$layout" "$n" > "$tmp/p.policy"
    target/release/toolgate compile "$tmp/p.policy" -o "$tmp/p.bundle" >/dev/null
    target/release/examples/generate_requests "$layout" "$n" "$k" varied > "$tmp/varied.jsonl"
    target/release/examples/generate_requests "$layout" "$n" "$k" same > "$tmp/same.jsonl"
    : > "$tmp/empty.jsonl"
    for input in p.policy p.bundle; do
      load=$(best 3 sh -c "target/release/toolgate eval '$tmp/$input' --request - < '$tmp/empty.jsonl'")
      row="| $layout | $n | $input | $load"
      for kind in varied same; do
        full=$(best 3 sh -c "target/release/toolgate eval '$tmp/$input' --request - < '$tmp/$kind.jsonl'")
        per=$(awk -v f="$full" -v l="$load" -v k="$k" 'BEGIN { printf "%.2f", (f - l) * 1000000 / k }')
        row="$row | $full | $per"
      done
      echo "$row |"
    done
  done
done
