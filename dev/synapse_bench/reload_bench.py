"""What the navigate template's reload after one edited store file costs: the full reload beside the incremental one.

The template (``synapse_server.isolation.worker.refresh``) keeps a preloaded
workspace (stores, index sync, vectors, node graph) and loads it again when a
store file changes. This times, on a workspace whose index is already built,
one edit of one memory entry and one of one zettelkasten note, each followed by

- ``full``: ``preload`` from nothing, as every reload ran before;
- ``incremental``: the new fingerprint (``Freshness``) and ``preload`` from the
  earlier preload with the folders that changed, as the template now runs it:
  only the edited file parsed, only its document written to the index, the
  vector matrix patched, the graph re-indexed at the changed node.

Stages are reported for the incremental path: fingerprint, store load, index
docs, index open and sync, vector load, node graph. The encoder is the tests'
hash stand-in so the figures are the reload's own work, not a model's (the
sync embeds only the edited document either way; ``reembedded`` says so).

Run: ``python -m dev.synapse_bench.reload_bench WORKSPACE [--repeat 3]`` (a workspace from
``python -m dev.synapse_bench.synthetic``; the first run builds its index with the stand-in encoder).
Measurements only; no test asserts a timing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path


def _rss_mb() -> float:
    """This process's resident set now (Linux), in MB: what holding a preloaded workspace costs."""
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _append(path: Path, line: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("root", type=Path, help="a workspace (edited in place: one line appended per edit)")
    parser.add_argument("--repeat", type=int, default=3, help="edits per store (default 3); medians are reported")
    args = parser.parse_args(argv)
    from synapse_server.isolation.turn import _projects, preload
    from synapse_server.navigation.view import Graph
    from synapse_server.workspace.config import load_workspace
    from synapse_server.workspace.freshness import Freshness, changed_parts
    from synapse_server.workspace.gc_pause import collector_paused
    from synapse_server.workspace.stores import IndexBasis
    from tests.support.index_corpus import WideHashEncoder

    root = args.root.resolve()
    encoder = WideHashEncoder()
    workspace = load_workspace(root)
    freshness = Freshness(workspace, watch=False)
    start = time.perf_counter()
    loaded = preload(workspace, encoder)
    print(
        f"{len(loaded.stores.nodes)} nodes; first preload {time.perf_counter() - start:.2f} s;"
        f" resident memory holding it (as the template does) {_rss_mb():.0f} MB"
    )
    targets = {
        "memory entry": sorted((root / ".memory" / "tree").glob("*.md"))[7],
        "zettelkasten note": sorted((root / ".zettelkasten").glob("*/notes/*.md"))[7],
    }
    for name, path in targets.items():
        full: list[float] = []
        incremental: list[float] = []
        stages: dict[str, list[float]] = {}
        for i in range(args.repeat):
            _append(path, f"Edited for the reload benchmark ({i}).")
            workspace = load_workspace(root)
            start = time.perf_counter()
            freshness = Freshness(workspace, watch=False)
            loaded = preload(workspace, encoder)  # the incremental reload below starts from this one
            full.append(time.perf_counter() - start)
            _append(path, f"Edited again for the reload benchmark ({i}).")
            workspace = load_workspace(root)
            with collector_paused():  # as preload runs it
                start = time.perf_counter()
                after = Freshness(workspace, watch=False)
                changed = changed_parts(freshness.parts, after.parts)
                scanned = time.perf_counter()
                stores = loaded.stores.reload(workspace, changed)
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
                graph = Graph.updated(loaded.graphs[tuple(projects)], stores.scoped(projects))
                done = time.perf_counter()
            incremental.append(done - start)
            for stage, seconds in {
                "fingerprint": scanned - start,
                "stores": reloaded - scanned,
                "index docs": documented - reloaded,
                "index sync": synced - documented,
                "vectors": warmed - synced,
                "graph": done - warmed,
            }.items():
                stages.setdefault(stage, []).append(seconds)
            assert index.last_sync is not None and len(docs) == len(stores.nodes)
            assert len(graph.nodes) == len(stores.scoped(projects)) and vectors is not None
        parts = ", ".join(f"{stage} {statistics.median(v) * 1000:.0f}" for stage, v in stages.items())
        print(
            f"{name} edited: full reload {statistics.median(full):.2f} s, incremental "
            f"{statistics.median(incremental):.2f} s (ms: {parts}); reembedded {index.last_sync.reembedded}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
