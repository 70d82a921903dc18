"""Fixtures: a real git repository, the shipped example policy pointed at it, agents' keys, and a
running toolgate-gateway with the real mcp-server-git behind it over stdio (loopback only)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "gateway"
DEMO_PATH = "/tmp/toolgate-demo"


def gateway_bin() -> Path:
    explicit = os.environ.get("TOOLGATE_GATEWAY_BIN")
    path = Path(explicit) if explicit else ROOT / "target" / "release" / "toolgate-gateway"
    if not path.exists():
        pytest.fail(f"no gateway binary at {path}: run `cargo build --release -p toolgate-gateway`")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.email=e2e@toolgate.test", "-c", "user.name=e2e", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@dataclass
class Gateway:
    """A running gateway and everything a test needs to drive it."""

    dir: Path
    repo: Path
    url: str
    base: str
    keys: dict[str, str]
    key_ids: dict[str, str]
    policy: Path
    keys_file: Path
    stderr_path: Path
    decisions_path: Path
    proc: subprocess.Popen
    seen: int = field(default=0)

    def events(self, kind: str | None = None) -> list[dict]:
        out = []
        for line in self.stderr_path.read_text().splitlines():
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            if isinstance(ev, dict) and (kind is None or ev.get("event") == kind):
                out.append(ev)
        return out

    def wait_event(self, kind: str, after: int = 0, timeout: float = 30.0, **match) -> dict:
        """The first `kind` event past the first `after` ones of that kind that matches."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            evs = self.events(kind)[after:]
            for ev in evs:
                if all(ev.get(k) == v for k, v in match.items()):
                    return ev
            if self.proc.poll() is not None:
                raise AssertionError(f"gateway exited with {self.proc.returncode}: {self.stderr_path.read_text()}")
            time.sleep(0.05)
        raise AssertionError(f"no `{kind}` event {match} within {timeout}s: {self.stderr_path.read_text()}")

    def decisions(self) -> list[dict]:
        if not self.decisions_path.exists():
            return []
        return [json.loads(l) for l in self.decisions_path.read_text().splitlines() if l.strip()]

    def run_cli(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(gateway_bin()), *args], capture_output=True, text=True, timeout=60)


def write_policy(path: Path, repo: Path, extra: str = "") -> None:
    text = (EXAMPLE / "git.policy").read_text().replace(DEMO_PATH, str(repo))
    path.write_text(text + extra)


def start_gateway(tmp_path: Path, policy_text: str, agents: tuple[str, ...], config_tail: str, upstreams: tuple[str, ...]) -> Gateway:
    """Writes `policy_text`, adds a key per agent, and starts a gateway whose config ends with
    `config_tail` (limits, other_methods, `[upstream.*]` tables); waits for each upstream."""
    policy = tmp_path / "gateway.policy"
    policy.write_text(policy_text)
    keys_file = tmp_path / "keys.json"
    keys, key_ids = {}, {}
    for agent in agents:
        r = subprocess.run(
            [str(gateway_bin()), "keys", "add", agent, "--keys", str(keys_file)],
            check=True, capture_output=True, text=True,
        )
        keys[agent] = r.stdout.strip()
        key_ids[agent] = keys[agent][: len("tg_") + 8]
    port = free_port()
    config = tmp_path / "gateway.toml"
    config.write_text(
        f'policy = "gateway.policy"\nkeys = "keys.json"\nlisten = "127.0.0.1:{port}"\n{config_tail}'
        f'\n[log]\ndecisions = "decisions.log"\n'
    )
    stderr_path = tmp_path / "gateway.stderr"
    with open(stderr_path, "w") as err:
        proc = subprocess.Popen(
            [str(gateway_bin()), "gateway", "--config", str(config)],
            stdout=subprocess.DEVNULL, stderr=err, cwd=tmp_path,
        )
    gw = Gateway(
        dir=tmp_path, repo=tmp_path, url=f"http://127.0.0.1:{port}/mcp", base=f"http://127.0.0.1:{port}",
        keys=keys, key_ids=key_ids, policy=policy, keys_file=keys_file,
        stderr_path=stderr_path, decisions_path=tmp_path / "decisions.log", proc=proc,
    )
    try:
        gw.wait_event("listening")
        for name in upstreams:
            gw.wait_event("upstream_started", server=name, timeout=60)
    except BaseException:
        stop(proc)
        raise
    return gw


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def gateway(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "README").write_text("hello\n")
    git(repo, "add", "README")
    git(repo, "commit", "-q", "-m", "first commit from the e2e test")
    policy = tmp_path / "git.policy"
    write_policy(policy, repo)
    keys_file = tmp_path / "keys.json"
    keys, key_ids = {}, {}
    for agent in ("reviewer", "committer"):
        r = subprocess.run(
            [str(gateway_bin()), "keys", "add", agent, "--keys", str(keys_file)],
            check=True, capture_output=True, text=True,
        )
        keys[agent] = r.stdout.strip()
        key_ids[agent] = keys[agent][: len("tg_") + 8]
    port = free_port()
    config = tmp_path / "gateway.toml"
    server_git = Path(sys.executable).parent / "mcp-server-git"
    config.write_text(
        f'policy = "git.policy"\nkeys = "keys.json"\nlisten = "127.0.0.1:{port}"\n'
        f"[limits]\nmax_body_bytes = 65536\ncall_timeout_ms = 20000\n"
        f'[log]\ndecisions = "decisions.log"\n'
        f'[upstream.git]\ncommand = [{json.dumps(str(server_git))}, "--repository", {json.dumps(str(repo))}]\n'
    )
    stderr_path = tmp_path / "gateway.stderr"
    with open(stderr_path, "w") as err:
        proc = subprocess.Popen(
            [str(gateway_bin()), "gateway", "--config", str(config)],
            stdout=subprocess.DEVNULL, stderr=err, cwd=tmp_path,
        )
    gw = Gateway(
        dir=tmp_path, repo=repo, url=f"http://127.0.0.1:{port}/mcp", base=f"http://127.0.0.1:{port}",
        keys=keys, key_ids=key_ids, policy=policy, keys_file=keys_file,
        stderr_path=stderr_path, decisions_path=tmp_path / "decisions.log", proc=proc,
    )
    try:
        gw.wait_event("listening")
        gw.wait_event("upstream_started", server="git", timeout=60)
        yield gw
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
