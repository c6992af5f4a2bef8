"""The MCP server as a host sees it: start-up, tools/list, and round trips over real stdio on the demo workspace.

It launches the installed ``synapse serve --root DEMO`` (a fresh demo built in
a temporary folder) through the SDK's stdio client, exactly as Claude Code or
Cursor would, and times:

- **start -> tools/list**: process start, ``initialize`` and the first
  ``tools/list`` (what a host waits for before it can show the tool);
- **search**: the first search (it loads the embedding model in the server and,
  with a cold cache, embeds every doc) and the median of the next ones (warm);
- **get**: median round trip;
- **build**: the first generic overlay build (index warm, model loaded by the
  searches before it) and one rebuild, with the links it kept; then the median
  round trip of **connections** (one memory id) and of the whole **matrix**;
- **navigate**: the first turn (it may wait for the worker template's warm-up) and
  the median of the following turns (each in a fresh process forked from the template).

``--navigate N`` times N back-to-back navigate calls through one server instead
(extractive model, fresh demo, or the prepared workspace ``--navigate-root``): the first call (it waits for the template's
warm-up, which also builds the index cache), then p50 / p95 /
max of calls 2..N, beside the cost a turn paid when it had to start a worker
from scratch (a fresh template's start to its first forked turn, measured in the
same run): the ratio is what the warm template saves per turn.

Run ``python -m dev.synapse_bench.server_bench [--repeat 5] [--starts 5] [--warm-cache] [--json] [--navigate 10 [--navigate-root W] [--edits K]]``.
``--warm-cache`` runs one throwaway session first so the index cache exists, as
after a restart. The start figures (start -> tools/list, start -> first search)
are the median of ``--starts`` fresh servers, each started after the full
session, with their spread. Figures are measurements, never asserted by tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from synapse_server.workspace.init import make_demo

SYNAPSE = Path(sys.executable).parent / "synapse"
QUERIES = ("transaction costs", "volatility target", "why did the Sharpe ratio fall", "skip month", "turnover")
QUESTION = "What annualised volatility target do the momentum positions use?"


def server_env() -> dict[str, str]:
    """The environment a host starts the server in, less ``PYTHONDONTWRITEBYTECODE``.

    On a user's machine the first start writes the project's bytecode and every
    later start reads it. With that variable set (some CI images and sandboxes
    set it), every start compiles each edited module again, and the start
    figures would time the compiler instead of the server.
    """
    return {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def serve_params(root: Path, *extra: str) -> StdioServerParameters:
    """``synapse serve --root ROOT [extra]`` as a host launches it."""
    return StdioServerParameters(command=str(SYNAPSE), args=["serve", "--root", str(root), *extra], env=server_env())


async def timed(call: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = await call()
    return time.perf_counter() - start, result


async def session_figures(root: Path, repeat: int) -> dict[str, Any]:
    params = serve_params(root)
    start = time.perf_counter()
    with open(os.devnull, "w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            initialized = time.perf_counter() - start
            await session.list_tools()
            listed = time.perf_counter() - start
            list_again, _ = await timed(session.list_tools)

            def tool(**arguments: Any) -> Callable[[], Awaitable[Any]]:
                return lambda: session.call_tool("synapse", arguments)

            first_search, _ = await timed(tool(action="search", query=QUERIES[0]))
            answered = time.perf_counter() - start
            searches = [(await timed(tool(action="search", query=QUERIES[i % len(QUERIES)])))[0] for i in range(repeat)]
            gets = [(await timed(tool(action="get", id="deci-e17103e8")))[0] for _ in range(repeat)]
            first_build, build = await timed(tool(action="build"))
            rebuild, _ = await timed(tool(action="build"))
            links = [(await timed(tool(action="connections", id="deci-e17103e8")))[0] for _ in range(repeat)]
            matrices = [(await timed(tool(action="matrix")))[0] for _ in range(repeat)]
            first_nav, nav = await timed(tool(action="navigate", question=QUESTION))
            navs = [(await timed(tool(action="navigate", question=QUESTION)))[0] for _ in range(max(1, repeat // 2))]
    verdict = (nav.structured_content or {}).get("verdict")
    return {
        "start_to_initialize_s": round(initialized, 3),
        "start_to_tools_list_s": round(listed, 3),
        "tools_list_warm_s": round(list_again, 4),
        "search_first_s": round(first_search, 3),
        "start_to_first_search_s": round(answered, 3),
        "search_warm_median_s": round(statistics.median(searches), 4),
        "get_median_s": round(statistics.median(gets), 4),
        "build_first_s": round(first_build, 3),
        "build_again_s": round(rebuild, 3),
        "build_links_kept": (build.structured_content or {}).get("kept"),
        "connections_median_s": round(statistics.median(links), 4),
        "matrix_median_s": round(statistics.median(matrices), 4),
        "navigate_first_s": round(first_nav, 3),
        "navigate_next_median_s": round(statistics.median(navs), 3),
        "navigate_verdict": verdict,
    }


async def start_figures(root: Path, starts: int) -> dict[str, Any]:
    """A host's wait, sampled: ``starts`` fresh servers each timed to tools/list and to a first search answered.

    One start is one sample of a figure the machine's load moves by a few hundred
    milliseconds (two CPUs shared with the server's own template start), so the
    report takes the median and shows the spread beside it.
    """
    params = serve_params(root)
    listed: list[float] = []
    answered: list[float] = []
    with open(os.devnull, "w", encoding="utf-8") as errlog:
        for _ in range(starts):
            start = time.perf_counter()
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                listed.append(time.perf_counter() - start)
                await session.call_tool("synapse", {"action": "search", "query": QUERIES[0]})
                answered.append(time.perf_counter() - start)
    return {
        "starts": starts,
        "start_to_tools_list_s": round(statistics.median(listed), 3),
        "start_to_first_search_s": round(statistics.median(answered), 3),
        "start_to_first_search_min_s": round(min(answered), 3),
        "start_to_first_search_max_s": round(max(answered), 3),
        "start_to_first_search_samples_s": [round(t, 3) for t in answered],
    }


async def search_figures(root: Path, repeat: int) -> dict[str, Any]:
    """Search round trips only, on a prepared workspace (e.g. a synthetic 1k or 10k one with a warm cache)."""
    params = serve_params(root)
    start = time.perf_counter()
    with open(os.devnull, "w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            listed = time.perf_counter() - start

            def search(i: int) -> Callable[[], Awaitable[Any]]:
                return lambda: session.call_tool("synapse", {"action": "search", "query": QUERIES[i % len(QUERIES)]})

            first, _ = await timed(search(0))
            warm = sorted([(await timed(search(i)))[0] for i in range(repeat)])
    return {
        "workspace": root.name,
        "start_to_tools_list_s": round(listed, 3),
        "search_first_s": round(first, 3),
        "search_warm_p50_s": round(statistics.median(warm), 4),
        "search_warm_p95_s": round(warm[min(len(warm) - 1, int(0.95 * len(warm)))], 4),
    }


async def navigate_figures(root: Path, calls: int, edits: int = 0) -> dict[str, Any]:
    """Back-to-back navigate round trips through one server, and a cold worker start beside them.

    With ``edits``, that many more rounds follow on the same server: one memory entry gets a line appended
    (a different entry each round; the workspace is edited in place) and the next navigate call is timed,
    which waits for the template's reload; then one call with no edit, timed beside it.
    """
    params = serve_params(root, "--model", "extractive")
    times: list[float] = []
    after_edit: list[float] = []
    unedited: list[float] = []
    verdicts: list[str | None] = []
    entries = sorted((root / ".memory" / "tree").glob("*.md"))
    with open(os.devnull, "w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()

            async def navigate() -> float:
                took, result = await timed(
                    lambda: session.call_tool("synapse", {"action": "navigate", "question": QUESTION})
                )
                verdicts.append((result.structured_content or {}).get("verdict"))
                return took

            for _ in range(calls):
                times.append(await navigate())
            for i in range(edits if entries else 0):
                entry = entries[(7 + 13 * i) % len(entries)]
                entry.write_text(entry.read_text(encoding="utf-8") + f"\nEdited by the server benchmark ({i}).\n")
                after_edit.append(await navigate())
                unedited.append(await navigate())
    later = sorted(times[1:])
    cold = await cold_worker_start(root)
    p50 = statistics.median(later)
    edited: dict[str, Any] = {}
    if after_edit:
        edited = {
            "navigate_edits": len(after_edit),
            "navigate_after_edit_p50_s": round(statistics.median(after_edit), 3),
            "navigate_after_edit_max_s": round(max(after_edit), 3),
            "navigate_unedited_p50_s": round(statistics.median(unedited), 3),
            "after_edit_over_unedited": round(statistics.median(after_edit) / statistics.median(unedited), 2),
            "navigate_after_edit_s": [round(t, 3) for t in after_edit],
        }
    return edited | {
        "navigate_calls": calls,
        "navigate_first_s": round(times[0], 3),
        "navigate_2_to_n_p50_s": round(p50, 3),
        "navigate_2_to_n_p95_s": round(later[min(len(later) - 1, int(0.95 * len(later)))], 3),
        "navigate_2_to_n_max_s": round(later[-1], 3),
        "navigate_times_s": [round(t, 3) for t in times],
        "cold_worker_start_s": round(cold, 3),
        "p50_over_cold_start": round(p50 / cold, 3),
        "verdicts": sorted(set(v or "none" for v in verdicts)),
    }


async def cold_worker_start(root: Path) -> float:
    """What a turn waited for without a warm worker: a new template's start to its first forked turn."""
    from synapse_server.isolation.runner import Template

    start = time.perf_counter()
    template = await Template.spawn(root, server_env())
    try:
        turn = await template.fork()
        took = time.perf_counter() - start
        await turn.kill()
    finally:
        await template.kill()
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=5, help="warm round trips per action (default 5)")
    parser.add_argument("--warm-cache", action="store_true", help="build the index cache in a throwaway session first")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--starts",
        type=int,
        default=5,
        help="fresh server starts sampled for the start figures, reported as their median (default 5)",
    )
    parser.add_argument(
        "--search-root",
        type=Path,
        default=None,
        help="only time search round trips on this prepared workspace (e.g. a synthetic 1k/10k one, cache warm)",
    )
    parser.add_argument(
        "--navigate", type=int, default=None, metavar="N", help="only time N back-to-back navigate calls (demo)"
    )
    parser.add_argument(
        "--navigate-root", type=Path, default=None, help="with --navigate: this prepared workspace instead of the demo"
    )
    parser.add_argument(
        "--edits",
        type=int,
        default=0,
        help="with --navigate: then K rounds of (append a line to a memory entry, time the next navigate, time one more)",
    )
    args = parser.parse_args(argv)
    if args.navigate is not None and args.navigate_root is not None:
        figures = anyio.run(navigate_figures, args.navigate_root.resolve(), max(2, args.navigate), args.edits)
    elif args.navigate is not None:
        with tempfile.TemporaryDirectory(prefix="synapse-server-bench-") as tmp:
            root = make_demo(Path(tmp) / "demo")
            figures = anyio.run(navigate_figures, root, max(2, args.navigate), args.edits)
    if args.navigate is not None:
        figures["cpus"] = os.cpu_count()
        sys.stdout.write(json.dumps(figures, indent=2) + "\n")
        return 0
    if args.search_root is not None:
        figures = anyio.run(search_figures, args.search_root.resolve(), max(args.repeat, 20))
        sys.stdout.write(json.dumps(figures, indent=2) + "\n")
        return 0
    with tempfile.TemporaryDirectory(prefix="synapse-server-bench-") as tmp:
        root = make_demo(Path(tmp) / "demo")
        if args.warm_cache:
            anyio.run(session_figures, root, 1)
        figures = anyio.run(session_figures, root, args.repeat)
        figures.update(anyio.run(start_figures, root, max(1, args.starts)))
    figures["index_cache"] = "warm" if args.warm_cache else "cold"
    figures["cpus"] = os.cpu_count()
    if args.json:
        sys.stdout.write(json.dumps(figures, indent=2) + "\n")
    else:
        width = max(map(len, figures))
        for key, value in figures.items():
            sys.stdout.write(f"{key:<{width}}  {value}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
