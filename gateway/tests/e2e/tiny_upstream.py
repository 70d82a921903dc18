"""A tiny real MCP upstream for the e2e tests, on the PyPI `mcp` package's MCPServer (FastMCP):
tools `echo` and `slow`, a resource and a prompt. `python tiny_upstream.py` serves stdio;
`python tiny_upstream.py http PORT` serves Streamable HTTP on 127.0.0.1:PORT/mcp;
`python tiny_upstream.py https PORT CERT KEY` serves it over TLS (uvicorn) with that PEM
certificate chain and key."""

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
    elif len(sys.argv) == 5 and sys.argv[1] == "https":
        import uvicorn

        app = server.streamable_http_app(host="127.0.0.1")
        uvicorn.run(
            app,
            host="127.0.0.1",
            port=int(sys.argv[2]),
            ssl_certfile=sys.argv[3],
            ssl_keyfile=sys.argv[4],
            log_level="warning",
        )
    else:
        server.run()
