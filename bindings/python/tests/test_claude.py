"""The Claude Agent SDK adapter, driven through the SDK's own control protocol (its Query
class answering `can_use_tool` and `hook_callback` requests over an in-memory Transport, the
SDK's documented extension point), so the SDK itself turns our results into wire answers."""

from __future__ import annotations

import json
from typing import Any, Dict, List

import anyio
import pytest

pytest.importorskip("claude_agent_sdk")

from claude_agent_sdk import (  # noqa: E402
    ClaudeAgentOptions,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)
from claude_agent_sdk._internal.query import Query  # noqa: E402
from claude_agent_sdk._internal.transport import Transport  # noqa: E402

import toolgate  # noqa: E402
import toolgate.claude  # noqa: E402

POLICY = """
server git {
  tool git_log(repo_path)  needs fs:read
  tool git_push(repo_path) needs net:http
}
tool Bash(command)         needs proc:exec
agent claude {
  grant fs:read, proc:exec
  allow git.git_log where repo_path matches "/repo/**"
  allow Bash        where command matches "npm run *"
}
"""


@pytest.fixture(scope="module")
def engine() -> toolgate.Engine:
    return toolgate.Engine.from_source(POLICY, filename="claude.policy")


class MemoryTransport(Transport):
    """A Transport whose other end is the test: it answers `initialize` and records every
    line the SDK writes."""

    def __init__(self) -> None:
        self.written: List[Dict[str, Any]] = []
        self.send, self.receive = anyio.create_memory_object_stream[Dict[str, Any]](100)
        self.answered = anyio.Event()

    async def connect(self) -> None:
        return None

    async def write(self, data: str) -> None:
        msg = json.loads(data)
        self.written.append(msg)
        if msg.get("type") == "control_request" and msg["request"]["subtype"] == "initialize":
            await self.send.send({"type": "control_response", "response": {
                "subtype": "success", "request_id": msg["request_id"], "response": {}}})

    async def read_messages(self):  # type: ignore[override]
        async for m in self.receive:
            yield m

    async def close(self) -> None:
        self.send.close()

    def is_ready(self) -> bool:
        return True

    async def end_input(self) -> None:
        return None


async def ask(query: Query, transport: MemoryTransport, request: Dict[str, Any]) -> Dict[str, Any]:
    """Sends one control request as the CLI would and waits for the SDK's answer."""
    request_id = f"req_{len(transport.written)}"
    await transport.send.send({"type": "control_request", "request_id": request_id, "request": request})
    with anyio.fail_after(10):
        while True:
            for msg in transport.written:
                if msg.get("type") == "control_response" and msg["response"].get("request_id") == request_id:
                    return msg["response"]
            await anyio.sleep(0.005)


