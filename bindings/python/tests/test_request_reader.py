"""Requests given as Python values are read by the library's request reader: the CLI's size
and depth limits, its answer on every field for odd keys, sizes and depths, and no user code
run while a value is read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

import toolgate
from conftest import cli_eval

MAX_REQUEST_BYTES = 1 << 20

POLICY = """
tool num(n)
tool big(n)
tool path(p)
tool t(x?, n?)
agent a {
  allow num  where n >= 100
  allow big  where n < 1000
  allow path where p matches "/srv/**"
  allow t
}
"""


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("reader") / "reader.policy"
    path.write_text(POLICY)
    return path


@pytest.fixture(scope="module")
def engine(policy_file: Path) -> toolgate.Engine:
    return toolgate.Engine.load(policy_file)


def compact(request: Any) -> str:
    """The request as the compact JSON text the size limit counts."""
    return json.dumps(request, separators=(",", ":"), ensure_ascii=False, allow_nan=True)


def nested(levels: int) -> Any:
    v: Any = 1
    for _ in range(levels):
        v = [v]
    return v


def deep_object(levels: int) -> Any:
    v: Any = 1
    for i in range(levels):
        v = {f"k{i % 3}": v}
    return v


def depth(v: Any) -> int:
    """Levels of lists and dicts, `v` included."""
    if isinstance(v, dict):
        return 1 + max((depth(x) for x in v.values()), default=0)
    if isinstance(v, list):
        return 1 + max((depth(x) for x in v), default=0)
    return 0


def same_as_cli(cli: Path, policy_file: Path, engine: toolgate.Engine, requests: List[Dict[str, Any]]) -> None:
    """Every request gets the CLI's decision for its JSON text, message included (a refusal
    is worded by the library for every host), through `decide_request` and, where the request
    is made of `decide`'s fields, through `decide` too."""
    answers = cli_eval(cli, policy_file, [compact(r) for r in requests])
    fields = {"agent", "tool", "args", "server", "tool_use_id", "permissions"}
    for request, want in zip(requests, answers):
        got = engine.decide_request(request).to_dict()
        assert got == want, request
        if {"agent", "tool"} <= request.keys() and request.keys() <= fields:
            kwargs = {k: v for k, v in request.items() if k not in ("agent", "tool", "args")}
            if "args" in request and request["args"] is None:
                continue  # `decide(args=None)` means no arguments, unlike `"args": null`
            got = engine.decide(request["agent"], request["tool"], request.get("args"), **kwargs).to_dict()
            assert got == want, ("decide", request)


ODD_KEYS = ["", "a.b", "a b", "new\nline", "quote\"", "back\\slash", "é", "😀", "\x00", "[0]", "-_09"]


def test_odd_keys_on_every_field(cli: Path, policy_file: Path, engine: toolgate.Engine):
    requests: List[Dict[str, Any]] = []
    for key in ODD_KEYS:
        requests.append({"agent": "a", "tool": "t", "args": {key: 1, "x": {key: [key]}}})
        requests.append({"agent": "a", "tool": "t", key: {key: None}})
        for field in ("args", "agent", "tool", "server", "tool_use_id", "permissions"):
            request: Dict[str, Any] = {"agent": "a", "tool": "t", "tool_use_id": "toolu_k"}
            request[field] = {key: float("nan")}
            requests.append(request)
            request = {"agent": "a", "tool": "t", "tool_use_id": "toolu_k"}
            request[field] = {"x": [{key: float("inf")}]}
            requests.append(request)
    # A refused value's path, with the library's quoting, in `decide_request` and in `decide`.
    d = engine.decide_request({"agent": "a", "tool": "t", "args": {"a.b": {"": [0, float("nan")]}}})
    assert d.message == 'bad request: `args["a.b"][""][1]` is NaN, which is not a JSON number'
    answers = [engine.decide_request(r).to_dict() for r in requests]
    cli_answers = cli_eval(cli, policy_file, [compact(r) for r in requests])
    for request, got, want in zip(requests, answers, cli_answers):
        if want["reason"] == "bad_request" and want["message"].startswith("bad request: invalid JSON"):
            # JSON text cannot hold NaN: the CLI refuses the text (so it has no id to echo),
            # the reader the value, and the request's id, read first, is echoed.
            id = request["tool_use_id"] if isinstance(request["tool_use_id"], str) else None
            assert got["reason"] == "bad_request" and got["tool_use_id"] == id, request
            assert "which is not a JSON number" in got["message"], request
        else:
            assert got == want, request


