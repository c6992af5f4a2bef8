"""What search's ranking changes cost per call: RRF k = 60 with 10 hits, beside k = 5 with 20 hits folded to 10.

``python -m dev.synapse_bench.fusion_timing WORKSPACE [--rounds N]`` (e.g. a demo made by
``synapse init --demo``): both paths run interleaved over the workspace's labelled demo queries on one warm
index, in one process, and the medians, 95th percentiles and their ratios are printed. The figures are in
docs/benchmark.md ("Ranking quality").
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from adapters.index.fusion import RRF_K, SEARCH_RRF_K
from synapse_server.navigation.twins import fold_twins
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import Stores, make_embedder

FAMILIES = ["memory", "zk", "data"]
QUERIES = Path(__file__).resolve().parents[2] / "synapse_server" / "eval" / "demo_queries.yaml"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    workspace = load_workspace(args.workspace)
    stores = Stores.load(workspace)
    index = stores.open_index(make_embedder(workspace))
    queries = [q["query"] for q in yaml.safe_load(QUERIES.read_text(encoding="utf-8"))["queries"]]

    def before(query: str) -> object:
        return index.search(query, 10, families=FAMILIES, fusion_k=RRF_K)

    def after(query: str) -> object:
        hits = index.search(query, 20, families=FAMILIES, fusion_k=SEARCH_RRF_K)
        return fold_twins([hit.address for hit in hits], stores.nodes)[:10]

    paths: dict[str, Callable[[str], object]] = {"before": before, "after": after}
    times: dict[str, list[float]] = {name: [] for name in paths}
    for query in queries:  # warm both paths
        before(query), after(query)
    try:
        for _ in range(args.rounds):
            for name, path in paths.items():
                for query in queries:
                    start = time.perf_counter()
                    path(query)
                    times[name].append((time.perf_counter() - start) * 1000)
    finally:
        index.close()
    p50 = {name: statistics.median(values) for name, values in times.items()}
    p95 = {name: sorted(values)[int(0.95 * len(values))] for name, values in times.items()}
    print(f"{len(queries)} queries x {args.rounds} rounds, interleaved, one warm index")
    print(f"before (k = {RRF_K}, 10 hits): p50 {p50['before']:.2f} ms, p95 {p95['before']:.2f} ms")
    print(f"after (k = {SEARCH_RRF_K}, 20 hits folded to 10): p50 {p50['after']:.2f} ms, p95 {p95['after']:.2f} ms")
    print(f"ratio after / before: p50 x{p50['after'] / p50['before']:.2f}, p95 x{p95['after'] / p95['before']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
