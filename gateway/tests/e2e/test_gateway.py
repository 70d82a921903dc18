"""End to end: the PyPI `mcp` client -> toolgate-gateway -> the PyPI mcp-server-git over stdio."""

from __future__ import annotations

import os
import signal
import time

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from conftest import Gateway, write_policy

# "legacy" = the 2025-11-25 initialize handshake with Mcp-Session-Id; "2026-07-28" = sessionless.
MODES = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28"}

REVIEWER_TOOLS = {"git_status", "git_log"}
COMMITTER_TOOLS = {"git_status", "git_diff_staged", "git_add", "git_commit"}


def client(gw: Gateway, agent: str, mode: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {gw.keys[agent]}"}, timeout=30)
    return Client(streamable_http_client(gw.url, http_client=http), mode=mode)


def text(result) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.parametrize("mode", list(MODES))
async def test_each_agent_sees_only_its_tools_in_both_revisions(gateway: Gateway, mode: str):
    async with client(gateway, "reviewer", mode) as c:
        assert c.protocol_version == MODES[mode]
        names = {t.name for t in (await c.list_tools()).tools}
        assert names == REVIEWER_TOOLS
    async with client(gateway, "committer", mode) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        assert names == COMMITTER_TOOLS


@pytest.mark.parametrize("mode", list(MODES))
async def test_allowed_git_log_is_forwarded_and_logged(gateway: Gateway, mode: str):
    async with client(gateway, "reviewer", mode) as c:
        r = await c.call_tool("git_log", {"repo_path": str(gateway.repo), "max_count": 5})
    assert not r.is_error, text(r)
    assert "first commit from the e2e test" in text(r)
    line = gateway.decisions()[-1]
    assert line["agent"] == "reviewer" and line["key_id"] == gateway.key_ids["reviewer"]
    assert (line["server"], line["tool"], line["decision"]) == ("git", "git_log", "allow")
    assert line["reason"] == "allowed_by_rule" and line["rule"].startswith(f"allow git.git_log ({gateway.policy}:")
    assert len(line["policy_hash"]) == 64 and line["is_error"] is False
    assert line["decision_us"] > 0 and line["upstream_us"] > 0
    assert "args" not in line  # only with --log-args


@pytest.mark.parametrize("mode", list(MODES))
async def test_git_log_outside_the_allowed_tree_is_denied_with_the_policy_message(gateway: Gateway, mode: str):
    outside = [str(gateway.dir / "elsewhere"), f"{gateway.repo}/../../etc", "relative/path"]
    async with client(gateway, "reviewer", mode) as c:
        for path in outside:
            r = await c.call_tool("git_log", {"repo_path": path})
            assert r.is_error
            assert text(r) == "no rule of agent `reviewer` allows git.git_log"
        r = await c.call_tool("git_log", {"repo_path": str(gateway.repo), "max_count": 1000})
        assert r.is_error and text(r) == "no rule of agent `reviewer` allows git.git_log"
    denied = gateway.decisions()[-4:]
    assert all(l["decision"] == "deny" and l["reason"] == "no_matching_rule" for l in denied)
    assert all(l["upstream_us"] is None and l["is_error"] for l in denied)


@pytest.mark.parametrize("mode", list(MODES))
async def test_a_hidden_tool_is_an_unknown_tool(gateway: Gateway, mode: str):
    async with client(gateway, "reviewer", mode) as c:
        errors = []
        for name in ("git_commit", "git_show", "no_such_tool", "git.git_commit"):
            with pytest.raises(MCPError) as exc:
                await c.call_tool(name, {"repo_path": str(gateway.repo), "message": "x"})
            errors.append((exc.value.error.code, exc.value.error.message))
    assert errors == [(-32602, f"unknown tool: `{n}`") for n in ("git_commit", "git_show", "no_such_tool", "git.git_commit")]
    assert git_commits(gateway) == 1


def git_commits(gw: Gateway) -> int:
    import subprocess

    out = subprocess.run(["git", "-C", str(gw.repo), "rev-list", "--count", "HEAD"], capture_output=True, text=True)
    return int(out.stdout.strip())


def post(gw: Gateway, headers: dict, body: dict | None = None) -> httpx2.Response:
    body = body or {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    h = {"content-type": "application/json", "accept": "application/json, text/event-stream", **headers}
    return httpx2.post(gw.url, json=body, headers=h, timeout=10)


def test_missing_wrong_and_revoked_keys_get_401(gateway: Gateway):
    good = gateway.keys["reviewer"]
    wrong_secret = good[:-4] + ("0000" if not good.endswith("0000") else "1111")
    answers = [
        post(gateway, {}),
        post(gateway, {"authorization": f"Bearer {wrong_secret}"}),
        post(gateway, {"authorization": "Bearer tg_00000000_" + "0" * 64}),
        post(gateway, {"authorization": "Bearer not-a-key"}),
        post(gateway, {"authorization": f"Basic {good}"}),
    ]
    for r in answers:
        assert r.status_code == 401
        assert r.headers["www-authenticate"] == "Bearer"
    assert len({r.text for r in answers}) == 1  # the body says nothing about which case it was
    assert "reviewer" not in answers[0].text and "committer" not in answers[0].text

    ok = post(gateway, {"authorization": f"Bearer {good}"},
              {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "e2e", "version": "1"}}})
    assert ok.status_code == 200, ok.text

    reloads = len(gateway.events("reload"))
    r = gateway.run_cli("keys", "revoke", gateway.key_ids["reviewer"], "--keys", str(gateway.keys_file))
    assert r.returncode == 0, r.stderr
    gateway.wait_event("reload", after=reloads, what="keys", ok=True)
    revoked = post(gateway, {"authorization": f"Bearer {good}"})
    assert revoked.status_code == 401 and revoked.text == answers[0].text
    listed = gateway.run_cli("keys", "list", "--keys", str(gateway.keys_file)).stdout
    assert gateway.key_ids["reviewer"] in listed and "revoked" in listed and good not in listed


