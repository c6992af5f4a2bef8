"""``python -m dev.synapse_bench perf``: every performance figure in one report, REPORT.md and latency.png.

Each harness runs as its own process with ``--json`` (no phase's imports or caches flatter another's, and a
harness may change inside as long as its JSON holds): ``parse_bench`` (MemDSL throughput); ``perf`` (per size:
cold build beside the raw encode ceiling, warm open, lexical/semantic/fused p50/p95, peak RSS); ``baselines``
(per size: our search beside numpy brute force and the peer ``memdsl``, query by query in one loop, as ratios);
``nav_bench`` (navigate stage p50/p95 on the demo and each size); ``synapse build --json`` (overlay build time
and edges); ``server_bench`` (server start -> tools/list, MCP round trips).

Every step records the 1-minute load average when it ends: on a shared machine that says how far to trust the
rest. A step that fails is reported as not measured, with its error; nothing is ever estimated. The raw figures
go to ``<workdir>/report.json``; ``--from-json`` re-renders one. ``--workdir DIR`` keeps workspaces, indexes and
the peer's venv between runs (``--reuse`` skips cold builds there; ``--seed-from DIR`` copies prepared
``ws-<size>`` folders in first). 100k is accepted; its cold build dominates the run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from dev.synapse_bench.baselines.compare import CONTENDERS, RATIO_LABELS
from dev.synapse_bench.baselines.peer import DEFAULT_SPEC
from dev.synapse_bench.pg_bench import keep_section
from dev.synapse_bench.report_format import fmt, parse_section, table
from dev.synapse_bench.report_serving import mcp_section, targets_section
from dev.synapse_bench.synthetic import parse_size

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
STEPS = ("parse", "perf", "baselines", "mcp", "nav", "overlay", "server")


class StepFailed(RuntimeError):
    """A harness exited non-zero or printed no JSON; its figures are reported as not measured."""


def harness(module: str, *args: str, timeout_s: float | None = None) -> Any:
    """Run ``python -m module *args`` from the repository root and parse the JSON it prints."""
    out = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, check=False,
                         cwd=REPO, timeout=timeout_s)  # fmt: skip
    if out.returncode != 0:
        raise StepFailed(f"{module} exited {out.returncode}: {out.stderr.strip()[-600:]}")
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError as error:
        raise StepFailed(f"{module} printed no JSON: {out.stdout.strip()[-300:]}") from error


def build_overlay(root: Path, kind: str) -> dict[str, Any]:
    """``synapse build --kind KIND --json`` as a user runs it: wall time with the build report."""
    synapse = Path(sys.executable).parent / "synapse"
    start = time.perf_counter()
    out = subprocess.run([str(synapse), "build", "--root", str(root), "--kind", kind, "--json"],
                         capture_output=True, text=True, check=False, cwd=REPO)  # fmt: skip
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        raise StepFailed(f"synapse build --kind {kind} exited {out.returncode}: {out.stderr.strip()[-600:]}")
    built: dict[str, Any] = json.loads(out.stdout)
    keep = ("candidates", "kept", "skipped", "relations", "typer")
    return {"kind": kind, "seconds": seconds, **{k: built.get(k) for k in keep}}


def build_overlays(root: Path) -> list[dict[str, Any]]:
    return [build_overlay(root, kind) for kind in ("generic", "claim")]


class Recorder:
    """Runs steps, keeping each one's figures or its error, its duration and the load average after it."""

    def __init__(self, figures: dict[str, Any]) -> None:
        self.figures = figures
        figures.setdefault("errors", {})
        figures.setdefault("load", [])

    def step(self, key: str, run: Callable[[], Any]) -> None:
        print(f"[perf report] {key} ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        try:
            value = run()
        except (StepFailed, subprocess.TimeoutExpired, OSError, ValueError) as error:
            self.figures["errors"][key] = str(error)
            value = None
        seconds = time.perf_counter() - start
        if value is not None:
            self.figures[key] = value
        self.figures["load"].append({"step": key, "seconds": round(seconds, 1), "load1": os.getloadavg()[0]})


def seed(workdir: Path, source: Path, sizes: list[str]) -> list[str]:
    """Copy prepared ``ws-<size>`` workspaces (with their index) that ``workdir`` lacks; returns the sizes copied."""
    copied = []
    for size in sizes:
        target, prepared = workdir / f"ws-{size}", source / f"ws-{size}"
        if not target.exists() and (prepared / ".angelo").is_dir():
            shutil.copytree(prepared, target, ignore=shutil.ignore_patterns("*.sqlite3-shm"))
            copied.append(size)
    return copied


def gather(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    skip = set(args.skip.split(",")) if args.skip else set()
    figures: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "sizes": {s: parse_size(s) for s in sizes},
        "queries": args.queries,
        "nav_repeat": args.nav_repeat,
        "reuse": args.reuse,
        "skip": args.skip,
        "load_start": os.getloadavg(),
    }
    figures["seeded"] = seed(workdir, args.seed_from, sizes) if args.seed_from else []
    rec = Recorder(figures)
    if "parse" not in skip:
        rec.step("parse", lambda: harness("dev.synapse_bench.parse_bench", "--json", "--seconds", str(args.seconds)))
    if "perf" not in skip:
        perf_args = ["--sizes", ",".join(sizes), "--workdir", str(workdir), "--queries", str(args.queries), "--json"]
        rec.step(
            "perf",
            lambda: harness("dev.synapse_bench.perf", *perf_args, *(["--reuse", args.reuse] if args.reuse else [])),
        )

    def wanted(step: str, size: str) -> bool:  # ``--skip overlay/100k`` leaves out one size's step, and says so
        if f"{step}/{size}" in skip:
            figures["errors"][f"{step}/{size}"] = "left out of this run (--skip)"
        return step not in skip and f"{step}/{size}" not in skip

    for size in sizes:
        root = workdir / f"ws-{size}"
        if not (root / ".angelo").is_dir():
            figures["errors"][f"ws-{size}"] = "no indexed workspace (run without --skip perf, or --seed-from)"
            continue
        if wanted("baselines", size):
            base = ["--root", str(root), "--workdir", str(workdir), "--queries", str(args.queries), "--json"]
            peer = ["--no-peer"] if args.no_peer else ["--peer-spec", args.peer_spec]
            rec.step(f"baselines/{size}", partial(harness, "dev.synapse_bench.baselines", *base, *peer))
        if wanted("mcp", size):
            mcp = ["--root", str(root), "--repeat", "30", "--stdio", "--json"]
            rec.step(f"mcp/{size}", partial(harness, "dev.synapse_bench.search_profile", *mcp))
        if wanted("nav", size):
            nav = ["--root", str(root), "--repeat", str(args.nav_repeat), "--json"]
            rec.step(f"nav/{size}", partial(harness, "dev.synapse_bench.nav_bench", *nav))
        if wanted("overlay", size):
            rec.step(f"overlay/{size}", partial(build_overlays, root))
    if "nav" not in skip:
        rec.step("nav/demo", lambda: harness("dev.synapse_bench.nav_bench", "--repeat", str(args.nav_repeat), "--json"))
    if "server" not in skip:
        rec.step("server", lambda: harness("dev.synapse_bench.server_bench", "--json", "--warm-cache"))
    figures["load_end"] = os.getloadavg()
    return figures


SERVER_LABELS = {
    "start_to_tools_list_s": "start -> initialize -> tools/list (s)",
    "start_to_first_search_s": "start -> first search answered (s)",
    "tools_list_warm_s": "tools/list again (s)",
    "search_first_s": "first search: loads the model (s)",
    "search_warm_median_s": "search, warm median (s)",
    "get_median_s": "get, median (s)",
    "build_first_s": "build (generic overlay), first (s)",
    "build_again_s": "build again (s)",
    "build_links_kept": "build: links kept",
    "connections_median_s": "connections, median (s)",
    "matrix_median_s": "matrix, median (s)",
    "navigate_first_s": "navigate, first turn (s)",
    "navigate_next_median_s": "navigate, next turns median (s)",
    "navigate_verdict": "navigate verdict",
}


def pair(figures: dict[str, Any] | None, spec: str = ".2f") -> str:
    """``p50 / p95`` in ms."""
    return "—" if not figures else f"{fmt(figures.get('p50_ms'), spec)} / {fmt(figures.get('p95_ms'), spec)}"


def markdown(fig: dict[str, Any]) -> str:
    """The whole report: every section whose figures exist, and what was not measured and why."""
    sections = [_head(fig), _headline(fig), targets_section(fig), _retrieval(fig), _side_by_side(fig), _peer(fig),
                mcp_section(fig), _navigate(fig), _overlay(fig), _server(fig), parse_section(fig), _missing(fig),
                _reproduce(fig)]  # fmt: skip
    return "\n\n".join(s for s in sections if s) + "\n"


def _head(fig: dict[str, Any]) -> str:
    loads = [step["load1"] for step in fig.get("load", [])] + [fig["load_start"][0], fig["load_end"][0]]
    sizes = ", ".join(f"{k} ({v:,} nodes)" for k, v in fig["sizes"].items())
    return f"""# Performance report

Generated by `python -m dev.synapse_bench perf --sizes {",".join(fig["sizes"])}{_options(fig)}` on {fig["date"]}: Python
{fig["python"]}, {fig["cpus"]} CPUs, synthetic workspaces {sizes}, {fig["queries"]} measured queries per
retrieval figure, navigate question sets timed {fig["nav_repeat"]} time(s) each.

**Noise.** The 1-minute load average ran from {min(loads):.1f} to {max(loads):.1f} during the run (start
{fig["load_start"][0]:.1f}, end {fig["load_end"][0]:.1f}) on {fig["cpus"]} CPUs: other jobs shared the machine.
Absolute figures move by tens of percent between runs; compare **ratios within one table**. The side-by-side
tables come from one loop per size in which every contender answers each query back to back, in a rotating
order, so load hits them alike. The load average after each step is listed at the end."""


def _headline(fig: dict[str, Any]) -> str:
    """The few figures a reader wants first, each taken from the tables below (none computed anew)."""
    lines = []
    sizes = _baseline_sizes(fig)
    if sizes:
        size = sizes[-1]
        run = fig[f"baselines/{size}"]
        lat, rat = run["latency"], run["ratios"]
        p50 = {key: fmt((lat.get(key) or {}).get("p50_ms"), ".2f") for key in ("lexical", "semantic", "fused")}
        lines.append(
            f"- At {size}: lexical p50 {p50['lexical']} ms, semantic {p50['semantic']} ms, fused {p50['fused']} ms."
        )
        if "numpy_e2e/semantic" in rat:
            same = fmt(run["agreement"].get("numpy_vs_semantic_top10"), ".2f")
            lines.append(
                "- numpy brute force over the same vectors ÷ our semantic channel:"
                f" ×{rat['numpy_e2e/semantic']['p50']:.2f} at p50 (same top 10: {same})."
            )
        if "peer/fused" in rat and "peer/lexical" in rat:
            lines.append(
                f"- The peer `memdsl` warm query ÷ ours: ×{rat['peer/lexical']['p50']:.1f} vs our lexical channel,"
                f" ×{rat['peer/fused']['p50']:.1f} vs our fused search (p50; latency only, see below)."
            )
    cold = [r for r in fig.get("perf") or [] if r.get("cold")]
    if cold:
        c = cold[-1]["cold"]
        lines.append(
            f"- Cold build at {cold[-1]['size']}: {c['build_nodes_per_s']:.0f} nodes/s,"
            f" ×{c['build_vs_ceiling']:.2f} of the raw encode rate measured beside it."
        )
    navs = [(label, fig[f"nav/{label}"]) for label in ["demo", *fig["sizes"]] if f"nav/{label}" in fig]
    if navs:
        totals = ", ".join(f"{label} {fmt(run['total']['p50_ms'], '.0f')} ms" for label, run in navs)
        lines.append(f"- A navigate turn end to end (extractive model), p50: {totals}.")
        label, run = navs[-1]
        stage, figures = max(run["stages"].items(), key=lambda item: item[1]["p50_ms"])
        share = figures["p50_ms"] / run["total"]["p50_ms"] if run["total"]["p50_ms"] else float("nan")
        lines.append(
            f"- Its largest stage at {label}: {stage}, {figures['p50_ms']:.0f} ms p50 ({share:.0%} of the total)."
        )
    if fig.get("server"):
        lines.append(f"- Server start -> tools/list: {fmt(fig['server'].get('start_to_tools_list_s'), '.2f')} s.")
    note = "Ratios are baseline ÷ ours (above 1, ours is faster); every figure is from the tables below.\n\n"
    return "## Headline\n\n" + note + "\n".join(lines) if lines else ""


def _retrieval(fig: dict[str, Any]) -> str:
    rows = []
    for row in fig.get("perf") or []:
        c, w, q = row.get("cold") or {}, row.get("warm") or {}, row.get("query") or {}
        rss = " / ".join(fmt(part.get("peak_rss_mb"), ".0f") for part in (w, q, c))
        size = f"{row['size']} (built {c['built_at']})" if c.get("reused") else row["size"]
        rows.append([size, fmt(row.get("nodes"), ",d"), fmt(c.get("build_s")), fmt(c.get("build_nodes_per_s")),
                     fmt(c.get("ceiling_texts_per_s")), fmt(c.get("build_vs_ceiling"), ".2f"),
                     fmt(w.get("open_sync_s"), ".2f"), pair(q.get("lexical")), pair(q.get("semantic")),
                     pair(q.get("fused")), rss])  # fmt: skip
    if not rows:
        return ""
    header = ["size", "nodes", "cold build s", "nodes/s", "encode ceiling texts/s", "build ÷ ceiling",
              "warm open+sync s", "lexical p50 / p95 ms", "semantic p50 / p95 ms", "fused p50 / p95 ms",
              "peak RSS MB warm / serving / build"]  # fmt: skip
    return f"""## Retrieval (perf.py: a fresh process per phase)

Cold build = embed every doc and write the cache; the encode ceiling is the model's own rate on a sample of the
same texts in the same process, so `build ÷ ceiling` says what the index adds on top of embedding (1.0 = nothing).
A dash in the cold columns means the run reused an index built earlier without its figures; a size marked
"built …" reused an index and shows the figures of the run that built it, at that time. Warm = a restart over unchanged stores (no
model load, nothing re-embedded). Query latencies are channel depth 50 (lexical, semantic) and top 10 (fused).

{table(header, rows)}"""


def _baseline_sizes(fig: dict[str, Any]) -> list[str]:
    return [s for s in fig["sizes"] if f"baselines/{s}" in fig]


def _side_by_side(fig: dict[str, Any]) -> str:
    sizes = _baseline_sizes(fig)
    if not sizes:
        return ""
    runs = {s: fig[f"baselines/{s}"] for s in sizes}
    latency = [[label] + [pair(runs[s]["latency"].get(key)) for s in sizes] for key, label in CONTENDERS.items()]
    ratios = [[label] + [_ratio(runs[s]["ratios"].get(key)) for s in sizes] for key, label in RATIO_LABELS.items()]
    agree = sorted({k for s in sizes for k in runs[s]["agreement"]})
    agreement = [[k] + [fmt(runs[s]["agreement"].get(k), ".2f") for s in sizes] for k in agree]
    return f"""## Side by side: our search, numpy brute force and the peer (one loop per size, top 10)

{table(["contender"] + [f"{s} p50 / p95 ms" for s in sizes], latency)}

Ratios are **baseline ÷ ours** at p50 and p95: above 1, ours is faster; below 1, the baseline is. `X @ q` goes
through BLAS, which spreads one matrix-vector product over every core and, on a busy machine, waits for the core it
does not get; our channel uses a single-threaded `einsum` for that reason, and the 1-thread row isolates the effect.
Our scan also breaks ties by address and builds hit records, which a bare `argpartition` does not.

{table(["ratio"] + [f"{s} p50 / p95" for s in sizes], ratios)}

Agreement (a sanity check, not a quality measure): top-10 overlap of the exact numpy scan with our semantic
channel (1.00 = the index ranks exactly the vectors it stored), and how often the peer's first item is our
lexical or fused top 1.

{table(["agreement", *sizes], agreement)}"""


def _ratio(value: dict[str, float] | None) -> str:
    return "—" if not value else f"×{fmt(value.get('p50'), '.2f')} / ×{fmt(value.get('p95'), '.2f')}"


def _peer(fig: dict[str, Any]) -> str:
    rows = []
    for size in _baseline_sizes(fig):
        peer = fig[f"baselines/{size}"].get("peer")
        if not peer:
            continue
        if "skipped" in peer:
            rows.append([size, f"skipped: {peer['skipped']}"] + ["—"] * 5)
            continue
        lint = peer["lint"]
        lint_cell = f"{lint['declarations']:,} decl, {lint['errors']} errors, {lint['warnings']} warnings"
        rows.append([size, f"memdsl {peer['version']}", lint_cell, fmt(lint["seconds"], ".2f"),
                     fmt(peer["load_s"], ".2f"), fmt(peer["cli_query_s"], ".2f"), str(peer["files"])])  # fmt: skip
    if not rows:
        return ""
    header = ["size", "peer", "`memdsl lint`", "lint s", "warm load s", "`memdsl query` CLI s", ".mem files"]
    return f"""## The peer

The PyPI `memdsl` package is a different project that shares our import name, so it runs in its own virtual
environment under the work folder, driven as a subprocess (`python -I`, outside this repository). The same memory
entries and notes are translated to `.mem` declarations (`baselines/memfiles.py`: the claim is the exact text our
index ranks; edges become relations) and must lint without errors before anything is timed. Its warm query is
`build_evidence_pack(...).render_text()` in one long-lived process, timed inside it; the CLI figure is
`memdsl query DIR -q ...` start to exit (median of a few), which parses every file each time.

**What this compares.** Latency only. The peer's executor is naive term overlap by design (its README says so and
asks not to judge the format by it): it scores every declaration on every query, re-lowercasing its text each
time, so its warm query grows linearly with the workspace. It has no embeddings, so its ratio to our fused search
weighs a keyword scan against keyword + meaning retrieval. Its strength is elsewhere (typed MUST/SHOULD layers,
boundary guards).

{table(header, rows)}"""


def _navigate(fig: dict[str, Any]) -> str:
    runs = {label: fig[f"nav/{label}"] for label in ["demo", *fig["sizes"]] if f"nav/{label}" in fig}
    if not runs:
        return ""
    stages = list(next(iter(runs.values()))["stages"])
    rows = [[name] + [pair(run["stages"].get(name), ".1f") for run in runs.values()] for name in stages]
    rows.append(["**total**"] + [f"**{pair(run['total'], '.1f')}**" for run in runs.values()])
    rows.append(["first turn ms (model load, index sync)"] + [fmt(r["first_turn_ms"], ".0f") for r in runs.values()])
    rows.append(["turns timed"] + [str(r["turns"]) for r in runs.values()])
    rows.append(["verdicts"] + [", ".join(f"{k} {v}" for k, v in r["verdicts"].items()) for r in runs.values()])
    header = ["stage"] + [f"{label} ({r['nodes']:,} nodes) p50 / p95 ms" for label, r in runs.items()]
    return f"""## Navigate, end to end (nav_bench.py, extractive model, in-process)

The turn the tool runs, with one loaded embedder and one `Stores` per workspace, after one unmeasured warm-up turn.
Demo: its 20 questions; synthetic sizes: 20 questions drawn from each workspace's own titles. Assembly includes
opening and syncing the index (a diff over every doc) and the seed search; `unstaged` is the turn's glue outside
every stage (reading the config, scoping the stores, building the node graph), which grows with the workspace.

{table(header, rows)}{_prompt_size(runs.get("demo"))}"""


def _prompt_size(demo: dict[str, Any] | None) -> str:
    """What each demo turn sends the model, lean envelope versus the earlier one (``prompt_size.py``)."""
    sizes = (demo or {}).get("prompt_size")
    if not sizes:
        return ""
    from dev.synapse_bench.prompt_size import format_table as size_table

    return f"""

Prompt size per model call on the demo questions (system part plus prompt, UTF-8 bytes), the lean envelope
against the earlier one (every seed round-robin, duplicate bodies repeated) in the same run:

{size_table(sizes)}"""


def _overlay(fig: dict[str, Any]) -> str:
    rows = []
    for size in fig["sizes"]:
        for built in fig.get(f"overlay/{size}") or []:
            relations = ", ".join(f"{k} {v:,}" for k, v in (built.get("relations") or {}).items())
            rows.append([size, built["kind"], fmt(built["seconds"]), fmt(built.get("candidates"), ",d"),
                         fmt(built.get("kept"), ",d"), relations or "—"])  # fmt: skip
    if not rows:
        return ""
    return f"""## Overlay build (`synapse build --json`, offline typer, warm index)

Wall time of the CLI as a user runs it (process start, store load, index open, candidates, typing, signed write).
Synthetic notes share one vocabulary, so nearly every candidate clears the 0.5 cosine gate; real stores keep fewer.

{table(["size", "kind", "seconds", "candidates", "kept", "relations"], rows)}"""


def _server(fig: dict[str, Any]) -> str:
    server = fig.get("server")
    if not server:
        return ""
    rows = [[label, fmt(v, ".3f") if isinstance(v := server[key], float) else fmt(v)]
            for key, label in SERVER_LABELS.items() if key in server]  # fmt: skip
    return f"""## Server over real stdio (server_bench.py, demo workspace, warm index cache)

{table(["figure", "value"], rows)}"""


def _missing(fig: dict[str, Any]) -> str:
    notes = [f"- `{key}`: not measured: {error}" for key, error in fig.get("errors", {}).items()]
    loads = ", ".join(f"{s['step']} {s['load1']:.1f} ({s['seconds']:.0f} s)" for s in fig.get("load", []))
    cost = ""
    rates = [r["cold"]["build_nodes_per_s"] for r in fig.get("perf") or [] if r.get("cold")]
    if "100k" not in fig["sizes"] and rates:
        minutes = 100_000 / max(rates) / 60
        cost = (f"\n\n**100k** was not run: at the best cold-build rate measured here ({max(rates):.0f} nodes/s)"
                f" its cold build alone would take about {minutes:.0f} minutes; add `--sizes 1k,10k,100k` to"
                " measure it.")  # fmt: skip
    missing = "\n".join(notes) if notes else "Every step ran."
    return f"## Steps not measured, and load\n\n{missing}\n\nLoad average (1 min) after each step: {loads}.{cost}"


def _options(fig: dict[str, Any]) -> str:
    """The options of the run beyond its sizes that change what it measured (reuse, skipped steps)."""
    reuse = fig.get("reuse") or ""
    out = "" if not reuse else " --reuse" if reuse == "all" else f" --reuse {reuse}"
    return out + (f" --skip {fig['skip']}" if fig.get("skip") else "")


def _reproduce(fig: dict[str, Any]) -> str:
    return f"""## Reproduce

```
pip install -e ".[bench]"      # matplotlib for the plot; the peer gets its own venv in the work folder
python -m dev.synapse_bench perf --sizes {",".join(fig["sizes"])} --workdir WORKDIR [--reuse] [--no-peer]
python -m dev.synapse_bench perf --from-json WORKDIR/report.json   # re-render only
```

Each harness also runs alone: `perf`, `parse`, `python -m dev.synapse_bench.baselines --root WS`,
`python -m dev.synapse_bench.nav_bench [--root WS]`, `python -m dev.synapse_bench.server_bench`."""


def plot(fig: dict[str, Any], path: Path) -> None:
    """Latency against workspace size, p50 and p95 side by side, from the side-by-side loops."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = _baseline_sizes(fig)
    figure, axes = plt.subplots(1, 2, figsize=(11, 5.2), sharey=True)
    for ax, percentile in zip(axes, ("p50_ms", "p95_ms"), strict=True):
        for key, label in CONTENDERS.items():
            points = [(fig["sizes"][s], fig[f"baselines/{s}"]["latency"][key][percentile]) for s in sizes
                      if key in fig[f"baselines/{s}"]["latency"]]  # fmt: skip
            if points:
                ax.plot(*zip(*points, strict=True), marker="o", label=label.replace("`", ""))
        ax.set(xscale="log", yscale="log", xlabel="workspace size (nodes)", title=percentile.replace("_ms", ""))
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("latency per query (ms)")
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    figure.suptitle(f"Query latency vs size, one loop per size ({fig['date']}, shared {fig['cpus']}-CPU machine)")
    figure.tight_layout(rect=(0, 0.12, 1, 1))
    figure.savefig(path, dpi=110)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dev.synapse_bench perf", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1k,10k", help="comma-separated synthetic sizes: 1k,10k[,100k]")
    parser.add_argument("--workdir", type=Path, help="keep workspaces, indexes and the peer venv here")
    parser.add_argument(
        "--reuse",
        nargs="?",
        const="all",
        default="",
        help="skip the cold build where the workdir has an index (all sizes, or the sizes named)",
    )
    parser.add_argument("--seed-from", type=Path, help="copy prepared ws-<size> folders from here into the workdir")
    parser.add_argument("--queries", type=int, default=100, help="measured queries per retrieval figure")
    parser.add_argument("--nav-repeat", type=int, default=3, help="passes over each navigate question set")
    parser.add_argument("--seconds", type=float, default=0.6, help="parse_bench time per measurement")
    parser.add_argument("--peer-spec", default=DEFAULT_SPEC, help=f"pip requirement for the peer ({DEFAULT_SPEC})")
    parser.add_argument("--no-peer", action="store_true", help="leave the peer memdsl package out")
    parser.add_argument(
        "--skip",
        default="",
        help=f"comma-separated steps to leave out: {','.join(STEPS)}, or one size's (overlay/100k)",
    )
    parser.add_argument("--out", type=Path, default=HERE, help="folder for REPORT.md and latency.png")
    parser.add_argument("--from-json", type=Path, help="re-render a report.json from an earlier run; measure nothing")
    args = parser.parse_args(argv)
    if args.from_json:
        figures = json.loads(args.from_json.read_text(encoding="utf-8"))
    else:
        workdir = (args.workdir or Path(tempfile.mkdtemp(prefix="synapse-perf-report-"))).resolve()
        workdir.mkdir(parents=True, exist_ok=True)
        figures = gather(args, workdir)
        (workdir / "report.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        print(f"[perf report] raw figures: {workdir / 'report.json'}", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    report = args.out / "REPORT.md"
    previous = report.read_text(encoding="utf-8") if report.exists() else ""
    report.write_text(keep_section(previous, markdown(figures)), encoding="utf-8")  # pg_bench's section stays
    plot(figures, args.out / "latency.png")
    print(f"wrote {args.out / 'REPORT.md'} and {args.out / 'latency.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
