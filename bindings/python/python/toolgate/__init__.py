"""toolgate: decide whether an AI agent may make a tool call, in-process.

Load a compiled policy once (``Engine.load("policy.bundle")``) and ask it before every tool
call (``engine.decide(agent, tool, args)``); the answer is an immutable :class:`Decision`.
The SDK adapters live in submodules that import their SDK only when used:
``toolgate.claude`` (Claude Agent SDK), ``toolgate.openai_agents`` (OpenAI Agents SDK) and
``toolgate.mcp`` (the MCP Python client).
"""

from ._errors import (
    BundleError,
    Diagnostic,
    Error,
    InvalidGrantError,
    LoadError,
    PermissionDeniedError,
    PolicyError,
)
from ._native import MAX_DEPTH, Decision, Engine, PermissionSet, RuleRef, VisibleTool
from ._permissions import with_permissions, with_permissions_all

__all__ = [
    "BundleError",
    "Decision",
    "Diagnostic",
    "Engine",
    "Error",
    "InvalidGrantError",
    "LoadError",
    "MAX_DEPTH",
    "PermissionDeniedError",
    "PermissionSet",
    "PolicyError",
    "RuleRef",
    "VisibleTool",
    "with_permissions",
    "with_permissions_all",
]

__version__ = "0.1.0"
