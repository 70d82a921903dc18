"""Tool names as agent SDKs spell them, split into toolgate's server and tool."""

from __future__ import annotations

from typing import Optional, Tuple

MCP_PREFIX = "mcp__"


def split_tool_name(name: str) -> Tuple[Optional[str], str]:
    """``mcp__<server>__<tool>`` gives ``(server, tool)``; any other name is a host tool
    ``(None, name)``. A name that starts with ``mcp__`` but has no tool part stays whole."""
    if name.startswith(MCP_PREFIX):
        server, sep, tool = name[len(MCP_PREFIX):].partition("__")
        if server and sep and tool:
            return server, tool
    return None, name
