"""Type stubs for the Rust extension module ``toolgate._native``."""

from os import PathLike
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union, final

MAX_DEPTH: int
"""The deepest nesting of dicts and lists a request may have, the request itself included."""

def split_tool_name(name: str, server: Optional[str] = None) -> Tuple[Optional[str], str]:
    """Splits ``mcp__<server>__<tool>`` into ``(server, tool)``; any other name is
    ``(None, name)``. ``server``, when the host knows it, is the MCP server's name."""

_Path = Union[str, "PathLike[str]"]
_Json = Any

@final
class Engine:
    """A compiled toolgate policy. Immutable and safe to share between threads."""

    @staticmethod
    def from_bundle(data: bytes) -> Engine:
        """Loads a compiled bundle; raises ``toolgate.BundleError`` for a bad one."""
    @staticmethod
    def from_source(text: str, filename: str = "inline.policy") -> Engine:
        """Compiles policy source; raises ``toolgate.PolicyError`` when it has errors."""
    @staticmethod
    def load(path: Union[_Path, Sequence[_Path]]) -> Engine:
        """Loads a ``.policy`` file, a folder of them, a list of such paths, or a bundle.

        Raises ``toolgate.LoadError``, ``toolgate.BundleError`` or ``toolgate.PolicyError``.
        """
    def to_bundle(self) -> bytes:
        """The compiled policy as bundle bytes (what ``toolgate compile`` writes)."""
    @property
    def policy_hash(self) -> str:
        """The SHA-256 (hex) of the compiled policy; every decision carries it."""
    @property
    def agents(self) -> List[str]:
        """The agents' names, in declaration order."""
    def decide(
        self,
        agent: str,
        tool: str,
        args: Optional[Dict[str, _Json]] = None,
        *,
        server: Optional[str] = None,
        tool_use_id: Optional[str] = None,
        permissions: Optional[Sequence[str]] = None,
    ) -> Decision:
        """Decides one tool call; a value JSON cannot hold gives a ``bad_request`` decision."""
    def decide_request(self, request: Dict[str, _Json]) -> Decision:
        """Decides a request dict of the CLI's request JSON shape."""
    def decide_json_args(
        self,
        agent: str,
        tool: str,
        args_json: str,
        *,
        server: Optional[str] = None,
        tool_use_id: Optional[str] = None,
    ) -> Decision:
        """Decides a call whose arguments are JSON text, read with the CLI's strict parser."""
    def decide_json(self, line: str) -> Decision:
        """Decides one request line of JSON text, with the CLI's strict parser."""
    def tools(self, agent: str) -> Optional[List[VisibleTool]]:
        """The tools ``agent`` may see, in declaration order; None for an unknown agent."""
    def test_cases(self) -> List[Dict[str, Any]]:
        """The expectations of the policy's ``test`` blocks, as dicts."""

@final
class Decision:
    """The answer to one tool call. Immutable; has no truth value (test ``.allowed``)."""

    @property
    def decision(self) -> str:
        """``"allow"`` or ``"deny"``."""
    @property
    def allowed(self) -> bool:
        """True when the call may run."""
    @property
    def reason(self) -> str:
        """Why (``allowed_by_rule``, ``denied_by_rule``, ``bad_request``, ...)."""
    @property
    def permission(self) -> Optional[str]:
        """The first missing permission, for ``permission_missing``."""
    @property
    def argument(self) -> Optional[str]:
        """The first missing argument, for ``missing_argument``; the first wrongly typed one, for ``invalid_argument``."""
    @property
    def message(self) -> str:
        """A message for the agent or the operator."""
    @property
    def rule(self) -> Optional[RuleRef]:
        """The rule that decided, when one did."""
    @property
    def tool_use_id(self) -> Optional[str]:
        """The request's ``tool_use_id``, echoed."""
    @property
    def policy_hash(self) -> str:
        """The SHA-256 (hex) of the compiled policy that decided."""
    def to_dict(self) -> Dict[str, Any]:
        """The decision as the CLI's JSON, as a dict."""
    def to_tool_result(self, tool_use_id: Optional[str] = None) -> Dict[str, Any]:
        """The decision as an agent-SDK ``tool_result`` dict."""
    def __bool__(self) -> bool:
        """Raises ``TypeError``: test ``decision.allowed``."""

@final
class RuleRef:
    """Where the deciding rule is."""

    @property
    def agent(self) -> str:
        """The agent the rule belongs to."""
    @property
    def effect(self) -> str:
        """``"allow"`` or ``"deny"``."""
    @property
    def target(self) -> str:
        """The rule's target as written."""
    @property
    def file(self) -> str:
        """The policy file the rule is in."""
    @property
    def line(self) -> int:
        """1-based line."""
    @property
    def column(self) -> int:
        """1-based column."""
    def to_dict(self) -> Dict[str, Any]:
        """The rule as the decision JSON's ``rule`` object."""

@final
class VisibleTool:
    """A tool an agent may see; ``str()`` gives ``server.tool``."""

    @property
    def server(self) -> Optional[str]:
        """The server, or None for a host tool."""
    @property
    def tool(self) -> str:
        """The tool's name."""

@final
class PermissionSet:
    """An immutable set of granted permissions (``domain:action``, ``domain:*``, ``*``)."""

    def __init__(self, grants: Union[str, Sequence[str], None] = None) -> None:
        """Grants exactly what is listed; raises ``toolgate.InvalidGrantError``."""
    @staticmethod
    def none() -> PermissionSet:
        """Grants nothing."""
    @staticmethod
    def all() -> PermissionSet:
        """Grants everything."""
    def grant(self, *grants: str) -> PermissionSet:
        """A copy with more granted; this set is unchanged."""
    def allows(self, permission: str) -> bool:
        """Whether ``permission`` is granted."""
    def __contains__(self, permission: object) -> bool:
        """``"fs:read" in s``."""

@final
class Guard:
    """The check ``with_permissions`` puts in front of a tool."""

    def __init__(self, tool: str, needs: Sequence[str], granted: PermissionSet) -> None:
        """A guard for ``tool`` declaring ``needs``, checked against ``granted``."""
    def check(self) -> None:
        """Raises ``toolgate.PermissionDeniedError`` when a declared permission is missing."""
    @property
    def tool(self) -> str:
        """The tool's name."""
    @property
    def needs(self) -> List[str]:
        """The permissions the tool declares."""
    @property
    def granted(self) -> PermissionSet:
        """The grant set checked."""
