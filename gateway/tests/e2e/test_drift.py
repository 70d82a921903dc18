"""`catalog --from` and `check --against` against the real mcp-server-git."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, Gateway


def toolgate_bin() -> Path:
    explicit = os.environ.get("TOOLGATE_BIN")
    path = Path(explicit) if explicit else ROOT / "target" / "release" / "toolgate"
    if not path.exists():
        pytest.fail(f"no toolgate binary at {path}: run `cargo build --release -p toolgate`")
    return path


def test_catalog_from_prints_typed_arguments_that_toolgate_check_accepts(gateway: Gateway):
    config = gateway.dir / "gateway.toml"
    r = gateway.run_cli("catalog", "--from", str(config))
    assert r.returncode == 0, r.stderr
    catalog = r.stdout
    # mcp-server-git's schemas, typed: required arguments first.
    assert "tool git_log(repo_path: string, end_timestamp?, max_count?: integer, start_timestamp?)" in catalog, catalog
    assert "tool git_add(files: array<string>, repo_path: string)" in catalog, catalog
    assert "tool git_status(repo_path: string)" in catalog, catalog
    assert "  # " in catalog  # descriptions as comments

    policy = gateway.dir / "catalog.policy"
    policy.write_text(catalog + "\nagent reviewer {\n  allow git.git_log\n}\n")
    checked = subprocess.run([str(toolgate_bin()), "check", str(policy)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # And the printed catalog has no drift from the upstream it was printed from.
    drift = gateway.run_cli("check", "--against", str(config), str(policy))
    assert drift.returncode == 0, drift.stderr
    assert "0 errors, 0 warnings" in drift.stderr


def test_check_against_warns_on_a_declared_type_the_upstream_disagrees_with(gateway: Gateway):
    config = gateway.dir / "gateway.toml"
    text = gateway.policy.read_text().replace(
        "tool git_log(repo_path, max_count?,", "tool git_log(repo_path: path, max_count?: string,", 1
    )
    assert "max_count?: string" in text
    policy = gateway.dir / "typed.policy"
    policy.write_text(text)
    r = gateway.run_cli("check", "--against", str(config), str(policy))
    assert r.returncode == 1, r.stderr
    assert "drift_argument_type" in r.stderr
    assert "`git.git_log` declares `max_count: string`" in r.stderr
    assert "the upstream type is `integer`" in r.stderr
    assert "0 errors, 1 warnings" in r.stderr
