#!/usr/bin/env bash
# Times `toolgate eval` batch mode on one-rule-per-tool policies (the shapes of
# `benches/per_tool.rs`) at N = 10 and N = 10,000 tools: K allowed requests, each to a tool
# drawn at random, read from a compiled bundle. Prints the best of R runs (wall seconds), the
# policy's load alone (eval on an empty input), the time per decision with the load
# subtracted, and the ratio N=10,000 / N=10 per shape (the target is at most 1.5).
# Usage: scripts/per_tool_eval.sh [K] [R]; TOOLGATE=path times another build of the CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
k=${1:-20000}
runs=${2:-5}
tg=${TOOLGATE:-target/release/toolgate}
cargo build --release --quiet --bin toolgate --example generate_policy --example generate_requests
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=scripts/best_time.sh
. scripts/best_time.sh
printf '| shape | N | load only (s) | %s requests (s) | per decision (µs) | ratio |\n' "$k"
printf '| --- | ---: | ---: | ---: | ---: | ---: |\n'
: > "$tmp/empty.jsonl"
for shape in sibling_dirs rs_under_dir url_host npm_run; do
  first=""
  for n in 10 10000; do
    target/release/examples/generate_policy per_tool "$shape" "$n" > "$tmp/p.policy"
    "$tg" compile "$tmp/p.policy" -o "$tmp/p.bundle" >/dev/null 2>&1
    target/release/examples/generate_requests per_tool "$shape" "$n" "$k" > "$tmp/r.jsonl"
    load=$(best 4 sh -c "$tg eval '$tmp/p.bundle' --request - < '$tmp/empty.jsonl'")
    full=$(best 4 sh -c "$tg eval '$tmp/p.bundle' --request - < '$tmp/r.jsonl'")
    per=$(awk -v f="$full" -v l="$load" -v k="$k" 'BEGIN { printf "%.2f", (f - l) * 1000000 / k }')
    ratio=""
    if [ -z "$first" ]; then first=$per; else ratio=$(awk -v a="$per" -v b="$first" 'BEGIN { printf "%.2f", a / b }'); fi
    printf '| %s | %s | %s | %s | %s | %s |\n' "$shape" "$n" "$load" "$full" "$per" "$ratio"
  done
done
