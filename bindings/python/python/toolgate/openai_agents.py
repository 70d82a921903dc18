"""toolgate for the OpenAI Agents SDK (``openai-agents``).

:func:`tool_input_guardrail` builds a tool input guardrail (the SDK's
``@tool_input_guardrail``) that decides each function call before it runs: an allowed call
passes, a denied one is rejected with the decision's message, which the model reads as the
tool's output (``reject_content``). Attach it to a tool with
``function_tool(..., tool_input_guardrails=[guard])`` or ``tool.tool_input_guardrails = [guard]``.

The call's arguments arrive as JSON text and are read with the CLI's strict parser.
``agents`` is imported only when a guardrail is built.
"""

from __future__ import annotations

from typing import Any, Optional

from ._names import split_tool_name
from ._native import Engine

__all__ = ["tool_input_guardrail"]


def tool_input_guardrail(engine: Engine, agent: str, *, server: Optional[str] = None,
                         name: str = "toolgate") -> Any:
    """A ``ToolInputGuardrail`` deciding every call of the tools it is attached to.

    ``server`` names the MCP server the tools belong to, when they do; otherwise a tool
    named ``mcp__<server>__<tool>`` is split, and any other name is a host tool.
    """
    from agents import ToolGuardrailFunctionOutput
    from agents import tool_input_guardrail as sdk_tool_input_guardrail

    @sdk_tool_input_guardrail(name=name)
    def guard(data: Any) -> Any:
        ctx = data.context
        # `server` is also the library's hint, so `mcp__<server>__<tool>` splits where `server`
        # ends even when its name holds `__`.
        split_server, tool = split_tool_name(ctx.tool_name, server)
        d = engine.decide_json_args(agent, tool, ctx.tool_arguments or "",
                                    server=server or split_server,
                                    tool_use_id=getattr(ctx, "tool_call_id", None))
        if d.allowed:
            return ToolGuardrailFunctionOutput.allow(output_info=d.to_dict())
        return ToolGuardrailFunctionOutput.reject_content(d.message, output_info=d.to_dict())

    return guard
