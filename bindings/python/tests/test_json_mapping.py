"""Python values map to JSON exactly; the same request through the CLI and through Python
gets the same decision."""

from __future__ import annotations

import enum
import json
from collections import OrderedDict
from pathlib import Path
from typing import Any, List, Optional, Tuple

import pytest

import toolgate
from conftest import cli_eval

POLICY = """
tool num(n)
tool path(p)
tool t(x?, n?)
agent a {
  allow num  where n >= 100
  allow path where p matches "/srv/**"
  deny  path where p contains "rm -rf"
  allow t    where n >= 100
}
tool u(p?) needs fs:read
agent b {
  grant fs:read
  allow u
}
"""


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("json") / "json.policy"
    path.write_text(POLICY)
    return path


@pytest.fixture(scope="module")
def engine(policy_file: Path) -> toolgate.Engine:
    return toolgate.Engine.load(policy_file)


def nested(levels: int) -> Any:
    """`levels` lists around 1."""
    v: Any = 1
    for _ in range(levels):
        v = [v]
    return v


def nested_text(levels: int) -> str:
    return "[" * levels + "1" + "]" * levels


def tool_for(args_text: str) -> str:
    """`num` for a request on `n`, `path` for one on `p`, `t` for the others."""
    if args_text.startswith('{"n"'):
        return "num"
    if args_text.startswith('{"p"'):
        return "path"
    return "t"


def req(args: Any, args_text: str) -> dict:
    return {"agent": "a", "tool": tool_for(args_text), "args": args}


def req_text(args_text: str) -> str:
    return '{"agent": "a", "tool": "' + tool_for(args_text) + '", "args": ' + args_text + "}"


class Color(enum.IntEnum):
    BIG = 150


class Name(str):
    pass


