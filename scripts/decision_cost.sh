#!/usr/bin/env bash
# Instructions per decision, counted by callgrind (deterministic on a shared machine), for the
# generated wide and deep policies at N = 10 and N = 10,000 and the three outcomes.
# Needs valgrind. Usage: scripts/decision_cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --example decision_cost --example generate_policy
tmp=$(mktemp -d)
k=20000
count() { # bundle layout outcome n k -> total instructions
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" target/release/examples/decision_cost "$@" >/dev/null 2>"$tmp/err"
  grep -E '^summary:|^totals:' "$tmp/cg" | head -1 | awk '{print $2}'
}
printf '| layout | N | outcome | instructions per decision |\n| --- | --- | --- | --- |\n'
for layout in wide deep; do
  for n in 10 10000; do
    target/release/examples/generate_policy "$layout" "$n" > "$tmp/p.policy"
    ./target/release/toolgate compile "$tmp/p.policy" -o "$tmp/p.bundle" >/dev/null
    for outcome in allow deny nomatch; do
      base=$(count "$tmp/p.bundle" "$layout" "$outcome" "$n" 0)
      full=$(count "$tmp/p.bundle" "$layout" "$outcome" "$n" "$k")
      printf '| %s | %s | %s | %s |\n' "$layout" "$n" "$outcome" $(( (full - base) / k ))
    done
  done
done
rm -rf "$tmp"