def test_foreign_origin_is_403_and_oversized_body_is_refused(gateway: Gateway):
    auth = {"authorization": f"Bearer {gateway.keys['reviewer']}"}
    assert post(gateway, {**auth, "origin": "https://evil.example"}).status_code == 403
    assert httpx2.get(f"{gateway.base}/healthz", headers={"origin": "https://evil.example"}).status_code == 403
    assert post(gateway, {**auth, "host": "evil.example"}).status_code == 403
    assert httpx2.get(f"{gateway.base}/healthz", headers={"host": "evil.example"}).status_code == 403
    huge = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "git_log", "arguments": {"repo_path": "x" * 100_000}}}
    assert post(gateway, auth, huge).status_code == 413


@pytest.mark.parametrize("mode", list(MODES))
async def test_hot_reload_changes_a_decision_mid_session(gateway: Gateway, mode: str):
    args = {"repo_path": str(gateway.repo), "max_count": 5}
    async with client(gateway, "reviewer", mode) as c:
        r = await c.call_tool("git_log", args)
        assert not r.is_error, text(r)
        before = gateway.decisions()[-1]["policy_hash"]
        reloads = len(gateway.events("reload"))
        policy = gateway.policy.read_text()
        assert "max_count <= 100" in policy
        gateway.policy.write_text(
            policy.replace("max_count <= 100", "max_count <= 2").replace(
                "allow git.git_status where", 'deny git.git_status because "frozen"\n  allow git.git_status where', 1
            )
        )
        gateway.wait_event("reload", after=reloads, what="policy", ok=True)
        r = await c.call_tool("git_log", args)
        assert r.is_error and text(r) == "no rule of agent `reviewer` allows git.git_log"
        assert gateway.decisions()[-1]["policy_hash"] != before
        # A tool the agent can no longer call leaves its list, in the same session.
        assert {t.name for t in (await c.list_tools()).tools} == {"git_log"}
        with pytest.raises(MCPError):
            await c.call_tool("git_status", {"repo_path": str(gateway.repo)})

        # A broken policy keeps the engine that was running, and says why.
        reloads = len(gateway.events("reload"))
        gateway.policy.write_text("agent {")
        failed = gateway.wait_event("reload", after=reloads, what="policy", ok=False)
        assert failed["error"] and failed["kept_policy_hash"] == gateway.decisions()[-1]["policy_hash"]
        r = await c.call_tool("git_log", {"repo_path": str(gateway.repo), "max_count": 1})
        assert not r.is_error, text(r)


async def test_sighup_reloads(gateway: Gateway):
    write_policy(gateway.policy, gateway.repo, "\n# touched\n")
    reloads = len(gateway.events("reload"))
    os.kill(gateway.proc.pid, signal.SIGHUP)
    ev = gateway.wait_event("reload", after=reloads, what="policy")
    assert ev["ok"] is True


@pytest.mark.parametrize("mode", list(MODES))
async def test_an_upstream_killed_mid_run_is_restarted(gateway: Gateway, mode: str):
    started = gateway.events("upstream_started")
    pid = started[-1]["pid"]
    async with client(gateway, "reviewer", mode) as c:
        r = await c.call_tool("git_status", {"repo_path": str(gateway.repo)})
        assert not r.is_error
        os.kill(pid, signal.SIGKILL)
        gateway.wait_event("upstream_stopped", pid=pid)
        r = await c.call_tool("git_status", {"repo_path": str(gateway.repo)})
        assert r.is_error and "server `git` is unavailable" in text(r)
        assert gateway.decisions()[-1]["gateway_error"] == "server_unavailable"
        new = gateway.wait_event("upstream_started", after=len(started))
        assert new["pid"] != pid
        deadline = time.monotonic() + 30
        while True:
            r = await c.call_tool("git_status", {"repo_path": str(gateway.repo)})
            if not r.is_error or time.monotonic() > deadline:
                break
        assert not r.is_error, text(r)
        assert gateway.proc.poll() is None


def modern_call(gw: Gateway, header_name: str, body_name: str) -> httpx2.Response:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": body_name, "arguments": {"repo_path": str(gw.repo)}, "_meta": meta}}
    return post(gw, {"authorization": f"Bearer {gw.keys['reviewer']}", "mcp-protocol-version": "2026-07-28",
                     "mcp-method": "tools/call", "mcp-name": header_name}, body)


def test_2026_headers_are_checked_against_the_body(gateway: Gateway):
    mismatch = modern_call(gateway, "git_log", "git_status")
    assert mismatch.status_code == 400
    assert mismatch.json()["error"]["code"] == -32020
    ok = modern_call(gateway, "git_status", "git_status")
    assert ok.status_code == 200 and "Repository status" in ok.text
    assert "mcp-session-id" not in {k.lower() for k in ok.headers}