# (Python request, the same request as JSON text, expected reason or None for "same as CLI").
CASES: List[Tuple[str, Any, str]] = [
    ("int allows", req({"n": 150}, '{"n": 150}'), req_text('{"n": 150}')),
    ("int below", req({"n": 99}, '{"n": 99}'), req_text('{"n": 99}')),
    ("float", req({"n": 100.0}, '{"n": 100.0}'), req_text('{"n": 100.0}')),
    ("negative zero", req({"n": -0.0}, '{"n": -0.0}'), req_text('{"n": -0.0}')),
    ("bool is not a number", req({"n": True}, '{"n": true}'), req_text('{"n": true}')),
    ("None", req({"n": None}, '{"n": null}'), req_text('{"n": null}')),
    ("u64 max", req({"n": 2**64 - 1}, '{"n": 18446744073709551615}'), req_text('{"n": 18446744073709551615}')),
    ("beyond u64 becomes f64", req({"n": 2**64}, '{"n": 18446744073709551616}'), req_text('{"n": 18446744073709551616}')),
    ("below i64", req({"n": -(2**63) - 1}, '{"n": -9223372036854775809}'), req_text('{"n": -9223372036854775809}')),
    ("f64 max integer", req({"n": 10**308}, '{"n": 1' + "0" * 308 + "}"), req_text('{"n": 1' + "0" * 308 + "}")),
    ("beyond f64", req({"n": 10**309}, '{"n": 1' + "0" * 309 + "}"), req_text('{"n": 1' + "0" * 309 + "}")),
    ("NaN", req({"n": float("nan")}, '{"n": NaN}'), req_text('{"n": NaN}')),
    ("infinity", req({"n": float("inf")}, '{"n": Infinity}'), req_text('{"n": Infinity}')),
    ("-infinity", req({"n": float("-inf")}, '{"n": -Infinity}'), req_text('{"n": -Infinity}')),
    ("glob", req({"p": "/srv/a/b"}, '{"p": "/srv/a/b"}'), req_text('{"p": "/srv/a/b"}')),
    ("deny rule", req({"p": "/srv/rm -rf"}, '{"p": "/srv/rm -rf"}'), req_text('{"p": "/srv/rm -rf"}')),
    ("unicode", req({"p": "/srv/é/😀"}, '{"p": "/srv/\\u00e9/\\ud83d\\ude00"}'), req_text('{"p": "/srv/\\u00e9/\\ud83d\\ude00"}')),
    ("lone surrogate", req({"p": "/srv/\udc80"}, '{"p": "/srv/\\udc80"}'), req_text('{"p": "/srv/\\udc80"}')),
    ("NUL", req({"p": "/srv/\x00"}, '{"p": "/srv/\\u0000"}'), req_text('{"p": "/srv/\\u0000"}')),
    ("tuple is an array", req({"x": (1, "a", None)}, '{"x": [1, "a", null]}'), req_text('{"x": [1, "a", null]}')),
    ("nested dict", req({"x": {"y": [{"z": 1}]}, "n": 100}, '{"x": {"y": [{"z": 1}]}, "n": 100}'), req_text('{"x": {"y": [{"z": 1}]}, "n": 100}')),
    ("array value", req({"p": ["/srv/a", "/srv/b"]}, '{"p": ["/srv/a", "/srv/b"]}'), req_text('{"p": ["/srv/a", "/srv/b"]}')),
    ("at the nesting limit", req({"x": nested(toolgate.MAX_DEPTH - 2)}, '{"x": ' + nested_text(toolgate.MAX_DEPTH - 2) + "}"), req_text('{"x": ' + nested_text(toolgate.MAX_DEPTH - 2) + "}")),
    ("over the nesting limit", req({"x": nested(toolgate.MAX_DEPTH - 1)}, '{"x": ' + nested_text(toolgate.MAX_DEPTH - 1) + "}"), req_text('{"x": ' + nested_text(toolgate.MAX_DEPTH - 1) + "}")),
    ("IntEnum is its int", req({"n": Color.BIG}, '{"n": 150}'), req_text('{"n": 150}')),
    ("str subclass is its text", req({"p": Name("/srv/x")}, '{"p": "/srv/x"}'), req_text('{"p": "/srv/x"}')),
    ("OrderedDict is a dict", req(OrderedDict(n=150), '{"n": 150}'), req_text('{"n": 150}')),
    ("args not an object", req([1], "[1]"), req_text("[1]")),
    ("args null", req(None, "null"), req_text("null")),
    ("agent not a string", {"agent": 1, "tool": "t"}, '{"agent": 1, "tool": "t"}'),
    ("tool missing", {"agent": "a"}, '{"agent": "a"}'),
    ("bad permissions", {"agent": "a", "tool": "t", "permissions": ["fs:read", 3]}, '{"agent": "a", "tool": "t", "permissions": ["fs:read", 3]}'),
    ("bad value under an unknown key", {"agent": "a", "tool": "t", "other": float("nan")}, '{"agent": "a", "tool": "t", "other": NaN}'),
    ("unknown key ignored", {"agent": "a", "tool": "t", "other": [1, {"k": 2}], "args": {"n": 100}}, '{"agent": "a", "tool": "t", "other": [1, {"k": 2}], "args": {"n": 100}}'),
    ("not an object", [1, 2], "[1, 2]"),
    ("unknown agent", {"agent": "zz", "tool": "t"}, '{"agent": "zz", "tool": "t"}'),
    ("server null", {"agent": "b", "tool": "u", "server": None}, '{"agent": "b", "tool": "u", "server": null}'),
    ("tool_use_id echoed", {"agent": "b", "tool": "u", "tool_use_id": "toolu_9"}, '{"agent": "b", "tool": "u", "tool_use_id": "toolu_9"}'),
    ("tool_use_id mistyped", {"agent": "b", "tool": "u", "tool_use_id": 9}, '{"agent": "b", "tool": "u", "tool_use_id": 9}'),
]


def comparable(d: dict) -> dict:
    """A bad request's message says what is wrong in each interface's own terms (a JSON
    parse error against a Python type); every other field, and every other decision, must
    be identical."""
    d = dict(d)
    if d["reason"] == "bad_request" and d["message"].startswith("bad request: invalid JSON"):
        d.pop("message")
        d.pop("tool_use_id")
    return d


def test_python_and_cli_decide_alike(cli: Path, engine: toolgate.Engine, policy_file: Path):
    answers = cli_eval(cli, policy_file, [text for _, _, text in CASES])
    for (name, request, _), want in zip(CASES, answers):
        got = engine.decide_request(request).to_dict()
        want_c = comparable(want)
        got_c = {k: v for k, v in got.items() if k in want_c}
        assert got_c == want_c, name
        if want["reason"] == "bad_request" and "message" not in want_c:
            assert got["message"].startswith("bad request: "), name


