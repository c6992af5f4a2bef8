"""Retrieval performance on synthetic workspaces of 1k, 10k (and optionally 100k) nodes.

For each size it writes a workspace (``synthetic.generate``), then measures in
three fresh processes, so one phase's caches and imports never flatter another's:

- **cold**: read the stores with the real adapters, load the model, encode a
  sample of the same texts directly (the ceiling: the model's own throughput in
  this run, the mean of one run before and one after the build), then build the
  index from nothing; the build rate divided by the ceiling says how much the
  index adds on top of embedding. On a shared machine that ratio swings with
  background load, so the build also reports the time spent inside the model
  and the rest (hashing, diffing, SQLite and FTS writes) directly. Peak RSS.
- **warm**: what a restart costs: read the stores, open the cache and sync the
  unchanged docs (no model may load), load the vector matrix, answer one
  keyword query; peak RSS without the model.
- **query**: a serving process over the warm cache: query latency p50/p95 for
  the lexical, semantic (including the query embedding) and fused paths, and
  the peak RSS of serving with the model loaded.

``--workdir DIR --reuse`` keeps the workspaces and reruns only the warm and query
phases on an index an earlier run built; ``--reuse 100k`` does that for the sizes it
names and builds the rest. Each cold build's figures are kept beside the workspace
(``cold-<size>.json``) and reported, marked as reused, when a later run reuses it.

Run: ``python -m dev.synapse_bench.perf --sizes 1k,10k [--queries 200] [--json]``.
100k is supported but slow here (the cold embed of 100k docs takes ~10 min on two
shared cores). Figures are measurements to compare across changes and machines;
no test asserts a timing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dev.synapse_bench.synthetic import generate, parse_size, sample_queries

CACHE = ".angelo"


def _load_docs(root: Path) -> tuple[list[Any], float]:
    """The workspace's memory and zettelkasten nodes as index docs, read by the real adapters."""
    from adapters.index import IndexDoc
    from adapters.memory import MemoryAdapter
    from adapters.zettelkasten import ZettelkastenAdapter

    start = time.perf_counter()
    nodes = MemoryAdapter(Path(".memory"), root, "demo").load().nodes
    nodes += ZettelkastenAdapter(Path(".zettelkasten"), None, {}, root).load().nodes
    docs = [IndexDoc.from_node(n) for n in nodes]
    return docs, time.perf_counter() - start


def _percentiles(run: Callable[[str], object], queries: list[str]) -> dict[str, float]:
    for text in queries[:5]:  # warm caches and code paths; not measured
        run(text)
    times = []
    for text in queries:
        start = time.perf_counter()
        run(text)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {"p50_ms": statistics.median(times), "p95_ms": times[min(len(times) - 1, int(len(times) * 0.95))]}


