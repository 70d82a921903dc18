#!/usr/bin/env bash
# The `cargo` that `npm run build` hands `napi build` (as $CARGO). `napi build` always passes
# `--target <triple>`, and cargo keeps what it builds for an explicit target apart, under
# target/<triple>/: a workspace already built by `cargo build --release` was built again
# (about 125 crates). For this machine's own triple the flag changes nothing but that
# directory, so this drops it: the addon is built into the workspace's target/release/ with
# the dependencies already there, and copied to where `napi build` picks it up.
set -euo pipefail
cargo=${TOOLGATE_CARGO:-cargo}
host=$("$cargo" -vV | sed -n 's/^host: //p')
args=()
triple=""
target_dir=""
profile=debug
while (($#)); do
  case $1 in
    --target)
      if [[ ${2-} == "$host" ]]; then
        triple=$2
        shift 2
        continue
      fi
      ;;
    --target-dir) target_dir=${2-} ;;
    --release) profile=release ;;
    --profile) profile=${2-} ;;
  esac
  args+=("$1")
  shift
done
"$cargo" "${args[@]}"
if [[ -n $triple && ${args[0]-} == build ]]; then
  if [[ -z $target_dir ]]; then
    target_dir=$("$cargo" metadata --format-version 1 --no-deps \
      | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).target_directory))')
  fi
  mkdir -p "$target_dir/$triple/$profile"
  cp -f "$target_dir/$profile/libtoolgate_node.so" "$target_dir/$triple/$profile/libtoolgate_node.so"
fi
