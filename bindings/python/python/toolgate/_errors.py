"""The exceptions toolgate raises, and the diagnostics a policy error carries."""

from __future__ import annotations

from typing import List, NamedTuple, Optional

__all__ = [
    "Diagnostic",
    "Error",
    "PolicyError",
    "BundleError",
    "LoadError",
    "InvalidGrantError",
    "PermissionDeniedError",
]


class Diagnostic(NamedTuple):
    """One problem found in a policy: a stable code, where it is, and how to fix it."""

    code: str
    """Stable code, ``toolgate::<name>``."""
    severity: str
    """``"error"`` or ``"warning"``."""
    message: str
    """What is wrong."""
    file: str
    """The policy file."""
    line: int
    """1-based line."""
    column: int
    """1-based column."""
    help: Optional[str]
    """How to fix it, when known."""


class Error(Exception):
    """Base class of every exception toolgate raises."""


class PolicyError(Error):
    """A policy with errors: nothing was loaded.

    ``str(err)`` is the report ``toolgate check`` prints; ``err.diagnostics`` lists each
    problem as a :class:`Diagnostic`.
    """

    diagnostics: List[Diagnostic]

    def __init__(self, report: str, diagnostics: List[Diagnostic]) -> None:
        super().__init__(report)
        self.diagnostics = list(diagnostics)

    def __str__(self) -> str:
        return str(self.args[0])


class BundleError(Error):
    """A compiled bundle that is truncated, corrupt, foreign or of another format version.

    ``err.code`` is the stable code (``toolgate::bundle::...``).
    """

    code: str

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


class LoadError(Error, OSError):
    """A policy file or folder that could not be read."""


class InvalidGrantError(Error, ValueError):
    """A grant that is not ``domain:action``, ``domain:*`` or ``*`` (for example ``*:read``).

    ``str(err)`` gives the reason; ``err.grant`` is the text refused.
    """

    grant: str

    def __init__(self, message: str, grant: str) -> None:
        super().__init__(message)
        self.grant = grant


class PermissionDeniedError(Error, PermissionError):
    """A tool call refused before the tool ran: a permission it declares was not granted.

    The message is exactly the library's:
    ``fs.write requires the "fs:write" permission, which was not granted.`` followed by
    ``Retrying with different arguments will not help`` on a second line.
    ``err.tool`` names the tool and ``err.permission`` the first missing permission.
    """

    tool: str
    permission: str

    def __init__(self, message: str, tool: str, permission: str) -> None:
        super().__init__(message)
        self.tool = tool
        self.permission = permission

    def __str__(self) -> str:
        return str(self.args[0])
