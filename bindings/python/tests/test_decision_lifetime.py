"""A decision borrows its texts from the engine that made it: it must keep that engine alive."""

from __future__ import annotations

import gc

import toolgate
from conftest import EXAMPLE


def test_decisions_outlive_their_engine():
    engine = toolgate.Engine.load(EXAMPLE)
    policy_hash = engine.policy_hash
    requests = [
        {"agent": "code-assistant", "server": "git", "tool": "git_push", "args": {"repo_path": "/x"}},
        {"agent": "code-assistant", "tool": "Bash", "args": {"command": "sudo ls"}, "tool_use_id": "toolu_9"},
        {"agent": "nobody", "tool": "Bash"},
        {"agent": "code-assistant", "tool": "Bash", "args": {"command": b"ls"}},
    ]
    decisions = [engine.decide_request(r) for r in requests]
    decisions.append(engine.decide_json('{"agent": "code-assistant", "tool": "Bash", "args": {"command": "ls"}}'))
    expected = [d.to_dict() for d in decisions]
    rules = [d.rule for d in decisions]
    del engine
    gc.collect()
    # Garbage made after the engine is gone, to reuse any memory a dangling borrow would read.
    junk = [toolgate.Engine.from_source("agent z {}", "z.policy").policy_hash * 3 for _ in range(50)]
    assert junk
    assert [d.to_dict() for d in decisions] == expected
    assert all(d.policy_hash == policy_hash for d in decisions)
    assert [d.rule for d in decisions] == rules
    assert any(r is not None for r in rules)
    assert decisions[1].message == expected[1]["message"] and decisions[1].tool_use_id == "toolu_9"
    assert decisions[3].reason == "bad_request"
