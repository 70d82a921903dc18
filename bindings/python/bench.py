"""Decisions per second from Python: toolgate (dict in, Decision out) against cedarpy.

The policies are the generated benchmark policies of ``benches/support/generate.rs`` (the
same text, generated here): **wide** = N tools with one ``allow`` rule each (``path matches
"/data/team{i}/**/*.csv"``), **deep** = one tool with N such rules on the same argument; both
with a ``deny`` on a ``command`` substring list. The Cedar policy is the same logical policy
as ``bench-peers/src/lib.rs`` writes it (one ``permit`` per rule with ``like
"/data/team{i}/*.csv"``, one ``forbid`` on ``context.command``), evaluated with
``cedarpy.is_authorized`` on a pre-parsed ``PolicySet`` and ``Entities``. The requests are
those of ``benches/decide.rs``: an allow hit on rule N/2, a deny by the rule, and no match.

Every answer is checked before it is timed. Each cell is the median of several timed runs;
the table gives microseconds per decision. Not run in CI.

    python bindings/python/bench.py                 # N = 10 and 10,000, both layouts
    python bindings/python/bench.py --n 10 100      # other sizes
    python bindings/python/bench.py --threads 4     # also: 4 threads sharing one engine
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import threading
import time
from typing import Any, Callable, Dict, List, Tuple

import toolgate

DENY_SUBSTRINGS = ["rm -rf", "mkfs", "sudo "]


def wide(n: int) -> str:
    """`generate::wide(n)` of benches/support/generate.rs."""
    s = "".join(f"tool t{i}(path, command?) needs fs:read\n" for i in range(n))
    s += "agent bench {\n  grant fs:*\n"
    s += "".join(f'  allow t{i} where path matches "/data/team{i}/**/*.csv"\n' for i in range(n))
    s += '  deny * where command contains any ["rm -rf", "mkfs", "sudo "]\n}\n'
    return s


def deep(n: int) -> str:
    """`generate::deep(n)` of benches/support/generate.rs."""
    s = "tool t0(path, command?) needs fs:read\nagent bench {\n  grant fs:*\n"
    s += "".join(f'  allow t0 where path matches "/data/team{i}/**/*.csv"\n' for i in range(n))
    s += '  deny t0 where command contains any ["rm -rf", "mkfs", "sudo "]\n}\n'
    return s


def cedar_source(layout: str, n: int) -> str:
    """The same logical policy in Cedar (bench-peers/src/lib.rs, `cedar::source`)."""
    out = []
    for i in range(n):
        tool = f"t{i}" if layout == "wide" else "t0"
        out.append(
            f'permit(principal == Agent::"bench", action == Action::"call", resource == Tool::"{tool}")\n'
            f'  when {{ context.path like "/data/team{i}/*.csv" }};\n'
        )
    resource = "resource" if layout == "wide" else 'resource == Tool::"t0"'
    alts = " || ".join(f'context.command like "*{s}*"' for s in DENY_SUBSTRINGS)
    out.append(
        f'forbid(principal == Agent::"bench", action == Action::"call", {resource})\n'
        f"  when {{ context has command && ({alts}) }};\n"
    )
    return "".join(out)


def requests(layout: str, n: int) -> List[Tuple[str, Dict[str, Any], str]]:
    """(outcome, args, expected toolgate reason), as `requests()` in benches/decide.rs."""
    hit = n // 2
    return [
        ("allow", {"path": f"/data/team{hit}/q3/report.csv"}, "allowed_by_rule"),
        ("deny", {"path": f"/data/team{hit}/x.csv", "command": "sudo rm -rf /"}, "denied_by_rule"),
        ("nomatch", {"path": "/data/other/report.csv"}, "no_matching_rule"),
    ]


def per_call_us(fn: Callable[[], Any], budget_s: float, runs: int) -> float:
    """Median over `runs` timed loops of microseconds per call; each loop is sized from a
    calibration call to take about `budget_s / runs`."""
    t0 = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t0, 1e-7)
    iters = max(1, int(budget_s / runs / once))
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        samples.append((time.perf_counter() - t0) / iters * 1e6)
    return statistics.median(samples)


def threaded_us(fn: Callable[[], Any], threads: int, iters: int) -> float:
    """Wall-clock microseconds per call when `threads` threads each make `iters` calls."""
    barrier = threading.Barrier(threads + 1)

    def work() -> None:
        barrier.wait()
        for _ in range(iters):
            fn()

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    t0 = time.perf_counter()
    barrier.wait()
    for t in pool:
        t.join()
    return (time.perf_counter() - t0) / (threads * iters) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[10, 10_000])
    ap.add_argument("--runs", type=int, default=7, help="timed loops per cell (median)")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds per toolgate cell")
    ap.add_argument("--cedar-budget", type=float, default=3.0, help="seconds per cedarpy cell")
    ap.add_argument("--threads", type=int, default=0, help="also time T threads on one engine")
    ap.add_argument("--no-cedar", action="store_true")
    opts = ap.parse_args()

    cedarpy: Any = None
    if not opts.no_cedar:
        import cedarpy  # noqa: F811

    print(f"# machine: {platform.machine()}, {os.cpu_count()} cpus, load average {os.getloadavg()[0]:.1f}, "
          f"Python {platform.python_version()}")
    probe = toolgate.Engine.from_source(wide(10), "bench.policy")
    baseline = per_call_us(lambda: probe.policy_hash, opts.budget, opts.runs)
    print(f"# baseline: reading `engine.policy_hash` (one attribute of a native object) takes {baseline:.3f} µs")
    header = "| layout | outcome | N | toolgate decide_request (µs) | toolgate decide (µs) | cedarpy (µs) | cedarpy / toolgate |"
    if opts.threads:
        header += f" toolgate, {opts.threads} threads (µs per call, wall) |"
    print(header)
    print("|" + " --- |" * (header.count("|") - 1))
    for layout in ("wide", "deep"):
        for n in opts.n:
            engine = toolgate.Engine.from_source(wide(n) if layout == "wide" else deep(n), "bench.policy")
            policies = entities = None
            if cedarpy is not None:
                policies = cedarpy.PolicySet.from_str(cedar_source(layout, n))
                entities = cedarpy.Entities.from_json_str("[]")
            for outcome, args, reason in requests(layout, n):
                tool = f"t{n // 2}" if layout == "wide" else "t0"
                request = {"agent": "bench", "tool": tool, "args": args}
                got = engine.decide_request(request)
                assert got.reason == reason, (layout, n, outcome, got)
                assert engine.decide("bench", tool, args) == got
                tg_req = per_call_us(lambda: engine.decide_request(request), opts.budget, opts.runs)
                tg_dec = per_call_us(lambda: engine.decide("bench", tool, args), opts.budget, opts.runs)
                row = f"| {layout} | {outcome} | {n:,} | {tg_req:.2f} | {tg_dec:.2f} |"
                if cedarpy is not None:
                    creq = {"principal": 'Agent::"bench"', "action": 'Action::"call"',
                            "resource": f'Tool::"{tool}"', "context": args}
                    answer = cedarpy.is_authorized(creq, policies, entities)
                    want = cedarpy.Decision.Allow if outcome == "allow" else cedarpy.Decision.Deny
                    assert answer.decision == want, (layout, n, outcome, answer)
                    ced = per_call_us(lambda: cedarpy.is_authorized(creq, policies, entities),
                                      opts.cedar_budget, opts.runs if n <= 1000 else 3)
                    row += f" {ced:,.1f} | {ced / tg_req:,.0f}x |"
                else:
                    row += " - | - |"
                if opts.threads:
                    iters = max(1, int(opts.budget / max(tg_req, 0.01) * 1e6 / opts.threads))
                    par = statistics.median(
                        threaded_us(lambda: engine.decide_request(request), opts.threads, iters)
                        for _ in range(3))
                    row += f" {par:.2f} |"
                print(row, flush=True)


if __name__ == "__main__":
    main()
