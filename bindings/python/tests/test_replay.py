"""Every `test` block of policies/ replayed through the Python API, with the outcomes
`toolgate test` expects."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import toolgate
from conftest import POLICIES

POLICY_FILES = sorted(POLICIES.glob("*.policy"))


def replay(engine: toolgate.Engine) -> int:
    cases = engine.test_cases()
    for case in cases:
        d = engine.decide(case["agent"], case["tool"], case["args"], server=case["server"],
                          permissions=case["needs"])
        where = f'{case["location"]} ({case["block"]})'
        assert d.decision == case["expect"], where
        if case["reason"] is not None:
            assert d.reason == case["reason"], where
        # The dict form of the request decides alike.
        request = {"agent": case["agent"], "tool": case["tool"], "args": case["args"],
                   "server": case["server"], "permissions": case["needs"]}
        assert engine.decide_request(request) == d, where
    return len(cases)


@pytest.mark.parametrize("path", POLICY_FILES, ids=lambda p: p.name)
def test_each_policy_file(path: Path):
    assert replay(toolgate.Engine.load(path)) > 0


def test_the_folder_as_the_cli_tests_it(cli: Path, tmp_path: Path):
    out = subprocess.run([str(cli), "test", str(POLICIES)], capture_output=True, text=True,
                         timeout=120)
    m = re.search(r"^(\d+) passed, (\d+) failed", out.stdout + out.stderr, re.M)
    assert m, out.stdout + out.stderr
    replayed = replay(toolgate.Engine.load(POLICIES))
    assert replayed == int(m.group(1)) and m.group(2) == "0"
    # A bundle carries the expectations too.
    bundle = tmp_path / "p.bundle"
    subprocess.run([str(cli), "compile", str(POLICIES), "-o", str(bundle)], check=True,
                   capture_output=True, timeout=120)
    assert replay(toolgate.Engine.load(bundle)) == replayed
