#!/usr/bin/env bash
# An application installs the package the two ways the README says, a local path install and
# a packed tarball, each with the Claude Agent SDK version package-lock.json pins and with the
# newest one in the registry, and compiles test/install/app.ts (the README's example, with
# `preToolUseHook`) with `tsc --strict`, then runs it. Each app lives in a folder of its own
# under target/node-install/, outside this package. Needs a built addon (`npm run build`).
set -euo pipefail
cd "$(dirname "$0")"
pkg=$PWD
root=$(cd ../.. && pwd)
work=${CARGO_TARGET_DIR:-$root/target}/node-install
rm -rf "$work"
mkdir -p "$work"
locked() { node -p "require('./package-lock.json').packages['node_modules/$1'].version"; }
sdk_locked=$(locked @anthropic-ai/claude-agent-sdk)
dev=("typescript@$(locked typescript)" "@types/node@$(locked @types/node)")
tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
for how in path tarball; do
  source=$pkg
  [[ $how == tarball ]] && source=$tarball
  for sdk in "$sdk_locked" latest; do
    app="$work/app-$how-sdk-$sdk"
    mkdir -p "$app"
    cp test/install/app.ts test/install/tsconfig.json "$app/"
    echo "== $how install, @anthropic-ai/claude-agent-sdk@$sdk"
    (
      cd "$app"
      echo '{"name": "toolgate-install-app", "private": true, "type": "module"}' >package.json
      npm install --omit=optional --no-audit --no-fund --loglevel=error \
        "$source" "@anthropic-ai/claude-agent-sdk@$sdk" "${dev[@]}"
      echo "SDK $(node -p "JSON.parse(require('fs').readFileSync('node_modules/@anthropic-ai/claude-agent-sdk/package.json', 'utf8')).version")"
      npx tsc --strict -p .
      out=$(node dist/app.js)
      echo "$out"
      want='{"decision":"allow","tool_use_id":"toolu_1","hook":"deny","can":"allow","start":"function"}'
      if [[ $out != "$want" ]]; then
        echo "expected $want" >&2
        exit 1
      fi
    )
  done
done
