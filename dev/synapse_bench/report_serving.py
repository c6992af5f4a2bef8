"""The serving sections of the performance report: search through MCP per size, where a call goes, the targets.

Figures come from the ``mcp/<size>`` steps (``search_profile.py --stdio``: the search over real stdio and, in
one process, the same tool call broken into freshness checks, the index query and the rest) and from the
``perf`` and ``server`` steps. Nothing here measures; a missing figure is shown as a dash.
"""

from __future__ import annotations

from typing import Any

from dev.synapse_bench.report_format import fmt, table


def mcp_sizes(fig: dict[str, Any]) -> list[str]:
    return [s for s in fig["sizes"] if f"mcp/{s}" in fig]


def mcp_section(fig: dict[str, Any]) -> str:
    sizes = mcp_sizes(fig)
    if not sizes:
        return ""
    stdio_rows, rows = [], []
    for size in sizes:
        run = fig[f"mcp/{size}"]
        modes = {m["mode"]: m for m in run["modes"]}
        stdio = run.get("stdio") or {}
        watch = modes.get("watch", {})
        p50 = stdio.get("search_warm_p50_s")
        index = watch.get("index_search_p50_ms")
        ratio = (p50 * 1000 / index) if p50 is not None and index else None
        stdio_rows.append([size, fmt(stdio.get("start_to_tools_list_s"), ".2f"), fmt(stdio.get("search_first_s"), ".2f"),
                           f"{fmt(_ms(p50), '.1f')} / {fmt(_ms(stdio.get('search_warm_p95_s')), '.1f')}",
                           fmt(index, ".1f"), f"×{fmt(ratio, '.2f')}"])  # fmt: skip
        for name in ("scan", "watch"):
            m = modes.get(name)
            if m is None:
                continue
            label = "full scan per check (before; the fallback)" if name == "scan" else "inotify watch (now)"
            rows.append([size, label, fmt(m["dispatch_p50_ms"], ".1f"), fmt(m["checks_per_call"], ".0f"),
                         fmt(m["one_check_p50_ms"], ".2f"), fmt(m["freshness_per_call_p50_ms"], ".1f"),
                         fmt(m["index_search_p50_ms"], ".1f"), fmt(m["other_p50_ms"], ".1f")])  # fmt: skip
    stdio_header = ["size", "start -> tools/list s", "first search s (loads the model)", "search p50 / p95 ms",
                    "index query p50 ms (same run)", "round trip ÷ index query"]  # fmt: skip
    header = ["size", "freshness", "tool call p50 ms", "checks per call", "one check p50 ms",
              "freshness per call ms", "index search p50 ms", "rest ms"]  # fmt: skip
    return f"""## Search through MCP, and where a call goes (search_profile.py)

Over real stdio: the installed `synapse serve` on each synthetic workspace with a warm index cache (20+ warm
searches after the first). The index query is `HybridIndex.search` alone (both channels, the query embedding,
RRF), measured in the profiling process of the same step.

{table(stdio_header, stdio_rows)}

In one process, with the model loaded once: the tool call as the server runs it (`Dispatcher.call`: validation,
the worker thread, the action, the JSON payload) and its parts. A search asks for the workspace, the stores and the
index, and each asks whether the store files changed, so a call makes several checks. Before, each check was a
fingerprint of every store file (names, sizes, mtimes); now it reads the inotify queue and the git HEAD files, and
rescans only after an event. The `scan` rows run the old check (also the fallback where inotify is missing). The
rest is scoping, hit records, the payload and the hand-off to a worker thread; the difference between the stdio
p50 above and the tool call is the transport (JSON-RPC framing, the pipe, the client).

{table(header, rows)}"""


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1000


