"""The MCP client adapter against a real MCP server from the `mcp` package (MCPServer),
connected in memory with the SDK's own in-process transport."""

from __future__ import annotations

from typing import List

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.types import CallToolResult  # noqa: E402

import toolgate  # noqa: E402
import toolgate.mcp  # noqa: E402

POLICY = """
server git {
  tool git_log(repo_path)  needs fs:read
  tool git_push(repo_path) needs net:http
  tool git_status(repo_path) needs fs:read
}
agent dev {
  grant fs:read, net:http
  allow git.git_log  where repo_path matches "/repo/**"
  allow git.git_push where repo_path matches "/repo/**"
}
"""


def make_server(calls: List[str]) -> MCPServer:
    server = MCPServer("git")

    @server.tool()
    def git_log(repo_path: str) -> str:
        """Shows the log."""
        calls.append(f"log {repo_path}")
        return f"log of {repo_path}"

    @server.tool()
    def git_push(repo_path: str) -> str:
        """Pushes."""
        calls.append(f"push {repo_path}")
        return f"pushed {repo_path}"

    @server.tool()
    def git_status(repo_path: str) -> str:
        """Shows the status."""
        calls.append(f"status {repo_path}")
        return "clean"

    return server


def test_guarded_client_filters_and_denies():
    engine = toolgate.Engine.from_source(POLICY, filename="mcp.policy")
    calls: List[str] = []

    async def main() -> None:
        async with Client(make_server(calls)) as client:
            everything = sorted(t.name for t in (await client.list_tools()).tools)
            assert everything == ["git_log", "git_push", "git_status"]
            git = toolgate.mcp.guard(client, engine, "dev", server="git")
            listed = await git.list_tools()
            assert [t.name for t in listed.tools] == ["git_log", "git_push"]

            ok = await git.call_tool("git_log", {"repo_path": "/repo/a"})
            assert ok.is_error is not True
            assert ok.content[0].text == "log of /repo/a"

            denied = await git.call_tool("git_push", {"repo_path": "/etc"})
            assert isinstance(denied, CallToolResult) and denied.is_error is True
            want = engine.decide("dev", "git_push", {"repo_path": "/etc"}, server="git").message
            assert denied.content[0].text == want

            hidden = await git.call_tool("git_status", {"repo_path": "/repo/a"})
            assert hidden.is_error is True
            assert calls == ["log /repo/a"]  # the denied calls never reached the server

            # Everything else passes through to the wrapped client.
            assert git.session is client
            assert (await git.list_prompts()).prompts == []

    anyio.run(main)


def test_unknown_agent_sees_nothing_and_may_call_nothing():
    engine = toolgate.Engine.from_source(POLICY)
    calls: List[str] = []

    async def main() -> None:
        async with Client(make_server(calls)) as client:
            stranger = toolgate.mcp.guard(client, engine, "stranger", server="git")
            assert (await stranger.list_tools()).tools == []
            r = await stranger.call_tool("git_log", {"repo_path": "/repo/a"})
            assert r.is_error is True and "unknown agent" in r.content[0].text
            assert calls == []

    anyio.run(main)
