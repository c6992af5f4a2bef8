"""What the navigate template's reload after one edited store file costs: the full reload beside the incremental one.

The template (``synapse_server.isolation.worker.refresh``) keeps a preloaded
workspace (stores, index sync, vectors, node graph) and loads it again when a
store file changes. This times, on a workspace whose index is already built,
one edit of one memory entry and one of one zettelkasten note, each followed by

- ``full``: ``preload`` from nothing, as every reload ran before;
- ``incremental``: the freshness check that sees the edit (an inotify event names
  the file), its renewal, and ``preload`` from the
  earlier preload with the folders that changed, as the template now runs it:
  only the edited file parsed, only its document written to the index, the
  vector matrix patched, the graph re-indexed at the changed node.

Stages are reported for the incremental path: freshness check, store load, index
docs, index open and sync, vector load, node graph. The encoder is the tests'
hash stand-in so the figures are the reload's own work, not a model's (the
sync embeds only the edited document either way; ``reembedded`` says so). A sweep, which
the check makes when the last one is older than the sweep interval, is timed apart.

Run: ``python -m dev.synapse_bench.reload_bench WORKSPACE... [--repeat 3] [--write-report]`` (each one from
``python -m dev.synapse_bench.synthetic``; the first run builds its index with the stand-in encoder).
Measurements only; no test asserts a timing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from dev.synapse_bench.report_sections import write_section

HERE = Path(__file__).resolve().parent
BEGIN, END = "<!-- reload-section -->", "<!-- /reload-section -->"


def _rss_mb() -> float:
    """This process's resident set now (Linux), in MB: what holding a preloaded workspace costs."""
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _append(path: Path, line: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")


def measure(root: Path, repeat: int) -> dict[str, Any]:
    """One workspace: the first preload, the memory holding it, and per edited file the full and incremental reload."""
    from synapse_server.isolation.turn import _projects, preload, scoped_graph
    from synapse_server.workspace.config import load_workspace
    from synapse_server.workspace.freshness import Freshness, changed_parts
    from synapse_server.workspace.gc_pause import collector_paused
    from synapse_server.workspace.stores import IndexBasis
    from tests.support.index_corpus import WideHashEncoder

    root = root.resolve()
    encoder = WideHashEncoder()
    workspace = load_workspace(root)
    start = time.perf_counter()
    loaded = preload(workspace, encoder)
    result: dict[str, Any] = {
        "nodes": len(loaded.stores.nodes),
        "first_preload_s": time.perf_counter() - start,
        "rss_mb": _rss_mb(),
        "edits": [],
    }
    print(
        f"{result['nodes']} nodes; first preload {result['first_preload_s']:.2f} s;"
        f" resident memory holding it (as the template does) {result['rss_mb']:.0f} MB"
    )
    targets = {
        "memory entry": sorted((root / ".memory" / "tree").glob("*.md"))[7],
        "zettelkasten note": sorted((root / ".zettelkasten").glob("*/notes/*.md"))[7],
    }
    for name, path in targets.items():
        full: list[float] = []
        incremental: list[float] = []
        sweeps: list[float] = []
        reembedded: list[int] = []
        in_place: list[bool] = []  # the reload patched the earlier load (Stores.moved) rather than compared it
        stages: dict[str, list[float]] = {}
        for i in range(repeat):
            _append(path, f"Edited for the reload benchmark ({i}).")
            workspace = load_workspace(root)
            start = time.perf_counter()
            freshness = Freshness(workspace)  # watched, as the template's and the server's
            loaded = preload(workspace, encoder)  # the incremental reload below starts from this one
            full.append(time.perf_counter() - start)
            # The preload outlasted the sweep interval: the next check sweeps (stats every store file). Timed
            # apart, so the reload below is the check a turn makes between sweeps (events only).
            start = time.perf_counter()
            assert freshness.current()
            sweeps.append(time.perf_counter() - start)
            _append(path, f"Edited again for the reload benchmark ({i}).")
            workspace = load_workspace(root)
            with collector_paused():  # as preload runs it
                start = time.perf_counter()
                assert not freshness.current()  # the check before a turn: the event names the edited file
                after = freshness.renewed(workspace)
                changed = changed_parts(freshness.parts, after.parts)
                scanned = time.perf_counter()
                stores = loaded.stores.reload(workspace, changed, after.vouch)
                after.close()
                reloaded = time.perf_counter()
                docs = stores.index_docs
                documented = time.perf_counter()
                basis = IndexBasis(loaded.stores.index_docs, loaded.synced, loaded.vectors)
                index = stores.open_index(encoder, earlier=basis)
                synced = time.perf_counter()
                vectors = index.warm_state()
                index.close()
                warmed = time.perf_counter()
                projects = _projects(workspace, None)
                graph = scoped_graph(stores, projects, loaded.graphs[tuple(projects)])
                done = time.perf_counter()
            incremental.append(done - start)
            in_place.append(stores.moved is not None)
            for stage, seconds in {
                "check": scanned - start,
                "stores": reloaded - scanned,
                "index docs": documented - reloaded,
                "index sync": synced - documented,
                "vectors": warmed - synced,
                "graph": done - warmed,
            }.items():
                stages.setdefault(stage, []).append(seconds)
            assert index.last_sync is not None and len(docs) == len(stores.nodes)
            assert len(graph.nodes) == len(stores.scoped(projects)) and vectors is not None
            reembedded.append(index.last_sync.reembedded)
            # Freed here, not inside the next timed reload: these belong to another load's lineage, which a
            # template never holds beside its reload (there most objects are shared and freeing them is cheap).
            del stores, docs, basis, index, vectors, graph, after
        medians = {stage: statistics.median(v) * 1000 for stage, v in stages.items()}
        edit = {
            "file": name,
            "full_s": statistics.median(full),
            "incremental_s": statistics.median(incremental),
            "sweep_ms": statistics.median(sweeps) * 1000,
            "stages_ms": medians,
            "reembedded": max(reembedded),
            "patched": sum(in_place),
        }
        result["edits"].append(edit)
        parts = ", ".join(f"{stage} {ms:.0f}" for stage, ms in medians.items())
        print(
            f"{name} edited: full reload {edit['full_s']:.2f} s, incremental "
            f"{edit['incremental_s']:.2f} s (ms: {parts}); reembedded {edit['reembedded']};"
            f" patched in place {edit['patched']} of {repeat}"
        )
    return result


def _child(root: Path, repeat: int) -> dict[str, Any]:
    """``measure`` in a process of its own, so one workspace's memory figure never holds another's load."""
    done = subprocess.run(
        [sys.executable, "-m", "dev.synapse_bench.reload_bench", str(root), "--repeat", str(repeat), "--json"],
        capture_output=True,
        text=True,
        check=True,
        cwd=HERE.parents[1],
    )
    lines = done.stdout.strip().splitlines()
    print("\n".join(lines[:-1]))
    result: dict[str, Any] = json.loads(lines[-1])[0]
    return result


def markdown(results: list[dict[str, Any]], repeat: int) -> str:
    """The REPORT.md section: one row per workspace and edited file."""
    lines = [
        BEGIN,
        "## Reload after an edit (reload_bench.py)",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with `python -m dev.synapse_bench.reload_bench"
        f" W... --repeat {repeat} --write-report` on synthetic workspaces, the tests' hash encoder in place of the model"
        " (the figures are the reload's own work; an edit re-embeds at most its own document either way, none"
        " where the appended line falls past the encoder's input window). Full = the"
        " template's preload from nothing; incremental = the same preload from the earlier one after one appended"
        f" line, as the template and the server now run it: the freshness check reads the inotify event that names"
        " the file, and a sweep (a stat of every store file, at most every max(5 s, 20 × its own cost)) is timed"
        f" apart. Medians of {repeat} edits; load average when it ended:"
        f" {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores. Design and caveats: docs/benchmark.md.",
        "",
        "| nodes | resident MB holding the preload | edited file | full reload s | incremental s | ×"
        " | check / stores / index docs / index sync / vectors / graph, ms | a sweep when due, ms"
        " | patched in place | re-embedded |",
        "|---|---:|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    for r in results:
        for e in r["edits"]:
            stages = " / ".join(f"{ms:.0f}" for ms in e["stages_ms"].values())
            lines.append(
                f"| {r['nodes']:,} | {r['rss_mb']:.0f} | {e['file']} | {e['full_s']:.2f} | {e['incremental_s']:.2f}"
                f" | {e['full_s'] / e['incremental_s']:.0f} | {stages} | {e['sweep_ms']:.0f}"
                f" | {e['patched']} of {repeat} | {e['reembedded']} |"
            )
    lines.append(END)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("roots", type=Path, nargs="+", help="workspaces (edited in place: one line appended per edit)")
    parser.add_argument("--repeat", type=int, default=3, help="edits per store (default 3); medians are reported")
    parser.add_argument("--write-report", action="store_true", help="replace the reload section of REPORT.md")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON (one workspace)")
    args = parser.parse_args(argv)
    if args.json:
        print(json.dumps([measure(root, args.repeat) for root in args.roots]))
        return 0
    results = [_child(root, args.repeat) for root in args.roots]
    if args.write_report:
        write_section(HERE / "REPORT.md", markdown(results, args.repeat), BEGIN, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