def targets_section(fig: dict[str, Any]) -> str:
    """The issue's targets beside the figure this run measured (a dash: not measured in this run)."""
    server = fig.get("server") or {}
    start = f"{fmt(server.get('start_to_first_search_s'), '.2f')} s"
    if server.get("starts"):
        start += (f" (median of {server['starts']} starts, {fmt(server.get('start_to_first_search_min_s'), '.2f')}"
                  f"–{fmt(server.get('start_to_first_search_max_s'), '.2f')} s)")  # fmt: skip
    rows = [["server start -> first search answered, demo", "≤ 1.5 s", start]]
    mcp = fig.get("mcp/10k")
    ratio = None
    if mcp and mcp.get("stdio"):
        watch = {m["mode"]: m for m in mcp["modes"]}.get("watch", {})
        if watch.get("index_search_p50_ms"):
            ratio = mcp["stdio"]["search_warm_p50_s"] * 1000 / watch["index_search_p50_ms"]
    rows.append(["MCP search round trip p50 at 10k ÷ index query (same run)", "≤ ×2", f"×{fmt(ratio, '.2f')}"])
    rows.append(["back-to-back navigate through one server, demo, p50 of later calls", "≤ 1 s",
                 f"{fmt(server.get('navigate_next_median_s'), '.2f')} s"])  # fmt: skip
    cold = {r["size"]: r["cold"] for r in fig.get("perf") or [] if r.get("cold")}
    rows.append(
        ["cold build ÷ encoder ceiling at 10k", "≥ 0.9", fmt((cold.get("10k") or {}).get("build_vs_ceiling"), ".2f")]
    )
    query = {r["size"]: r.get("query") or {} for r in fig.get("perf") or []}
    fused = (query.get("100k") or {}).get("fused") or {}
    rows.append(
        [
            "100k built and queried: fused search p50 (retrieval table)",
            "≤ 30 ms",
            f"{fmt(fused.get('p50_ms'), '.1f')} ms",
        ]
    )
    rows.append(["install of the README's first command", "no torch; time in docs/benchmark.md",
                 "no torch (measured separately, see docs/benchmark.md)"])  # fmt: skip
    rows += scale_targets(fig)
    return f"""## Targets

{table(["target", "goal", "this run"], rows)}"""


def scale_targets(fig: dict[str, Any]) -> list[list[str]]:
    """The scale targets (an edit at 100k, PostgreSQL at 100k, search against the peer at 10k), each from this
    run's ``servernav``, ``pg`` and ``baselines`` steps."""
    served = fig.get("servernav/100k") or {}
    edited = "—"
    if served.get("navigate_edits"):
        edited = (
            f"{fmt(served['navigate_after_edit_p50_s'], '.2f')} s, ×{fmt(served['after_edit_over_unedited'], '.2f')}"
            f" an unedited navigate ({fmt(served['navigate_unedited_p50_s'], '.2f')} s); {served['navigate_edits']}"
            f" edits, slowest {fmt(served['navigate_after_edit_max_s'], '.2f')} s"
        )
    pg = fig.get("pg/100k") or {}
    ours, sqlite = pg.get("postgres") or {}, pg.get("sqlite") or {}

    def over(key: str) -> str:
        if not ours or not sqlite:
            return "—"
        a, b = (ours[key]["p50_ms"], sqlite[key]["p50_ms"]) if key == "fused" else (ours[key], sqlite[key])
        return f"×{fmt(a / b, '.2f')}"

    peer = ((fig.get("baselines/10k") or {}).get("ratios") or {}).get("peer/fused") or {}
    return [
        ["first navigate after editing one file at 100k (server, p50)", "≤ 2 s and ≤ ×1.5 unedited", edited],
        ["PostgreSQL at 100k: recall@10 against the exact top 10", "≥ 0.98", fmt(ours.get("recall_at_10"), ".3f")],
        ["PostgreSQL at 100k: fused search p50 ÷ SQLite's", "≤ ×2", over("fused")],
        ["PostgreSQL at 100k: bulk write (build) ÷ SQLite's", "≤ ×3", over("build_s")],
        ["search at 10k: the peer's p50 ÷ our fused p50", "≥ ×10", f"×{fmt(peer.get('p50'), '.1f')}"],
    ]
