"""One engine shared by many threads gives the single-threaded answers."""

from __future__ import annotations

import threading
from typing import List

import toolgate
from conftest import EXAMPLE

REQUESTS = [
    ("code-assistant", "git_log", {"repo_path": "/home/user/projects/a"}, "git"),
    ("code-assistant", "git_log", {"repo_path": "/home/user/projects/../../etc"}, "git"),
    ("code-assistant", "git_push", {"repo_path": "/x"}, "git"),
    ("code-assistant", "Bash", {"command": "npm run build", "timeout": 30}, None),
    ("code-assistant", "Bash", {"command": "sudo rm"}, None),
    ("code-assistant", "query", {"sql": "SELECT 1", "db": "production"}, "database"),
    ("reviewer", "read_file", {"path": "/etc/hosts"}, None),
    ("shell-helper", "Bash", {"command": "ls"}, None),
    ("nobody", "read_file", {"path": "/x"}, None),
    ("code-assistant", "git_log", {"repo_path": float("nan")}, "git"),
]


def test_many_threads_one_engine_same_answers():
    engine = toolgate.Engine.load(EXAMPLE)
    expected = [engine.decide(a, t, args, server=s, tool_use_id=f"id{i}").to_dict()
                for i, (a, t, args, s) in enumerate(REQUESTS)]
    assert len({d["reason"] for d in expected}) >= 6  # the requests cover many outcomes
    rounds = 300
    errors: List[str] = []
    start = threading.Barrier(8)

    def worker(offset: int) -> None:
        start.wait()
        for r in range(rounds):
            i = (r + offset) % len(REQUESTS)
            a, t, args, s = REQUESTS[i]
            got = engine.decide(a, t, args, server=s, tool_use_id=f"id{i}").to_dict()
            if got != expected[i]:
                errors.append(f"thread {offset} round {r}: {got} != {expected[i]}")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads)
    assert errors == []
