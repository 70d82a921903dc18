#!/usr/bin/env bash
# CI for the Node package: install the pinned npm dependencies, build the addon from source
# (release, into the workspace's shared target/), run node's test runner and tsc, and clippy.
# Called from the repository root after `cargo build --release` of the root package, which
# also builds the `toolgate` CLI the parity tests compare against.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
npm run build
npm test
cargo clippy -p toolgate-node --all-targets -- -D warnings
