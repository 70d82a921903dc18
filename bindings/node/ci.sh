#!/usr/bin/env bash
# CI for the Node package: install the pinned npm dependencies, build the addon from source
# (release, into the workspace's shared target/release/), run the addon's own Rust tests, then
# node's test runner and tsc, then install the package into app folders of their own (a path
# install and a tarball) and compile the README's example there with `tsc --strict`.
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
bash install-test.sh
# fmt and clippy for every crate of the workspace run once, in .ci/run.
