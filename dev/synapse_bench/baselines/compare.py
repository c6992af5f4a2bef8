"""Our search and the baselines, query by query in one loop, so every ratio compares like with like.

A shared 2-core machine drifts by tens of percent within minutes, so separate
runs cannot be compared. Here each query is answered by every contender back to
back, in an order that rotates from query to query (no contender always runs
first, after the cache is warmed by another), and every ratio is taken between
figures of the same loop:

- ours: ``lexical``, ``semantic`` (query embedding included), ``fused``, and
  ``scan`` (our vector matrix's top 10 for an already embedded query);
- numpy: ``numpy_scan`` (``X @ q`` + argpartition, BLAS threads as numpy sets
  them), ``numpy_scan_1t`` (BLAS pinned to one thread) and ``numpy_e2e`` (query
  embedding + ``X @ q``: the brute-force counterpart of our semantic channel);
- ``peer``: the peer's warm query, timed inside its own process.

A ratio is ``baseline / ours`` at the same percentile: above 1, ours is faster.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from dev.synapse_bench.baselines.numpy_scan import TOP, NumpyScan, load_vectors, overlap

if TYPE_CHECKING:
    from adapters.index import HybridIndex, TextEncoder
    from dev.synapse_bench.baselines.memfiles import Translation
    from dev.synapse_bench.baselines.peer import PeerSession

WARMUP = 5
CONTENDERS: dict[str, str] = {
    "lexical": "ours: lexical (FTS5 bm25)",
    "semantic": "ours: semantic (embed + scan)",
    "fused": "ours: fused (RRF of both)",
    "scan": "ours: vector scan only",
    "numpy_e2e": "numpy: embed + `X @ q` + argpartition",
    "numpy_scan": "numpy: `X @ q` + argpartition only",
    "numpy_scan_1t": "numpy: the same, BLAS 1 thread",
    "peer": "peer memdsl: warm query",
}
"""Every contender of the loop, with the label the report gives it."""
RATIO_LABELS: dict[str, str] = {
    "numpy_e2e/semantic": "numpy brute force (query embedding + `X @ q`) vs our semantic channel",
    "numpy_e2e/fused": "numpy brute force vs our fused search (both channels + RRF)",
    "numpy_scan/scan": "numpy `X @ q` scan vs our vector scan (same embedded query)",
    "numpy_scan_1t/scan": "numpy scan with BLAS on 1 thread vs our vector scan",
    "peer/lexical": "peer `memdsl` warm query vs our lexical channel",
    "peer/fused": "peer `memdsl` warm query vs our fused search",
}
"""The ratios the report prints, ``baseline/ours``, with their labels."""


def percentiles(samples_ms: Sequence[float]) -> dict[str, float]:
    """p50 (median) and p95 (nearest rank), the two figures every latency table shows."""
    if not samples_ms:
        return {"p50_ms": float("nan"), "p95_ms": float("nan"), "n": 0}
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return {"p50_ms": statistics.median(ordered), "p95_ms": p95, "n": len(ordered)}


def ratio(baseline: dict[str, float], ours: dict[str, float]) -> dict[str, float]:
    """``baseline / ours`` at p50 and p95 (above 1: ours is faster)."""
    return {p: baseline[f"{p}_ms"] / ours[f"{p}_ms"] if ours[f"{p}_ms"] else float("nan") for p in ("p50", "p95")}


def ratios(figures: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Every ratio of ``RATIO_LABELS`` whose two contenders were measured."""
    out = {}
    for key in RATIO_LABELS:
        baseline, ours = key.split("/")
        if baseline in figures and ours in figures:
            out[key] = ratio(figures[baseline], figures[ours])
    return out


def side_by_side(
    index: HybridIndex,
    embedder: TextEncoder,
    queries: Sequence[str],
    peer: PeerSession | None = None,
    translation: Translation | None = None,
) -> dict[str, Any]:
    """Time every contender on every query (after ``WARMUP`` unmeasured ones) and compare their answers."""
    from adapters.index.store import Store

    cache = index.path
    if cache is None:
        raise RuntimeError("the index has no cache file to read the baseline's vectors from")
    addresses, vectors = load_vectors(cache, embedder.model_id)
    scans = {"numpy_scan": NumpyScan(addresses, vectors), "numpy_scan_1t": NumpyScan(addresses, vectors, threads=1)}
    store = Store.open(cache.parent, cache.name.removeprefix("index-").removesuffix(".sqlite3"))
    try:
        _, matrix = store.load_matrix(embedder.model_id)
    finally:
        store.close()
    vectors_of = {q: embedder.encode([q])[0] for q in queries}
    runners: dict[str, Callable[[str], list[str]]] = {
        "lexical": lambda q: [h.address for h in index.lexical(q, TOP)],
        "semantic": lambda q: [h.address for h in index.semantic(q, TOP)],
        "fused": lambda q: [h.address for h in index.search(q, TOP)],
        "scan": lambda q: [h.address for h in matrix.top(vectors_of[q], TOP)],
        "numpy_e2e": lambda q: scans["numpy_scan"].top(embedder.encode([q])[0]),
    }
    for name, scan in scans.items():
        if scan.available:
            runners[name] = partial(_scan_top, scan, vectors_of)
    peer_ms: list[float] = []
    answers: dict[str, dict[str, list[str]]] = {name: {} for name in runners}
    answers["peer"] = {}
    times: dict[str, list[float]] = {name: [] for name in runners}
    names = list(runners)
    for i, query in enumerate([*queries[:WARMUP], *queries]):
        measured = i >= WARMUP
        for name in names[i % len(names) :] + names[: i % len(names)]:
            start = time.perf_counter()
            answers[name][query] = runners[name](query)
            if measured:
                times[name].append((time.perf_counter() - start) * 1000)
        if peer is not None:
            ms, ids = peer.query(query)
            answers["peer"][query] = _peer_addresses(ids, translation)
            if measured:
                peer_ms.append(ms)
    figures = {name: percentiles(samples) for name, samples in times.items()}
    if peer is not None:
        figures["peer"] = percentiles(peer_ms)
    return {
        "docs": len(addresses),
        "queries": len(queries),
        "latency": figures,
        "ratios": ratios(figures),
        "agreement": _agreement(answers, list(queries)),
    }


def _scan_top(scan: NumpyScan, vectors_of: dict[str, np.ndarray], query: str) -> list[str]:
    return scan.top(vectors_of[query])


def _peer_addresses(ids: list[str], translation: Translation | None) -> list[str]:
    if translation is None:
        return ids
    return [a for a in (translation.address_of(i) for i in ids) if a is not None]


def _agreement(answers: dict[str, dict[str, list[str]]], queries: list[str]) -> dict[str, float]:
    """Top-10 overlap of the exact scans with our semantic channel; top-1 agreement of the peer with ours."""

    def mean(values: list[float]) -> float:
        return statistics.fmean(values) if values else float("nan")

    out = {
        "numpy_vs_semantic_top10": mean([overlap(answers["semantic"][q], answers["numpy_e2e"][q]) for q in queries]),
        "numpy_vs_scan_top10": mean([overlap(answers["scan"][q], answers["numpy_scan"][q]) for q in queries]),
    }
    if answers["peer"]:
        for ours in ("lexical", "fused"):
            same = [float(bool(answers["peer"][q]) and answers[ours][q][:1] == answers["peer"][q][:1]) for q in queries]
            out[f"peer_vs_{ours}_top1"] = mean(same)
        out["peer_empty_share"] = mean([float(not answers["peer"][q]) for q in queries])
    return out