def test_depths_on_every_field(cli: Path, policy_file: Path, engine: toolgate.Engine):
    limit = toolgate.MAX_DEPTH
    assert limit == 127
    requests: List[Dict[str, Any]] = []
    for field in ("args", "agent", "tool", "server", "tool_use_id", "permissions", "meta"):
        for levels in (limit - 2, limit - 1, limit):
            for value in (nested(levels), deep_object(levels)):
                request: Dict[str, Any] = {"agent": "a", "tool": "t", "tool_use_id": "toolu_d"}
                request[field] = {"x": value} if field == "args" else value
                requests.append(request)
    deepest = [r for r in requests if depth(r) > limit]
    same_as_cli(cli, policy_file, engine, [r for r in requests if depth(r) <= limit])
    # Over the limit the CLI's parser stops at the text's depth ("invalid JSON: recursion limit
    # exceeded", no id); the reader names the value, and echoes the id it read first.
    assert len(deepest) == 16
    cli_answers = cli_eval(cli, policy_file, [compact(r) for r in deepest])
    for request, want in zip(deepest, cli_answers):
        for d in (engine.decide_request(request).to_dict(),):
            assert (d["reason"], want["reason"]) == ("bad_request", "bad_request"), request
            assert "nests deeper than 127 levels" in d["message"], request
            id = request["tool_use_id"] if isinstance(request["tool_use_id"], str) else None
            assert d["tool_use_id"] == id
    over = engine.decide_request({"agent": "a", "tool": "t", "meta": nested(limit)})
    assert over.reason == "bad_request"
    assert over.message.startswith("bad request: `meta[0][0][0][0][0]...[0][0][0] (127 levels deep)` nests deeper than 127")


def padded(request: Dict[str, Any], size: int, unit: str) -> Dict[str, Any]:
    """`request` with `args.p` grown by repeats of `unit` (and ASCII) to `size` bytes as
    compact JSON."""
    request = json.loads(json.dumps(request))
    base = len(compact(request).encode())
    unit_size = len(compact(unit).encode()) - 2
    count = (size - base) // unit_size
    request["args"]["p"] += unit * count
    request["args"]["p"] += "x" * (size - len(compact(request).encode()))
    assert len(compact(request).encode()) == size
    return request


@pytest.mark.parametrize("unit", ["é", "\n", "\x01", "\"", "\\", "😀", "a"])
def test_size_limit_counts_json_text(cli: Path, policy_file: Path, engine: toolgate.Engine, unit: str):
    base = {"agent": "a", "tool": "path", "args": {"p": "/srv/"}, "tool_use_id": "toolu_s"}
    under = padded(base, MAX_REQUEST_BYTES, unit)
    over = padded(base, MAX_REQUEST_BYTES + 1, unit)
    assert engine.decide_request(under).allowed
    d = engine.decide_request(over)
    assert (d.reason, d.tool_use_id) == ("bad_request", "toolu_s")
    assert d.message == f"bad request: request is larger than the {MAX_REQUEST_BYTES}-byte limit as JSON"
    assert engine.decide("a", "path", under["args"], tool_use_id="toolu_s").allowed
    assert engine.decide("a", "path", over["args"], tool_use_id="toolu_s").to_dict() == d.to_dict()
    # The CLI: the same line is decided, one byte more is refused.
    cli_under, cli_over = cli_eval(cli, policy_file, [compact(under), compact(over)])
    assert cli_under["decision"] == "allow"
    assert (cli_over["reason"], d.reason) == ("bad_request", "bad_request")


