"""`str` values are read as their UTF-8 text: exactly, whatever their width, and a lone
surrogate anywhere is a `bad_request` decision that leaves no exception pending."""

from __future__ import annotations

import json

import pytest

import toolgate
from conftest import EXAMPLE


@pytest.fixture(scope="module")
def engine() -> toolgate.Engine:
    return toolgate.Engine.load(EXAMPLE)


@pytest.mark.parametrize("text", ["/srv/a", "/srv/é", "/srv/日本", "/srv/🦀", "", "x" * 10_000])
def test_strings_of_every_width_read_as_the_cli_reads_them(engine: toolgate.Engine, text: str):
    request = {"agent": "code-assistant", "tool": "Bash", "args": {"command": text, text: text}, "tool_use_id": text}
    got = engine.decide_request(request)
    assert got == engine.decide_json(json.dumps(request))
    assert got.tool_use_id == text
    assert engine.decide("code-assistant", "Bash", {"command": text}, tool_use_id=text) == engine.decide_json(
        json.dumps({"agent": "code-assistant", "tool": "Bash", "args": {"command": text}, "tool_use_id": text})
    )


@pytest.mark.parametrize(
    "request_",
    [
        {"agent": "code-assistant\udc80", "tool": "Bash"},
        {"agent": "code-assistant", "tool": "Bash", "args": {"p\ud800": "x"}},
        {"agent": "code-assistant", "tool": "Bash", "args": {"p": ["ok", "\ud800"]}},
        {"agent": "code-assistant", "tool": "Bash", "extra\udc80": 1},
        {"agent": "code-assistant", "tool": "Bash", "tool_use_id": "\ud800"},
    ],
)
def test_a_lone_surrogate_anywhere_is_a_bad_request(engine: toolgate.Engine, request_: dict):
    d = engine.decide_request(request_)
    assert (d.decision, d.reason) == ("deny", "bad_request")
    assert "lone surrogate" in d.message or "must be a string" in d.message
    # No exception was left pending: the next call and plain Python both work.
    assert engine.decide_request({"agent": "code-assistant", "tool": "Bash", "args": {"command": "ls"}}).reason
    assert int("7") == 7