def test_python_refusals_the_cli_cannot_express(engine: toolgate.Engine):
    """Values with no JSON text at all: each is a bad_request decision naming where it is."""
    recursive: list = []
    recursive.append(recursive)
    cyclic: dict = {}
    cyclic["self"] = cyclic
    cases = {
        "bytes": ({"p": b"/srv/x"}, "`args.p` is a `bytes`"),
        "bytearray": ({"p": bytearray(b"x")}, "`args.p` is a `bytearray`"),
        "set": ({"x": {1, 2}}, "`args.x` is a `set`"),
        "frozenset": ({"x": frozenset()}, "`args.x` is a `frozenset`"),
        "object": ({"x": [0, object()]}, "`args.x[1]` is a `object`"),
        "complex": ({"n": 1j}, "`args.n` is a `complex`"),
        "int key": ({"x": {1: "a"}}, "`args.x` has a key of type `int`"),
        "tuple key": ({"x": {(1,): "a"}}, "`args.x` has a key of type `tuple`"),
        "recursive list": ({"x": recursive}, "nests deeper than 127 levels"),
        "recursive dict": ({"x": cyclic}, "nests deeper than 127 levels"),
        "lambda": ({"x": lambda: 1}, "`args.x` is a `function`"),
    }
    for name, (args, message) in cases.items():
        for d in (engine.decide("a", "t", args, tool_use_id="toolu_1"),
                  engine.decide_request({"agent": "a", "tool": "t", "args": args, "tool_use_id": "toolu_1"})):
            assert (d.decision, d.reason) == ("deny", "bad_request"), name
            assert message in d.message, (name, d.message)
            assert d.tool_use_id == "toolu_1", name
            assert d.policy_hash == engine.policy_hash


def test_duplicate_keys_by_text_are_refused(engine: toolgate.Engine):
    class Key(str):
        """Equal text, different hash: a dict can hold both."""

        def __hash__(self) -> int:
            return id(self)

        def __eq__(self, other: object) -> bool:
            return self is other

    d = engine.decide("a", "t", {Key("n"): 150, Key("n"): 1})
    assert d.reason == "bad_request" and "has the key `n` twice" in d.message


def test_decide_keywords_build_the_same_request(engine: toolgate.Engine):
    for args in ({"n": 150}, {"p": "/srv/rm -rf"}, {"n": 1}, {}):
        assert engine.decide("a", "t", args, tool_use_id="x").to_dict() == \
            engine.decide_request({"agent": "a", "tool": "t", "args": args, "tool_use_id": "x"}).to_dict()
    assert engine.decide("b", "u", server=None).to_dict() == engine.decide_request({"agent": "b", "tool": "u"}).to_dict()


def test_mistyped_decide_arguments_are_bad_requests_with_the_cli_message(engine: toolgate.Engine):
    assert engine.decide(1, "t").message == "bad request: `agent` must be a string"  # type: ignore[arg-type]
    assert engine.decide("a", None).message == "bad request: `tool` must be a string"  # type: ignore[arg-type]
    assert engine.decide("a", "t", [1]).message == "bad request: `args` must be an object"  # type: ignore[arg-type]
    assert engine.decide("a", "t", server=3).message == "bad request: `server` must be a string"  # type: ignore[arg-type]
    d = engine.decide("a", "t", permissions=["fs:read", 1])  # type: ignore[list-item]
    assert d.message == "bad request: `permissions` must be an array of strings"
    d = engine.decide("a", "t", permissions={"fs:read"})  # type: ignore[arg-type]
    assert d.reason == "bad_request" and "`permissions` is a `set`" in d.message


def test_permissions_for_catalogless_policies():
    engine = toolgate.Engine.from_source("agent a { grant fs:read\n allow t }")
    assert engine.decide("a", "t", permissions=["fs:read"]).allowed
    d = engine.decide("a", "t", permissions=("fs:write",))
    assert (d.reason, d.permission) == ("permission_missing", "fs:write")


def test_top_level_keys_are_checked_like_any_object(engine: toolgate.Engine):
    class Key(str):
        def __hash__(self) -> int:
            return id(self)

        def __eq__(self, other: object) -> bool:
            return self is other

    d = engine.decide_request({"agent": "a", "tool": "t", 7: "x", "tool_use_id": "toolu_3"})
    assert d.reason == "bad_request" and "the request has a key of type `int`" in d.message
    assert d.tool_use_id == "toolu_3"
    d = engine.decide_request({"agent": "a", Key("tool"): "t", Key("tool"): "num"})
    assert d.reason == "bad_request" and "has the key `tool` twice" in d.message
    d = engine.decide_request({"agent": "a", "tool": "t", Key("x"): 1, Key("x"): 2})
    assert d.reason == "bad_request" and "has the key `x` twice" in d.message
    d = engine.decide_request({"agent": "a", "tool": "t", "extra": {"deep": {1, 2}}})
    assert d.reason == "bad_request" and "`extra.deep` is a `set`" in d.message
    assert engine.decide_request({"agent": "a", "tool": "t", "extra": {"ok": [1]}}).allowed