def test_size_counts_every_field_and_unknown_keys(engine: toolgate.Engine):
    big = "x" * MAX_REQUEST_BYTES
    for field in ("agent", "tool", "server", "tool_use_id", "meta"):
        d = engine.decide_request({"agent": "a", "tool": "t", field: big})
        assert d.reason == "bad_request" and "byte limit" in d.message, field
    d = engine.decide("a", "t", permissions=["p"] * (MAX_REQUEST_BYTES // 4))
    assert d.reason == "bad_request" and "byte limit" in d.message
    d = engine.decide("a", "t", {"n": [2**64 - 1] * (MAX_REQUEST_BYTES // 20)})
    assert d.reason == "bad_request" and "byte limit" in d.message
    d = engine.decide("a", "t", {"n": [2**64 - 1] * (MAX_REQUEST_BYTES // 22)})
    assert d.allowed


class Calls:
    """Records every user method called while a request is read."""

    log: List[str] = []


class LyingInt(int):
    def __float__(self) -> float:
        Calls.log.append("__float__")
        return 1.0

    def __index__(self) -> int:
        Calls.log.append("__index__")
        return 1

    def __int__(self) -> int:
        Calls.log.append("__int__")
        return 1


class MutatingInt(int):
    target: Dict[str, Any] = {}

    def __float__(self) -> float:
        Calls.log.append("__float__")
        self.target.clear()
        self.target.update({f"k{i}": i for i in range(50)})
        return 1.0

    def __index__(self) -> int:
        Calls.log.append("__index__")
        self.target.clear()
        return 1


class LoudStr(str):
    def __eq__(self, other: object) -> bool:
        Calls.log.append("__eq__")
        return str.__eq__(self, other)

    def __hash__(self) -> int:
        Calls.log.append("__hash__")
        return str.__hash__(self)

    def __str__(self) -> str:
        Calls.log.append("__str__")
        return "lie"


class LoudDict(dict):  # type: ignore[type-arg]
    def items(self) -> Any:
        Calls.log.append("items")
        return {}.items()

    def __iter__(self) -> Any:
        Calls.log.append("__iter__")
        return iter(())

    def keys(self) -> Any:
        Calls.log.append("keys")
        return {}.keys()

    def __getitem__(self, key: Any) -> Any:
        Calls.log.append("__getitem__")
        return None

    def __len__(self) -> int:
        Calls.log.append("__len__")
        return 0


class LoudList(list):  # type: ignore[type-arg]
    def __iter__(self) -> Any:
        Calls.log.append("__iter__")
        return iter(())

    def __getitem__(self, i: Any) -> Any:
        Calls.log.append("__getitem__")
        return None

    def __len__(self) -> int:
        Calls.log.append("__len__")
        return 0


class LoudFloat(float):
    def __float__(self) -> float:
        Calls.log.append("__float__")
        return 1.0


def test_int_subclass_is_read_by_its_value_not_its_methods(cli: Path, policy_file: Path, engine: toolgate.Engine):
    """`big` allows n < 1000: 2^64 is denied by the CLI; the subclass's `__float__` says 1.0."""
    Calls.log = []
    cases = [
        (LyingInt(2**64), "18446744073709551616"),
        (LyingInt(2**64 + 1), "18446744073709551617"),
        (LyingInt(2**64 - 1), "18446744073709551615"),
        (LyingInt(2**63), "9223372036854775808"),
        (LyingInt(-(2**63) - 1), "-9223372036854775809"),
        (LyingInt(2**64 + 2**11), str(2**64 + 2**11)),
        (LyingInt(10**308), "1" + "0" * 308),
        (LyingInt(10**309), "1" + "0" * 309),
        (LyingInt(-(10**309)), "-1" + "0" * 309),
        (LyingInt(5), "5"),
    ]
    lines = ['{"agent": "a", "tool": "big", "args": {"n": ' + text + "}}" for _, text in cases]
    answers = cli_eval(cli, policy_file, lines)
    for (value, text), want in zip(cases, answers):
        got = engine.decide("a", "big", {"n": value}).to_dict()
        if want["reason"] == "bad_request":
            # Beyond f64: the CLI's parser and the reader both refuse it, each in its words.
            assert got["reason"] == "bad_request", text
            assert got["message"] == "bad request: `args.n` is an integer beyond the range of a JSON number (f64)"
        else:
            assert got == want, text
    assert answers[0]["decision"] == "deny"
    assert Calls.log == []


def test_user_code_that_mutates_the_request_never_runs(cli: Path, policy_file: Path, engine: toolgate.Engine):
    Calls.log = []
    args: Dict[str, Any] = {"a": 1, "n": MutatingInt(2**64), "z": [MutatingInt(2**70)]}
    MutatingInt.target = args
    before = dict(args)
    want = cli_eval(cli, policy_file, ['{"agent": "a", "tool": "big", "args": {"a": 1, "n": 18446744073709551616, "z": [1180591620717411303424]}}'])[0]
    for d in (engine.decide("a", "big", args), engine.decide_request({"agent": "a", "tool": "big", "args": args})):
        assert d.to_dict() == want
    assert args == before
    assert Calls.log == []


def test_subclasses_are_read_from_their_own_storage(engine: toolgate.Engine):
    args = LoudDict({LoudStr("n"): LoudFloat(150.0), "x": LoudList([LoudStr("s"), 2])})
    request = LoudDict({LoudStr("agent"): LoudStr("a"), "tool": "num", "args": args})
    Calls.log = []  # building the dicts hashed their keys
    plain = {"agent": "a", "tool": "num", "args": {"n": 150.0, "x": ["s", 2]}}
    want = engine.decide_request(plain).to_dict()
    assert want["decision"] == "allow"
    assert engine.decide_request(request).to_dict() == want
    assert engine.decide(LoudStr("a"), LoudStr("num"), args).to_dict() == want
    assert Calls.log == []


def test_refused_values_carry_the_library_wording(engine: toolgate.Engine):
    d = engine.decide_request({"tool_use_id": "toolu_w", "agent": "a", "tool": "t", "args": {"x": [1, {2: 3}]}})
    assert d.message == "bad request: `args.x[1]` has a key of type `int`; JSON object keys are strings"
    assert d.tool_use_id == "toolu_w"
    d = engine.decide("a", "t", {"x": {"\udc80": 1}})
    assert d.message == "bad request: `args.x` has a key with a lone surrogate, which is not valid Unicode"
    d = engine.decide("a", "t", {"x": "\udc80"})
    assert d.message == "bad request: `args.x` is a string with a lone surrogate, which is not valid Unicode"
    d = engine.decide_request({"agent": "a", "tool": "t", "args": {"n": float("-inf")}})
    assert d.message == "bad request: `args.n` is -Infinity, which is not a JSON number"
    d = engine.decide_request("not a dict")
    assert d.message == "bad request: a request must be a JSON object"
