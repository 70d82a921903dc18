#!/usr/bin/env bash
# CI for the Node package: install the pinned npm dependencies, build the addon from source
# (release, into the workspace's shared target/), run the addon's own Rust tests (the in-place
# request reader against the CLI's parser), then node's test runner and tsc.
# Called from the repository root after `cargo build --release` of the root package, which
# also builds the `toolgate` CLI the parity tests compare against.
set -euo pipefail
cd "$(dirname "$0")"
# --omit=optional: the Claude Agent SDK's optional platform package is its 400 MB CLI binary,
# which neither the build nor the tests run (its types are in the main package).
npm ci --omit=optional --no-audit --no-fund
npm run build
cargo test --release -p toolgate-node --lib
npm test
# fmt and clippy for every crate of the workspace run once, in .ci/run.
