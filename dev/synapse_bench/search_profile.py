"""Where an MCP ``search`` round trip goes: transport, dispatch, freshness checks, the index query, the rest.

On a prepared workspace (a synthetic 1k/10k one with a warm index cache) it measures, in one process and
with the model loaded once, the tool call as the server runs it (``Dispatcher.call``: validation, the worker
thread, the action, the JSON payload) and, inside it, each part on its own:

- **freshness**: the check a server makes before touching its stores, counted per call and timed. It runs
  twice: ``scan`` is a full fingerprint of every store file at every check (the behaviour before the watch,
  and the fallback where inotify is missing), ``watch`` reads the inotify queue;
- **index**: ``HybridIndex.search`` alone (both channels, the query embedding, RRF);
- **other**: what is left (scoping, hit records, payload, thread hand-off).

``--stdio`` adds the same search over real stdio to the installed ``synapse serve`` (server_bench), so the
transport's share shows as the difference. Run:
``python -m dev.synapse_bench.search_profile --root WS [--repeat 30] [--stdio] [--json]``. Figures only;
no test asserts them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

QUERIES = ("transaction costs", "volatility target", "why did the Sharpe ratio fall", "skip month", "turnover")


def _p50(values: list[float]) -> float:
    return statistics.median(values) * 1000 if values else float("nan")


def profile_mode(root: Path, embedder: Any, *, watch: bool, repeat: int) -> dict[str, Any]:
    """Per-call figures for one freshness mode (``watch`` False: a full scan at every check)."""
    from synapse_server.actions.deps import Deps, ServerSettings
    from synapse_server.mcp.dispatch import Dispatcher
    from synapse_server.workspace import freshness as freshness_module

    deps = Deps(ServerSettings(root=root, prespawn=False), embedder=embedder, watch=watch)
    dispatcher = Dispatcher(deps)
    checks: list[float] = []
    real_current: Callable[[Any], bool] = freshness_module.Freshness.current

    def timed_current(self: Any) -> bool:
        start = time.perf_counter()
        try:
            return real_current(self)
        finally:
            checks.append(time.perf_counter() - start)

    freshness_module.Freshness.current = timed_current  # type: ignore[method-assign]
    try:

        async def one(query: str) -> float:
            start = time.perf_counter()
            outcome = await dispatcher.call({"action": "search", "query": query})
            if outcome.is_error:
                raise RuntimeError(f"search failed: {outcome.payload}")
            return time.perf_counter() - start

        async def session() -> tuple[list[float], list[int], list[float]]:
            """One event loop for every call, as a server has (its worker threads are reused)."""
            for query in QUERIES:  # loads the model, syncs the index, warms every path; not measured
                await one(query)
            calls, per_call_checks, check_times = [], [], []
            for i in range(repeat):
                checks.clear()
                calls.append(await one(QUERIES[i % len(QUERIES)]))
                per_call_checks.append(len(checks))
                check_times.append(sum(checks))
            return calls, per_call_checks, check_times

        calls, per_call_checks, check_times = anyio.run(session)
        index = deps.index()
        index_times = []
        for i in range(repeat):
            start = time.perf_counter()
            index.search(QUERIES[i % len(QUERIES)], 10)
            index_times.append(time.perf_counter() - start)
        single = []
        for _ in range(repeat):
            start = time.perf_counter()
            real_current(deps.freshness)
            single.append(time.perf_counter() - start)
        rescans = deps.freshness.rescans
        watched = deps.freshness.watched
    finally:
        freshness_module.Freshness.current = real_current  # type: ignore[method-assign]
        deps.close()
    call_ms, fresh_ms, index_ms = _p50(calls), _p50(check_times), _p50(index_times)
    return {
        "mode": "watch" if watch else "scan",
        "watched": watched,
        "dispatch_p50_ms": call_ms,
        "dispatch_p95_ms": sorted(calls)[min(len(calls) - 1, int(0.95 * len(calls)))] * 1000,
        "checks_per_call": statistics.median(per_call_checks),
        "one_check_p50_ms": _p50(single),
        "freshness_per_call_p50_ms": fresh_ms,
        "index_search_p50_ms": index_ms,
        "other_p50_ms": call_ms - fresh_ms - index_ms,
        "rescans_after_warmup": rescans,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, required=True, help="a prepared workspace with a warm index cache")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--stdio", action="store_true", help="also time the search over real stdio")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from adapters.index import Embedder

    embedder = Embedder()
    embedder.load()
    root = args.root.resolve()
    result: dict[str, Any] = {"workspace": root.name, "repeat": args.repeat}
    result["modes"] = [profile_mode(root, embedder, watch=w, repeat=args.repeat) for w in (False, True)]
    if args.stdio:
        from dev.synapse_bench.server_bench import search_figures

        result["stdio"] = anyio.run(search_figures, root, max(args.repeat, 20))
    if args.json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
    else:
        for mode in result["modes"]:
            sys.stdout.write(json.dumps(mode) + "\n")
        if "stdio" in result:
            sys.stdout.write(json.dumps(result["stdio"]) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
