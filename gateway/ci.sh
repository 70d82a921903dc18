#!/usr/bin/env bash
# CI for toolgate-gateway: release build, Rust tests (unit + key-leak property test), the
# end-to-end tests (PyPI `mcp` client -> gateway -> PyPI `mcp-server-git` over stdio, loopback
# only) and a small bounded load check (no errors, no memory growth).
# Called from the repo root by .ci/run with VENV naming a Python 3.11 virtualenv.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VENV:?set VENV to a Python 3.11 virtualenv}"

# The toolgate CLI too: tests/cli_agrees.rs compares the decision API with it.
cargo build --release -p toolgate -p toolgate-gateway
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r gateway/tests/requirements.txt

# Release tests reuse the release build's dependencies (and argon2 runs at full speed).
cargo test --release -p toolgate-gateway

# mcp-server-git is found next to the virtualenv's python.
PATH="$VENV/bin:$PATH" "$VENV/bin/python" -m pytest gateway/tests/e2e -q -p no:cacheprovider

target/release/toolgate-gateway-load --calls 2000 --check
