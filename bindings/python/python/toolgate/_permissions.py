"""Hermes-style enforcement: a wrapper refuses a tool call whose declared permissions were
not granted, before the tool runs."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Iterable, List, TypeVar

from ._native import Guard, PermissionSet

__all__ = ["with_permissions", "with_permissions_all", "tool_name", "declared_needs"]

F = TypeVar("F", bound=Callable[..., Any])


def tool_name(tool: Any) -> str:
    """The name a denial shows: ``tool.name`` when it is a ``str``, else ``__name__``."""
    name = getattr(tool, "name", None)
    if isinstance(name, str):
        return name
    name = getattr(tool, "__name__", None)
    if isinstance(name, str):
        return name
    return type(tool).__name__


def declared_needs(tool: Any) -> List[str]:
    """The permissions a tool declares in its ``needs`` attribute (a ``str`` or a list of
    ``str``; none when absent)."""
    needs = getattr(tool, "needs", None)
    if needs is None:
        return []
    if isinstance(needs, str):
        return [needs]
    items = list(needs)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(
                f"tool `{tool_name(tool)}` declares a permission that is not a str: {item!r}"
            )
    return items


def with_permissions(tool: F, granted: PermissionSet) -> F:
    """Guards one callable with a grant set.

    ``tool`` declares what it needs in ``tool.needs`` (``["fs:write"]``). The returned
    callable raises :class:`toolgate.PermissionDeniedError` before ``tool`` runs when a
    declared permission is not in ``granted``; otherwise it calls ``tool`` with the same
    arguments. Coroutine functions stay coroutine functions. The wrapper keeps the tool's
    name, docstring, signature and ``needs``.
    """
    if not isinstance(granted, PermissionSet):
        raise TypeError("`granted` must be a toolgate.PermissionSet")
    if not callable(tool):
        raise TypeError(f"`{tool_name(tool)}` is not callable")
    guard = Guard(tool_name(tool), declared_needs(tool), granted)

    if inspect.iscoroutinefunction(tool):

        @functools.wraps(tool)
        async def guarded_async(*args: Any, **kwargs: Any) -> Any:
            guard.check()
            return await tool(*args, **kwargs)

        wrapper: Any = guarded_async
    else:

        @functools.wraps(tool)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            guard.check()
            return tool(*args, **kwargs)

        wrapper = guarded
    wrapper.needs = guard.needs
    wrapper.granted = granted
    wrapper.__toolgate_guard__ = guard
    return wrapper  # type: ignore[no-any-return]


def with_permissions_all(tools: Iterable[F], granted: PermissionSet) -> List[F]:
    """Guards a whole toolset with one grant set, decided once at the composition root."""
    return [with_permissions(t, granted) for t in tools]
