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

# host_reader: every hostile request line, and plain requests.
mkdir -p corpus/host_reader corpus/catalog_import corpus/gateway_framing
i=0
while IFS= read -r line || [[ -n $line ]]; do
  printf '%s' "$line" > "corpus/host_reader/hostile-$i"
  i=$((i + 1))
done < "$root"/tests/adversarial/hostile.jsonl
printf '%s' '{"tool_use_id":"toolu_1","agent":"code-assistant","tool":"git_log","server":"git","args":{"repo_path":"/home/user/projects/x","max":5,"opts":[true,null,{"a":"b"}]}}' > corpus/host_reader/plain-1
printf '%s' '{"agent":"code-assistant","tool":"Bash","args":{"command":"npm run test","timeout":600}}' > corpus/host_reader/plain-2
printf '%s' '{"agent":"a","tool":"t","permissions":["fs:read","net:http"],"args":{}}' > corpus/host_reader/plain-3

# catalog_import: a server name, a newline, a tools/list result (odd names, types, a tool twice).
printf 'git\n%s' '{"tools":[{"name":"git_log","description":"Shows the log\nline two","inputSchema":{"type":"object","properties":{"repo_path":{"type":"string"},"max_count":{"type":"integer"},"files":{"type":"array","items":{"type":"string"}},"any":{}},"required":["repo_path"]}},{"name":"git.status","inputSchema":{"type":"object","properties":{"has space":{"type":"boolean"},"1st":{"type":["string","null"]}}}},{"name":"git_log","inputSchema":{"type":"object"}},{"name":"","inputSchema":{"type":"object"}}]}' > corpus/catalog_import/seed-1
printf 'my.server\n%s' '{"tools":[{"name":"héllo_wörld","inputSchema":{"type":"object","properties":{"o":{"type":"object"},"n":{"type":"number"},"nested":{"type":"array","items":{"type":"array","items":{"type":"boolean"}}}},"required":["o","missing"]}}],"nextCursor":"x"}' > corpus/catalog_import/seed-2

# gateway_framing: JSON-RPC bodies as MCP clients send them, and the shapes it refuses.
printf '%s' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"git.echo","arguments":{"x":1}}}' > corpus/gateway_framing/call
printf '%s' '{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":3}}' > corpus/gateway_framing/badname
printf '%s' '{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}' > corpus/gateway_framing/init
printf '%s' '[{"jsonrpc":"2.0","id":1,"method":"ping"}]' > corpus/gateway_framing/batch
printf '%s' '{"jsonrpc":"2.0","method":"notifications/initialized"}' > corpus/gateway_framing/note
printf '%s' '{"jsonrpc":"2.0","id":3,"result":{}}' > corpus/gateway_framing/response
echo "seeded: $(ls corpus/host_reader | wc -l) host_reader, $(ls corpus/catalog_import | wc -l) catalog_import, $(ls corpus/gateway_framing | wc -l) gateway_framing"
