"""A tiny real MCP upstream for the e2e tests, on the PyPI `mcp` package's MCPServer (FastMCP):
tools `echo` and `slow`, a resource and a prompt. `python tiny_upstream.py` serves stdio;
`python tiny_upstream.py http PORT` serves Streamable HTTP on 127.0.0.1:PORT/mcp."""

from __future__ import annotations

import sys

import anyio
from mcp.server.mcpserver import MCPServer

server = MCPServer("tiny", log_level="WARNING")


@server.tool()
def echo(text: str) -> str:
    """Answers its argument."""
    return text


@server.tool()
async def slow(seconds: float) -> str:
    """Answers after sleeping `seconds`."""
    await anyio.sleep(seconds)
    return f"slept {seconds}"


@server.resource("note://greeting", name="greeting", mime_type="text/plain")
def greeting() -> str:
    return "hello from the tiny upstream"


@server.prompt()
def review(topic: str) -> str:
    """Asks for a review of a topic."""
    return f"Please review {topic}."


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