def run_session(options: ClaudeAgentOptions, requests: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    async def main() -> List[Dict[str, Any]]:
        transport = MemoryTransport()
        hooks = {event: [{"matcher": m.matcher, "hooks": m.hooks, "timeout": m.timeout} for m in matchers]
                 for event, matchers in (options.hooks or {}).items()}
        query = Query(transport, True, can_use_tool=options.can_use_tool, hooks=hooks)
        await query.start()
        await query.initialize()
        answers = [await ask(query, transport, r) for r in requests]
        await query.close()
        return answers

    return anyio.run(main)


def permission_request(tool: str, tool_input: Dict[str, Any]) -> Dict[str, Any]:
    return {"subtype": "can_use_tool", "tool_name": tool, "input": tool_input,
            "permission_suggestions": None, "tool_use_id": "toolu_1"}


def test_can_use_tool_through_the_sdk(engine: toolgate.Engine):
    options = ClaudeAgentOptions(can_use_tool=toolgate.claude.can_use_tool(engine, "claude"))
    allowed, pushed, shell, unknown = run_session(options, [
        permission_request("mcp__git__git_log", {"repo_path": "/repo/a"}),
        permission_request("mcp__git__git_push", {"repo_path": "/repo/a"}),
        permission_request("Bash", {"command": "rm -rf /"}),
        permission_request("Read", {"file_path": "/etc/passwd"}),
    ])
    assert allowed["subtype"] == "success"
    assert allowed["response"] == {"behavior": "allow", "updatedInput": {"repo_path": "/repo/a"}}
    assert pushed["response"] == {"behavior": "deny", "message": engine.decide(
        "claude", "git_push", {"repo_path": "/repo/a"}, server="git").message}
    assert "net:http" in pushed["response"]["message"]
    assert shell["response"]["behavior"] == "deny"
    assert unknown["response"]["behavior"] == "deny"
    assert "Read" in unknown["response"]["message"]


def test_can_use_tool_returns_the_sdk_types(engine: toolgate.Engine):
    callback = toolgate.claude.can_use_tool(engine, "claude")
    ctx = ToolPermissionContext(tool_use_id="toolu_9")
    ok = anyio.run(callback, "Bash", {"command": "npm run test"}, ctx)
    no = anyio.run(callback, "Bash", {"command": float("nan")}, ctx)
    assert isinstance(ok, PermissionResultAllow)
    assert isinstance(no, PermissionResultDeny) and no.message.startswith("bad request: ")
    assert no.interrupt is False


def hook_request(tool: str, tool_input: Dict[str, Any], callback_id: str = "hook_0") -> Dict[str, Any]:
    return {"subtype": "hook_callback", "callback_id": callback_id, "tool_use_id": "toolu_2",
            "input": {"session_id": "s", "transcript_path": "/t", "cwd": "/",
                      "permission_mode": "bypassPermissions", "hook_event_name": "PreToolUse",
                      "tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_2"}}


def test_pre_tool_use_hook_through_the_sdk(engine: toolgate.Engine):
    options = ClaudeAgentOptions(
        permission_mode="bypassPermissions",
        hooks={"PreToolUse": [HookMatcher(matcher=None, hooks=[toolgate.claude.pre_tool_use_hook(engine, "claude")])]},
    )
    allowed, pushed = run_session(options, [
        hook_request("mcp__git__git_log", {"repo_path": "/repo/a"}),
        hook_request("mcp__git__git_push", {"repo_path": "/repo/a"}),
    ])
    assert allowed == {"subtype": "success", "request_id": allowed["request_id"], "response": {}}
    out = pushed["response"]["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "deny"
    assert out["permissionDecisionReason"] == engine.decide(
        "claude", "git_push", {"repo_path": "/repo/a"}, server="git").message


def test_mcp_names_are_split():
    from toolgate._names import split_tool_name

    assert split_tool_name("mcp__git__git_log") == ("git", "git_log")
    assert split_tool_name("mcp__db__run__query") == ("db", "run__query")
    assert split_tool_name("Bash") == (None, "Bash")
    assert split_tool_name("mcp__broken") == (None, "mcp__broken")
    # The library's split (the same as Node's and the gateway's), with the server as a hint.
    assert split_tool_name("mcp__my__srv__git_log", "my__srv") == ("my__srv", "git_log")
    assert split_tool_name("mcp__my__srv__git_log") == ("my", "srv__git_log")
    assert split_tool_name("mcp__other__t", "my__srv") == ("other", "t")
    assert split_tool_name("mcp__my__srv__", "my__srv") == ("my", "srv__")
    assert split_tool_name("Bash", "git") == (None, "Bash")
    assert toolgate._native.split_tool_name("mcp__a__b", None) == ("a", "b")


def test_server_names_holding_double_underscores():
    import asyncio

    engine = toolgate.Engine.from_source("""
server my__srv {
  tool git_log(repo_path) needs fs:read
}
agent claude {
  grant fs:read
  allow my__srv.git_log
}
""")
    hook_input = {"hook_event_name": "PreToolUse", "tool_name": "mcp__my__srv__git_log",
                  "tool_input": {"repo_path": "/r"}, "tool_use_id": "toolu_u"}
    hinted = toolgate.claude.pre_tool_use_hook(engine, "claude", mcp_servers=["my", "my__srv"])
    assert asyncio.run(hinted(hook_input, "toolu_u", {"signal": None})) == {}
    plain = toolgate.claude.pre_tool_use_hook(engine, "claude")
    out = asyncio.run(plain(hook_input, "toolu_u", {"signal": None}))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    d = toolgate.claude.decide(engine, "claude", "mcp__my__srv__git_log", {"repo_path": "/r"},
                               mcp_servers=["my__srv"])
    assert d.allowed
    allow = toolgate.claude.can_use_tool(engine, "claude", mcp_servers={"my__srv": None})
    assert isinstance(asyncio.run(allow("mcp__my__srv__git_log", {"repo_path": "/r"}, ToolPermissionContext())),
                      PermissionResultAllow)


def test_import_toolgate_needs_no_sdk():
    import subprocess
    import sys

    code = ("import sys, toolgate, toolgate.claude, toolgate.mcp, toolgate.openai_agents\n"
            "bad = [m for m in ('claude_agent_sdk', 'agents', 'mcp') if m in sys.modules]\n"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
