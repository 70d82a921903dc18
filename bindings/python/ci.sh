#!/usr/bin/env bash
# CI for bindings/python: install the package from source into
# $VENV (pip builds the wheel with maturin), install the pinned test environment, and run
# pytest. Run from the repository root after `cargo build --release` (the CLI-comparison
# tests use target/release/toolgate).
set -euo pipefail
cd "$(dirname "$0")/../.."

: "${VENV:?set VENV to a Python 3.11 virtualenv}"
PY="$VENV/bin/python"

# fmt and clippy for every crate of the workspace run once, in .ci/run.

"$PY" -m pip install --quiet --disable-pip-version-check -r bindings/python/requirements-test.txt
"$PY" -m pip install --quiet --disable-pip-version-check ./bindings/python

# The README's Python examples and the package, type-checked with the SDKs installed.
"$PY" bindings/python/check_readme_types.py

export TOOLGATE_CLI="${TOOLGATE_CLI:-$PWD/target/release/toolgate}"
# Run from a folder outside the source tree, so the installed package is the one tested.
cd bindings/python/tests
"$PY" -m pytest -p no:cacheprovider -q .
