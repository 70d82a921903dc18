"""The Hermes model: an immutable PermissionSet and the with_permissions wrapper."""

from __future__ import annotations

import asyncio

import pytest

import toolgate
from toolgate import PermissionDeniedError, PermissionSet, with_permissions, with_permissions_all

# The library's message, byte for byte (src/host/tool.rs).
RUST_MESSAGE = ('fs.write requires the "fs:write" permission, which was not granted.\n'
                "Retrying with different arguments will not help")


def test_constructors_and_membership():
    assert "fs:read" not in PermissionSet.none()
    assert "anything:at-all" in PermissionSet.all()
    s = PermissionSet(["fs:read", "net:*"])
    assert "fs:read" in s and "net:http" in s and "net:brand-new" in s
    assert "fs:write" not in s and "fsx:read" not in s
    assert 42 not in s and "not a permission" not in s
    assert s.allows("net:sql")
    assert PermissionSet() == PermissionSet.none()
    assert PermissionSet("fs:read") == PermissionSet(["fs:read"])
    assert str(PermissionSet(["net:http", "fs:read"])) == "fs:read, net:http"


def test_grant_returns_a_copy():
    base = PermissionSet.none()
    wider = base.grant("fs:read", "net:http")
    assert "fs:read" in wider and "fs:read" not in base
    assert base == PermissionSet.none()
    with pytest.raises(AttributeError):
        base.extra = 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("bad", ["*:read", "fs", "FS:read", "fs:", ":read"])
def test_invalid_grants_raise_with_the_reason(bad: str):
    with pytest.raises(toolgate.InvalidGrantError) as err:
        PermissionSet(["fs:read", bad])
    assert err.value.grant == bad
    assert isinstance(err.value, ValueError)
    assert f"`{bad}`" in str(err.value)
    with pytest.raises(toolgate.InvalidGrantError):
        PermissionSet.none().grant(bad)


def test_wildcard_domain_reason():
    with pytest.raises(toolgate.InvalidGrantError, match="wildcard covers a domain"):
        PermissionSet(["*:read"])


def write(path: str, content: str) -> str:
    """Writes a file (for the test: says what it would write)."""
    return f"wrote {len(content)} bytes to {path}"


write.needs = ["fs:write"]  # type: ignore[attr-defined]
write.name = "fs.write"  # type: ignore[attr-defined]


def test_with_permissions_refuses_before_the_tool_runs():
    ran = []

    def tool(path: str) -> str:
        ran.append(path)
        return path

    tool.needs = ["fs:read", "fs:write"]  # type: ignore[attr-defined]
    guarded = with_permissions(tool, PermissionSet(["fs:read"]))
    with pytest.raises(PermissionDeniedError) as err:
        guarded("/tmp/x")
    assert ran == []
    assert (err.value.tool, err.value.permission) == ("tool", "fs:write")
    assert isinstance(err.value, PermissionError)
    assert with_permissions(tool, PermissionSet(["fs:*"]))("/a") == "/a" and ran == ["/a"]


def test_denial_message_is_the_librarys():
    with pytest.raises(PermissionDeniedError) as err:
        with_permissions(write, PermissionSet.none())("/tmp/x", "")
    assert str(err.value) == RUST_MESSAGE
    # The engine words a missing permission the same way.
    engine = toolgate.Engine.from_source('tool "fs.write"(path) needs fs:write\nagent a { allow "fs.write" }')
    assert engine.decide("a", "fs.write", {"path": "/x"}).message == RUST_MESSAGE


def test_wrapper_keeps_the_tool_and_names_the_first_missing():
    guarded = with_permissions(write, PermissionSet.all())
    assert guarded("/p", "abc") == "wrote 3 bytes to /p"
    assert guarded.__name__ == "write" and guarded.__doc__ == write.__doc__
    assert guarded.needs == ["fs:write"]


def test_async_tools_stay_async():
    async def fetch(url: str) -> str:
        return url

    fetch.needs = ["net:http"]  # type: ignore[attr-defined]
    ok = with_permissions(fetch, PermissionSet(["net:http"]))
    assert asyncio.run(ok("u")) == "u"
    refused = with_permissions(fetch, PermissionSet.none())
    with pytest.raises(PermissionDeniedError, match='"net:http"'):
        asyncio.run(refused("u"))


def test_with_permissions_all_and_undeclared_tools():
    def plain() -> int:
        return 1

    a, b = with_permissions_all([write, plain], PermissionSet.none())
    assert b() == 1  # needs nothing
    with pytest.raises(PermissionDeniedError):
        a("/x", "")


def test_bad_declarations_are_refused_at_wrap_time():
    def tool() -> None:
        return None

    tool.needs = ["fs:*"]  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="tool `tool` declares"):
        with_permissions(tool, PermissionSet.all())
    with pytest.raises(TypeError):
        with_permissions(tool, ["fs:read"])  # type: ignore[arg-type]