class _TimedEncoder:
    """Passes texts to the real embedder and adds up the time spent inside it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.model_id: str = inner.model_id
        self.seconds = 0.0

    def encode(self, texts: Sequence[str]) -> Any:
        start = time.perf_counter()
        try:
            return self.inner.encode(texts)
        finally:
            self.seconds += time.perf_counter() - start


def _rate(encode: Callable[[list[str]], object], texts: list[str]) -> float:
    start = time.perf_counter()
    encode(texts)
    return len(texts) / (time.perf_counter() - start)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def cold(root: Path, ceiling_sample: int) -> dict[str, Any]:
    """Build the index from nothing, beside the model's own encode rate on the same texts."""
    from adapters.index import Embedder, HybridIndex

    docs, load_s = _load_docs(root)
    embedder = Embedder()
    start = time.perf_counter()
    embedder.load()
    model_load_s = time.perf_counter() - start
    texts = [d.embed_text() for d in docs]
    step = max(1, len(texts) // ceiling_sample)
    sample = texts[::step][:ceiling_sample]
    embedder.encode(texts[:64])  # first-batch warm-up, outside both timings
    ceiling_before = _rate(embedder.encode, sample)
    shutil.rmtree(root / CACHE, ignore_errors=True)
    start = time.perf_counter()
    timed = _TimedEncoder(embedder)
    index = HybridIndex.open(root / CACHE, timed)
    stats = index.sync(docs)
    build_s = time.perf_counter() - start
    index.close()
    # Measured on both sides of the build so background load on a shared machine skews both alike.
    ceiling = (ceiling_before + _rate(embedder.encode, sample)) / 2
    return {
        "nodes": len(docs),
        "adapter_load_s": load_s,
        "model_load_s": model_load_s,
        "ceiling_texts_per_s": ceiling,
        "ceiling_sample": len(sample),
        "build_s": build_s,
        "build_nodes_per_s": len(docs) / build_s,
        "build_vs_ceiling": (len(docs) / build_s) / ceiling,
        "build_encode_s": timed.seconds,
        "build_overhead_s": build_s - timed.seconds,
        "reembedded": stats.reembedded,
        "cache_mb": sum(f.stat().st_size for f in (root / CACHE).iterdir()) / 2**20,
        "peak_rss_mb": _peak_rss_mb(),
    }


def query(root: Path, queries: int) -> dict[str, Any]:
    """Latency of each path over the warm cache, with the model loaded as a serving process would have it."""
    from adapters.index import Embedder, HybridIndex

    docs, _ = _load_docs(root)
    embedder = Embedder()
    embedder.load()
    index = HybridIndex.open(root / CACHE, embedder)
    stats = index.sync(docs)
    qs = sample_queries(queries)
    result = {
        "reembedded": stats.reembedded,
        "lexical": _percentiles(lambda q: index.lexical(q, 50), qs),
        "semantic": _percentiles(lambda q: index.semantic(q, 50), qs),
        "fused": _percentiles(lambda q: index.search(q, 10), qs),
        "relaxed_share": sum(1 for q in qs if any(h.relaxed for h in index.lexical(q, 1))) / len(qs),
        "peak_rss_mb": _peak_rss_mb(),
    }
    index.close()
    return result


def warm(root: Path) -> dict[str, Any]:
    """A restart over an unchanged workspace: nothing may be embedded and the model must stay unloaded."""
    start = time.perf_counter()
    from adapters.index import Embedder, HybridIndex

    import_s = time.perf_counter() - start
    docs, load_s = _load_docs(root)
    embedder = Embedder()
    start = time.perf_counter()
    index = HybridIndex.open(root / CACHE, embedder)
    stats = index.sync(docs)
    open_sync_s = time.perf_counter() - start
    start = time.perf_counter()
    index.similar(docs[0].address, 10)  # loads the vector matrix from the cache, no model work
    vectors_s = time.perf_counter() - start
    start = time.perf_counter()
    index.search(sample_queries(1, seed=99)[0], 10, channels=("lexical",))
    first_lexical_ms = (time.perf_counter() - start) * 1000
    result = {
        "import_s": import_s,
        "adapter_load_s": load_s,
        "open_sync_s": open_sync_s,
        "vectors_ready_s": vectors_s,
        "first_lexical_ms": first_lexical_ms,
        "reembedded": stats.reembedded,
        "model_loaded": embedder.is_loaded,
        "torch_imported": "torch" in sys.modules,
        "peak_rss_mb": _peak_rss_mb(),
    }
    index.close()
    return result


def _child(phase: str, root: Path, args: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "dev.synapse_bench.perf", "--phase", phase, "--root", str(root)]
    cmd += ["--queries", str(args.queries), "--ceiling-sample", str(args.ceiling_sample)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=Path(__file__).resolve().parents[2])
    if out.returncode != 0:
        raise RuntimeError(f"{phase} phase failed:\n{out.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _report(rows: list[dict[str, Any]]) -> None:
    print(f"python {sys.version.split()[0]}; {os.cpu_count()} CPUs; figures from fresh processes per phase")
    for row in rows:
        c, w, q = row.get("cold"), row["warm"], row["query"]
        print(f"\n== {row['size']}: {row['nodes']} nodes (workspace written in {row['generate_s']:.1f} s)")
        if c is None:
            print("cold build     (reused an earlier build)")
        else:
            if c.get("reused"):
                print(f"cold build     (reused the index built {c.get('built_at', 'earlier')}; its figures:)")
            _report_cold(c)
        print(
            f"warm restart   {w['open_sync_s']:8.3f} s open+sync (re-embedded {w['reembedded']}, model loaded"
            f" {w['model_loaded']}, torch imported {w['torch_imported']}); vectors ready {w['vectors_ready_s']:.3f} s;"
            f" adapters read {w['adapter_load_s']:.2f} s; import {w['import_s']:.2f} s;"
            f" first keyword query {w['first_lexical_ms']:.1f} ms"
        )
        for channel in ("lexical", "semantic", "fused"):
            p = q[channel]
            print(f"query {channel:<8} p50 {p['p50_ms']:7.2f} ms   p95 {p['p95_ms']:7.2f} ms")
        print(
            f"peak RSS       warm (no model) {w['peak_rss_mb']:.0f} MB, serving {q['peak_rss_mb']:.0f} MB;"
            f" relaxed-OR share {q['relaxed_share']:.0%}"
        )


def _report_cold(c: dict[str, Any]) -> None:
    print(
        f"cold build     {c['build_s']:8.1f} s  {c['build_nodes_per_s']:7.1f} nodes/s; encode ceiling"
        f" {c['ceiling_texts_per_s']:.1f} texts/s (sample {c['ceiling_sample']}) -> ratio {c['build_vs_ceiling']:.2f}"
    )
    print(
        f"  of which     {c['build_encode_s']:8.1f} s inside the model, {c['build_overhead_s']:.2f} s index work"
        f" ({c['build_overhead_s'] / c['build_s']:.1%})"
    )
    print(
        f"model load     {c['model_load_s']:8.2f} s   adapters read {c['adapter_load_s']:.2f} s;"
        f" build peak RSS {c['peak_rss_mb']:.0f} MB; cache {c['cache_mb']:.1f} MB"
    )


def cold_record(workdir: Path, size: str) -> Path:
    """Where a size's cold-build figures are kept, beside its workspace ``workdir/ws-<size>``."""
    return workdir / f"cold-{size}.json"


def reusing(reuse: str, size: str) -> bool:
    """``--reuse`` alone reuses every size's index; ``--reuse 100k`` only the sizes it names."""
    return reuse == "all" or size in {s.strip() for s in reuse.split(",") if s.strip()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="1k,10k", help="comma-separated node counts: 1k,10k,100k")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--queries", type=int, default=200, help="queries per channel for the latency figures")
    parser.add_argument("--ceiling-sample", type=int, default=1000, help="texts encoded directly for the ceiling")
    parser.add_argument("--workdir", type=Path, help="keep the generated workspaces here (default: a temp dir)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--reuse",
        nargs="?",
        const="all",
        default="",
        help="with --workdir: skip generate and build if present (all sizes, or the sizes named)",
    )
    parser.add_argument("--phase", choices=("cold", "warm", "query"), help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase is not None:
        if args.phase == "cold":
            result = cold(args.root, args.ceiling_sample)
        else:
            result = warm(args.root) if args.phase == "warm" else query(args.root, args.queries)
        print(json.dumps(result))
        return 0
    base = args.workdir or Path(tempfile.mkdtemp(prefix="synapse-perf-"))
    rows = []
    try:
        for size in args.sizes.split(","):
            root = base / f"ws-{size.strip()}"
            row: dict[str, Any] = {"size": size.strip(), "nodes": parse_size(size), "generate_s": 0.0}
            record = cold_record(base, size.strip())
            if reusing(args.reuse, size.strip()) and (root / CACHE).is_dir():
                if record.is_file():  # the figures of the run that built this index, labelled as earlier
                    row["cold"] = {**json.loads(record.read_text(encoding="utf-8")), "reused": True}
            else:
                shutil.rmtree(root, ignore_errors=True)
                start = time.perf_counter()
                generate(root, parse_size(size), args.seed)
                row["generate_s"] = time.perf_counter() - start
                row["cold"] = _child("cold", root, args)
                row["cold"]["built_at"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
                row["cold"]["generate_s"] = row["generate_s"]
                record.write_text(json.dumps(row["cold"]) + "\n", encoding="utf-8")
            row["warm"] = _child("warm", root, args)
            row["query"] = _child("query", root, args)
            rows.append(row)
    finally:
        if args.workdir is None:
            shutil.rmtree(base, ignore_errors=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        _report(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
