"""toolgate for the MCP Python client (``mcp`` 2.x).

:func:`guard` wraps a connected ``mcp.Client`` or ``mcp.ClientSession`` so that
``list_tools`` returns only the tools the policy lets the agent see, and ``call_tool``
decides each call first: a denied call is not sent to the server and comes back as a
``CallToolResult`` with ``is_error=True`` whose text is the decision's message (an execution
error the model reads, as the MCP spec has it, not an exception). Everything else is passed
through to the wrapped session. ``mcp`` is imported only when a denial is built.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Set

from ._native import Decision, Engine

__all__ = ["guard", "GuardedSession"]


class GuardedSession:
    """An MCP client session whose tool listing and tool calls go through a toolgate policy."""

    def __init__(self, session: Any, engine: Engine, agent: str, server: Optional[str]) -> None:
        self._session = session
        self._engine = engine
        self._agent = agent
        self._server = server

    @property
    def session(self) -> Any:
        """The wrapped session."""
        return self._session

    def decide(self, name: str, arguments: Optional[Dict[str, Any]] = None) -> Decision:
        """The decision for calling tool ``name`` with ``arguments`` on this server."""
        return self._engine.decide(self._agent, name, {} if arguments is None else arguments,
                                   server=self._server)

    def _visible(self) -> Set[str]:
        tools = self._engine.tools(self._agent) or []
        if self._server is None:
            return {t.tool for t in tools}
        return {t.tool for t in tools if t.server == self._server}

    async def list_tools(self, *args: Any, **kwargs: Any) -> Any:
        """The server's tool listing, keeping only the tools the agent may see."""
        result = await self._session.list_tools(*args, **kwargs)
        visible = self._visible()
        return result.model_copy(update={"tools": [t for t in result.tools if t.name in visible]})

    async def call_tool(self, name: str, arguments: Optional[Dict[str, Any]] = None,
                        *args: Any, **kwargs: Any) -> Any:
        """Calls the tool when the policy allows it; otherwise returns the denial as an
        ``is_error`` result without contacting the server."""
        d = self.decide(name, arguments)
        if d.allowed:
            return await self._session.call_tool(name, arguments, *args, **kwargs)
        from mcp.types import CallToolResult, TextContent

        return CallToolResult(content=[TextContent(type="text", text=d.message)], is_error=True,
                              structured_content=None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    async def __aenter__(self) -> "GuardedSession":
        await self._session.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._session.__aexit__(*exc)


def guard(session: Any, engine: Engine, agent: str, *, server: Optional[str] = None) -> GuardedSession:
    """Wraps ``session`` (an ``mcp.Client`` or ``mcp.ClientSession``) for ``agent``.

    ``server`` is the name the policy gives this MCP server (``server git { ... }``); without
    it, tools are decided by their bare names (a name declared on several servers is then
    ``ambiguous_tool`` and denied).

    Example::

        async with Client(server) as client:
            git = toolgate.mcp.guard(client, engine, "code-assistant", server="git")
            tools = (await git.list_tools()).tools
            result = await git.call_tool("git_push", {"repo_path": "/repo"})  # is_error=True
    """
    return GuardedSession(session, engine, agent, server)
