"""End to end against a tiny real upstream (tiny_upstream.py, the PyPI `mcp` MCPServer): the
`other_methods = "pass"` relay, the per-call timeout, the per-agent concurrency limit, and a
Streamable HTTP upstream."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from conftest import Gateway, free_port, start_gateway, stop
from test_gateway import MODES, client, text

TINY = Path(__file__).resolve().parent / "tiny_upstream.py"

POLICY = """server tiny {
  tool echo(text: string)
  tool slow(seconds: number)
}
agent tester {
  allow tiny.echo
  allow tiny.slow
}
"""


def stdio_upstream() -> str:
    return f"[upstream.tiny]\ncommand = {json.dumps([sys.executable, str(TINY)])}\n"


@pytest.fixture
def relay(tmp_path: Path):
    gw = start_gateway(tmp_path, POLICY, ("tester",), 'other_methods = "pass"\n' + stdio_upstream(), ("tiny",))
    yield gw
    stop(gw.proc)


@pytest.fixture
def limited(tmp_path: Path):
    tail = "[limits]\ncall_timeout_ms = 700\nmax_concurrent_calls_per_agent = 2\n" + stdio_upstream()
    gw = start_gateway(tmp_path, POLICY, ("tester",), tail, ("tiny",))
    yield gw
    stop(gw.proc)


@pytest.mark.parametrize("mode", list(MODES))
async def test_resources_and_prompts_are_relayed_with_other_methods_pass(relay: Gateway, mode: str):
    async with client(relay, "tester", mode) as c:
        resources = (await c.list_resources()).resources
        assert [str(r.uri) for r in resources] == ["note://greeting"]
        read = await c.read_resource("note://greeting")
        assert [getattr(x, "text", None) for x in read.contents] == ["hello from the tiny upstream"]
        with pytest.raises(MCPError):
            await c.read_resource("note://nothing-here")
        prompts = (await c.list_prompts()).prompts
        assert [p.name for p in prompts] == ["review"]
        got = await c.get_prompt("review", {"topic": "the gateway"})
        assert [m.content.text for m in got.messages] == ["Please review the gateway."]
        with pytest.raises(MCPError):
            await c.get_prompt("no_such_prompt", {})


@pytest.mark.parametrize("mode", list(MODES))
async def test_other_methods_are_refused_by_default(limited: Gateway, mode: str):
    async with client(limited, "tester", mode) as c:
        for call in (c.list_resources(), c.list_prompts()):
            with pytest.raises(MCPError) as exc:
                await call
            assert exc.value.error.code == -32601


@pytest.mark.parametrize("mode", list(MODES))
async def test_a_call_past_the_timeout_is_an_error_result_and_the_gateway_keeps_serving(limited: Gateway, mode: str):
    async with client(limited, "tester", mode) as c:
        t0 = time.monotonic()
        r = await c.call_tool("slow", {"seconds": 5})
        assert time.monotonic() - t0 < 4
        assert r.is_error and text(r) == "server `tiny` did not answer within 700 ms"
        line = limited.decisions()[-1]
        assert (line["tool"], line["decision"], line["gateway_error"], line["is_error"]) == ("slow", "allow", "upstream_timeout", True)
        r = await c.call_tool("echo", {"text": "still here"})
        assert not r.is_error and text(r) == "still here"
        r = await c.call_tool("slow", {"seconds": 0.01})
        assert not r.is_error, text(r)
    assert limited.proc.poll() is None


async def test_calls_over_the_per_agent_limit_get_the_documented_error(limited: Gateway):
    results: list = [None] * 5
    async with client(limited, "tester", "2026-07-28") as c:
        async def one(i: int) -> None:
            results[i] = await c.call_tool("slow", {"seconds": 0.5})

        async with anyio.create_task_group() as tg:
            for i in range(5):
                tg.start_soon(one, i)
        refused = [r for r in results if r.is_error]
        served = [r for r in results if not r.is_error]
        assert len(served) == 2 and len(refused) == 3, [text(r) for r in results]
        assert {text(r) for r in refused} == {
            "too many calls in flight for this agent (the limit is 2); retry when one has finished"
        }
        gated = [l for l in limited.decisions() if l.get("gateway_error") == "concurrency_limit"]
        assert len(gated) == 3
        # The permits come back: the next call is served.
        r = await c.call_tool("echo", {"text": "after"})
        assert not r.is_error and text(r) == "after"


@pytest.fixture
def http_upstream(tmp_path: Path):
    port = free_port()
    log = open(tmp_path / "upstream.log", "w")
    proc = subprocess.Popen([sys.executable, str(TINY), "http", str(port)], stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx2.get(url, timeout=1)
            break
        except httpx2.HTTPError:
            if time.monotonic() > deadline or proc.poll() is not None:
                stop(proc)
                raise AssertionError((tmp_path / "upstream.log").read_text())
            time.sleep(0.1)
    yield url, proc
    stop(proc)
    log.close()


@pytest.mark.parametrize("mode", list(MODES))
async def test_a_streamable_http_upstream_on_loopback(tmp_path: Path, http_upstream, mode: str):
    url, upstream = http_upstream
    gw = start_gateway(tmp_path, POLICY, ("tester",), f'other_methods = "pass"\n[upstream.tiny]\nurl = "{url}"\n', ("tiny",))
    try:
        started = gw.events("upstream_started")[-1]
        assert started["server"] == "tiny" and started["pid"] is None and started["tools"] == 2
        async with client(gw, "tester", mode) as c:
            assert {t.name for t in (await c.list_tools()).tools} == {"echo", "slow"}
            r = await c.call_tool("echo", {"text": "over http"})
            assert not r.is_error and text(r) == "over http"
            r = await c.call_tool("echo", {"text": 5})
            assert r.is_error  # typed `text: string`: refused before it is forwarded
            assert gw.decisions()[-1]["reason"] == "invalid_argument"
            read = await c.read_resource("note://greeting")
            assert read.contents[0].text == "hello from the tiny upstream"
    finally:
        stop(gw.proc)


@pytest.fixture
def https_upstream(tmp_path: Path):
    """The tiny upstream over TLS on loopback, its certificate issued by a CA made here."""
    import trustme

    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    chain, key, ca_file = tmp_path / "upstream-chain.pem", tmp_path / "upstream-key.pem", tmp_path / "ca.pem"
    cert.private_key_pem.write_to_path(str(key))
    with open(chain, "wb") as f:
        for blob in cert.cert_chain_pems:
            f.write(blob.bytes())
    ca.cert_pem.write_to_path(str(ca_file))
    port = free_port()
    log = open(tmp_path / "upstream.log", "w")
    proc = subprocess.Popen([sys.executable, str(TINY), "https", str(port), str(chain), str(key)], stdout=log, stderr=log)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                stop(proc)
                raise AssertionError((tmp_path / "upstream.log").read_text())
            time.sleep(0.1)
    yield f"https://127.0.0.1:{port}/mcp", ca_file
    stop(proc)
    log.close()


@pytest.mark.parametrize("mode", list(MODES))
async def test_an_https_upstream_with_a_private_ca(tmp_path: Path, https_upstream, mode: str):
    url, ca_file = https_upstream
    tail = f'[upstream.tiny]\nurl = "{url}"\nca_file = "{ca_file.name}"\n'
    gw = start_gateway(tmp_path, POLICY, ("tester",), tail, ("tiny",))
    try:
        started = gw.events("upstream_started")[-1]
        assert started["server"] == "tiny" and started["tools"] == 2
        async with client(gw, "tester", mode) as c:
            assert {t.name for t in (await c.list_tools()).tools} == {"echo", "slow"}
            r = await c.call_tool("echo", {"text": "over https"})
            assert not r.is_error and text(r) == "over https"
        line = gw.decisions()[-1]
        assert (line["tool"], line["decision"], line["is_error"]) == ("echo", "allow", False)
        assert line["upstream_us"] > 0
    finally:
        stop(gw.proc)


async def test_an_untrusted_https_upstream_fails_with_a_clear_error(tmp_path: Path, https_upstream):
    url, _ = https_upstream
    t0 = time.monotonic()
    gw = start_gateway(tmp_path, POLICY, ("tester",), f'[upstream.tiny]\nurl = "{url}"\n', ())
    try:
        failed = gw.wait_event("upstream_failed", server="tiny", timeout=20)
        assert time.monotonic() - t0 < 20
        assert "certificate" in failed["error"] and "UnknownIssuer" in failed["error"], failed["error"]
        assert not gw.events("upstream_started")
        # The gateway keeps serving; the upstream's tools are not listed and calls say so.
        assert httpx2.get(f"{gw.base}/healthz", timeout=5).json()["ok"] is True
        async with client(gw, "tester", "2026-07-28") as c:
            assert (await c.list_tools()).tools == []
    finally:
        stop(gw.proc)
