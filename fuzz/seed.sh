#!/usr/bin/env bash
# Builds the fuzzers' seed corpora from the repository's policies and request fixtures.
# Usage: fuzz/seed.sh   (then: cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run TARGET ...)
set -euo pipefail
cd "$(dirname "$0")"
root=..
mkdir -p corpus/parse_check corpus/decide corpus/differential

policies=("$root"/policies/*.policy "$root"/policies/invalid/*.policy "$root"/tests/corpus/*.policy \
          "$root"/tests/adversarial/*.policy "$root"/tests/regressions/*.policy)

# parse_check: every policy file as is.
for f in "${policies[@]}"; do
  cp "$f" "corpus/parse_check/$(basename "$(dirname "$f")")-$(basename "$f")"
done

# decide: a flag byte (bit 0 = explain), then one request line.
i=0
while IFS= read -r line || [[ -n $line ]]; do
  printf '\x00%s' "$line" > "corpus/decide/hostile-$i"
  printf '\x01%s' "$line" > "corpus/decide/hostile-explain-$i"
  i=$((i + 1))
done < "$root"/tests/adversarial/hostile.jsonl

# differential: policy text, NUL, one request naming each agent and tool of the policy.
for f in "${policies[@]}"; do
  agents=$(grep -oE '^agent +("[^"]+"|[A-Za-z_][A-Za-z0-9_-]*)' "$f" | awk '{print $2}' | tr -d '"' | head -4 || true)
  tools=$(grep -oE 'tool +("[^"]+"|[A-Za-z_][A-Za-z0-9_-]*)' "$f" | awk '{print $2}' | tr -d '"' | head -4 || true)
  [[ -z $tools ]] && tools="t read_file"
  n=0
  for a in $agents; do
    for t in $tools; do
      for v in '"/etc/passwd"' '"/srv/../etc"' '["a", 1]' '{"cwd": "/tmp"}' 'null' '600'; do
        printf '%s\0{"agent":"%s","tool":"%s","args":{"p":%s,"path":%s,"command":%s,"repo_path":%s}}' \
          "$(cat "$f")" "$a" "$t" "$v" "$v" "$v" "$v" > "corpus/differential/$(basename "$f")-$n"
        n=$((n + 1))
      done
    done
  done
done
echo "seeded: $(ls corpus/parse_check | wc -l) parse_check, $(ls corpus/decide | wc -l) decide, $(ls corpus/differential | wc -l) differential"

# bundle_load: compiled bundles of the valid policies, whole and as bare payloads (the target
# seals a payload in a fresh envelope, so mutations reach the decoder past the checksum).
mkdir -p corpus/bundle_load
tmp=$(mktemp -d)
for f in "${policies[@]}"; do
  name=$(basename "$(dirname "$f")")-$(basename "$f" .policy)
  if cargo run --quiet --manifest-path "$root/Cargo.toml" -- compile "$f" -o "$tmp/$name.bundle" >/dev/null 2>&1; then
    cp "$tmp/$name.bundle" "corpus/bundle_load/$name.bundle"
    tail -c +57 "$tmp/$name.bundle" > "corpus/bundle_load/$name.payload"
  fi
done
rm -rf "$tmp"
echo "seeded: $(ls corpus/bundle_load | wc -l) bundle_load"
