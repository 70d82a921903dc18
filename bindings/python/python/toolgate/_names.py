"""Tool names as agent SDKs spell them, split into toolgate's server and tool by the library
(``toolgate::host::split_tool_name``, the same split as the Node package and the gateway)."""

from __future__ import annotations

from typing import Iterable, Optional, Tuple

from ._native import split_tool_name as _split

MCP_PREFIX = "mcp__"


def split_tool_name(name: str, server: Optional[str] = None) -> Tuple[Optional[str], str]:
    """``mcp__<server>__<tool>`` gives ``(server, tool)``; any other name is a host tool
    ``(None, name)``. A name that starts with ``mcp__`` but has no tool part stays whole.

    ``server`` is the MCP server's name when the host knows it: ``mcp__a__b__t`` with
    ``server="a__b"`` is ``("a__b", "t")``; without it the server ends at the first ``__``."""
    try:
        return _split(name, server)
    except (TypeError, UnicodeError):
        # Not a `str`, or a lone surrogate: a host tool, which the request reader refuses.
        return None, name


def server_of(name: str, servers: Iterable[str]) -> Optional[str]:
    """The longest of ``servers`` (MCP server names the host configured) that ``name``
    is a tool of (``mcp__<server>__...``), or None."""
    best: Optional[str] = None
    for s in servers:
        if name.startswith(f"{MCP_PREFIX}{s}__") and (best is None or len(s) > len(best)):
            best = s
    return best
