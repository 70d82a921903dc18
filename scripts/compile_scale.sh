#!/usr/bin/env bash
# Compiling from source at scale: `toolgate eval` on an empty input (the policy compiled and
# loaded, no decision) for 100,000 one-rule agents (a folder of files: one file may hold at
# most 8 MiB) and for 100 short unanchored regexes with Unicode classes on one argument held
# by 1 and by 5 agents; then `toolgate compile` of the regex policies for the bundle size.
# Prints the median of R runs of wall time, CPU time and peak RSS (GNU time's -v report).
# Usage: scripts/compile_scale.sh [R]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
cargo build --release --quiet --bin toolgate --example generate_policy
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen=target/release/examples/generate_policy
mkdir "$tmp/agents"
$gen agents 100000 > "$tmp/all.policy"
head -3 "$tmp/all.policy" > "$tmp/agents/0-catalog.policy"
# 25,000 agents (4 lines each) per file.
tail -n +4 "$tmp/all.policy" | split -l 100000 -d --additional-suffix=.policy - "$tmp/agents/part-"
$gen regex 100 1 > "$tmp/regex1.policy"
$gen regex 100 5 > "$tmp/regex5.policy"
: > "$tmp/empty.jsonl"

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

measure() {
  local input=$1 wall="" cpu="" rss=""
  for _ in $(seq "$runs"); do
    /usr/bin/time -v target/release/toolgate eval "$input" --request - < "$tmp/empty.jsonl" \
      > /dev/null 2> "$tmp/time.txt"
    wall+=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$tmp/time.txt")$'\n'
    cpu+=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' "$tmp/time.txt")$'\n'
    rss+=$(awk -F': ' '/Maximum resident set size/ { print $2 / 1024 }' "$tmp/time.txt")$'\n'
  done
  printf '| %s | %s | %s | %.0f |\n' "$2" \
    "$(printf '%s' "$wall" | median)" "$(printf '%s' "$cpu" | median)" "$(printf '%s' "$rss" | median)"
}

printf '| policy (eval from source, empty input) | wall (s) | CPU (s) | peak RSS (MiB) |\n'
printf '| --- | --- | --- | --- |\n'
measure "$tmp/agents" "100,000 one-rule agents"
measure "$tmp/regex1.policy" "100 Unicode-class regexes, 1 agent"
measure "$tmp/regex5.policy" "the same 100 regexes, 5 agents"
for k in 1 5; do
  target/release/toolgate compile "$tmp/regex$k.policy" -o "$tmp/regex$k.bundle" > /dev/null
  printf 'bundle of the regex policy, %s agent(s): %s bytes\n' "$k" "$(wc -c < "$tmp/regex$k.bundle")"
done
