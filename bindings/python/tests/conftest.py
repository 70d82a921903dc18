"""Shared fixtures: the repository, the built CLI, and the bundled example policy."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import List

import pytest

import toolgate

REPO = Path(__file__).resolve().parents[3]
POLICIES = REPO / "policies"
EXAMPLE = POLICIES / "example.policy"


def cli_path() -> Path:
    """The toolgate CLI: `$TOOLGATE_CLI`, else the workspace's release build."""
    return Path(os.environ.get("TOOLGATE_CLI", REPO / "target" / "release" / "toolgate"))


@pytest.fixture(scope="session")
def cli() -> Path:
    path = cli_path()
    if not path.is_file():
        pytest.fail(f"the toolgate CLI is not built at `{path}` (cargo build --release, or set TOOLGATE_CLI)")
    return path


def cli_eval(cli: Path, policy: Path, lines: List[str], *extra: str) -> List[dict]:
    """Answers request lines through `toolgate eval POLICY --request -`."""
    out = subprocess.run(
        [str(cli), "eval", str(policy), "--request", "-", *extra],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    answers = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    assert len(answers) == len(lines), out.stderr
    return answers


@pytest.fixture(scope="session")
def example() -> toolgate.Engine:
    return toolgate.Engine.load(EXAMPLE)
