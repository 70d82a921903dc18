"""toolgate for the Claude Agent SDK (``claude-agent-sdk``).

Two entry points, for the SDK's two places to refuse a tool call:

- :func:`can_use_tool` returns the async callback for ``ClaudeAgentOptions.can_use_tool``.
  The SDK asks it only when its own permission flow would prompt: it is **skipped** under
  ``permission_mode="bypassPermissions"`` and for tools listed in ``allowed_tools``. Use it
  when the policy should decide what would otherwise be a prompt to the user.
- :func:`pre_tool_use_hook` returns a ``PreToolUse`` hook callback for a ``HookMatcher``.
  Hooks run for **every** tool call, whatever the permission mode and ``allowed_tools``.
  Use it when the policy must gate every call (the usual choice for enforcement).

MCP tools arrive as ``mcp__<server>__<tool>`` and are decided as ``server.tool``; other names
are host tools. The Python SDK's hook input (``PreToolUseHookInput``) and permission context
(``ToolPermissionContext``) carry no MCP server name (the TypeScript SDK's do), so the name is
split by the library at the first ``__`` after ``mcp__``, unless ``mcp_servers`` lists the
configured servers' names (the keys of ``ClaudeAgentOptions.mcp_servers``): then a server
whose name holds ``__`` splits where it ends. ``claude_agent_sdk`` is imported only when a
callback is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterable, Optional

from ._names import server_of, split_tool_name
from ._native import Decision, Engine

if TYPE_CHECKING:
    # The SDK's own callback types, so that `HookMatcher(hooks=[pre_tool_use_hook(...)])` and
    # `ClaudeAgentOptions(can_use_tool=can_use_tool(...))` type-check; the SDK stays optional
    # at run time.
    from claude_agent_sdk.types import (
        CanUseTool,
        HookCallback,
        HookContext,
        HookInput,
        HookJSONOutput,
        PermissionResult,
        ToolPermissionContext,
    )

__all__ = ["can_use_tool", "pre_tool_use_hook", "decide"]


def decide(engine: Engine, agent: str, tool_name: str, tool_input: Any,
           tool_use_id: Optional[str] = None, *, mcp_servers: Iterable[str] = ()) -> Decision:
    """Decides one Claude tool call (``tool_name`` as the SDK names it); ``mcp_servers``
    names the configured MCP servers, for names whose server holds ``__``."""
    server, tool = split_tool_name(tool_name, server_of(tool_name, mcp_servers))
    return engine.decide(agent, tool, tool_input, server=server, tool_use_id=tool_use_id)


def can_use_tool(engine: Engine, agent: str, *, mcp_servers: Iterable[str] = ()) -> CanUseTool:
    """The ``can_use_tool`` callback: ``PermissionResultAllow()`` when the policy allows the
    call, ``PermissionResultDeny(message=decision.message)`` when it denies it.

    Example::

        options = ClaudeAgentOptions(can_use_tool=toolgate.claude.can_use_tool(engine, "code-assistant"))
    """
    from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny

    servers = tuple(mcp_servers)

    async def callback(tool_name: str, tool_input: Dict[str, Any],
                       context: ToolPermissionContext) -> PermissionResult:
        d = decide(engine, agent, tool_name, tool_input, getattr(context, "tool_use_id", None),
                   mcp_servers=servers)
        if d.allowed:
            return PermissionResultAllow()
        return PermissionResultDeny(message=d.message)

    return callback


def pre_tool_use_hook(engine: Engine, agent: str, *, mcp_servers: Iterable[str] = ()) -> HookCallback:
    """A ``PreToolUse`` hook callback: a denial answers ``permissionDecision: "deny"`` with
    the decision's message as ``permissionDecisionReason`` (the model reads it); an allowed
    call gets no opinion (``{}``), so the SDK's other checks still apply.

    Example::

        options = ClaudeAgentOptions(hooks={"PreToolUse": [
            HookMatcher(matcher=None, hooks=[toolgate.claude.pre_tool_use_hook(engine, "code-assistant")]),
        ]})
    """
    servers = tuple(mcp_servers)

    async def hook(hook_input: HookInput, tool_use_id: Optional[str], context: HookContext) -> HookJSONOutput:
        # Read as a plain dict: the SDK hands over what the CLI sent.
        fields: Any = hook_input
        if not isinstance(fields, dict) or fields.get("hook_event_name") != "PreToolUse":
            return {}
        tool_name = fields.get("tool_name")
        call_id = tool_use_id if tool_use_id is not None else fields.get("tool_use_id")
        d = decide(engine, agent, tool_name if isinstance(tool_name, str) else "",
                   fields.get("tool_input", {}), call_id if isinstance(call_id, str) else None,
                   mcp_servers=servers)
        if d.allowed:
            return {}
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": d.message,
            }
        }

    return hook
