#!/usr/bin/env bash
# The `shell` pattern kind (src/shell/): corpus, parser, pattern and property tests, the
# module's doc test, and one run of each benchmark in test mode (no timing).
# Called from the repository root; uses the workspace's default target dir.
set -euo pipefail
cd "$(dirname "$0")/../.."

export CARGO_TERM_COLOR=never
cargo test --test shell
cargo test --doc shell
cargo test --bench shell
