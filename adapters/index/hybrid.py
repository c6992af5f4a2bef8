"""The hybrid index every action searches through.

``HybridIndex.open(cache_dir, embedder)`` opens (or creates) the cache,
``sync(docs)`` makes it hold exactly ``docs`` - embedding only texts whose
content key is not cached, so a warm open with unchanged docs does no model
work at all - and ``search(query)`` fuses the keyword and meaning channels with
RRF. ``lexical`` and ``semantic`` expose each channel alone for benchmarks and
for callers that want one signal.

Filters narrow both channels before ranking: ``families`` (memory, zk, code,
data), ``projects`` (zk projects; other families pass, and ``[]`` drops every
zk doc) and ``types`` (node types). ``None`` means no filter.

One index may be shared by threads: every cache access holds a lock, while
embedding (the slow part of a sync or a semantic query) runs outside it.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

from adapters.index import lexical as lexical_channel
from adapters.index.documents import CHANNELS, Channel, ChannelHit, Hit, IndexDoc, SyncStats
from adapters.index.embedder import TextEncoder
from adapters.index.fusion import rrf
from adapters.index.semantic import VectorMatrix
from adapters.index.store import Store, is_corruption
from adapters.index.sync import sync as sync_docs

log = logging.getLogger(__name__)

T = TypeVar("T")
CANDIDATES = 50
"""Each channel contributes at least its top 50 to the fusion (more when the caller asks for more)."""
SNIPPET_CHARS = 240
EMBED_CHUNK = 2048
"""Texts embedded (and committed) per step of a sync: bounds memory and keeps an interrupted build's work."""


class HybridIndex:
    """Keyword (FTS5 bm25) + meaning (MiniLM cosine) retrieval over one cached set of docs."""

    def __init__(self, store: Store, embedder: TextEncoder, embed_chunk: int = EMBED_CHUNK) -> None:
        self._store = store
        self.embedder = embedder
        self.embed_chunk = max(1, embed_chunk)
        self._matrix: VectorMatrix | None = None
        self._matrix_generation = -1
        self._docs: tuple[IndexDoc, ...] | None = None
        self._lock = threading.RLock()

    @classmethod
    def open(
        cls, cache_dir: Path, embedder: TextEncoder, name: str = "default", *, embed_chunk: int = EMBED_CHUNK
    ) -> HybridIndex:
        """Open ``<cache_dir>/index-<name>.sqlite3``; a bad or missing file is rebuilt, never raised."""
        return cls(Store.open(Path(cache_dir), name), embedder, embed_chunk)

    @property
    def path(self) -> Path | None:
        """The cache file (None when the cache directory was unusable and the index lives in memory)."""
        return self._store.path

    @property
    def encoder_id(self) -> str | None:
        """The encoder identity the cache was last synced with (compare with ``embedder.model_id``)."""
        return self._guard(self._store.encoder, lambda: None)

    def __len__(self) -> int:
        return self._guard(self._store.count, lambda: 0)

    def close(self) -> None:
        with self._lock:
            self._store.close()
            self._matrix = None

    def __enter__(self) -> HybridIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def sync(self, docs: Iterable[IndexDoc]) -> SyncStats:
        """Make the index hold exactly ``docs`` (first occurrence wins on a repeated address)."""
        unique: dict[str, IndexDoc] = {}
        for doc in docs:
            if doc.address in unique:
                log.warning("index sync: duplicate address %s ignored", doc.address)
                continue
            unique[doc.address] = doc
        self._docs = tuple(unique.values())
        try:
            return self._sync(unique)
        except sqlite3.DatabaseError as exc:
            if not is_corruption(exc):
                raise
            log.warning("index cache corrupt during sync (%s); rebuilding", exc)
            with self._lock:
                self._store.reset()
                self._matrix = None
            return self._sync(unique)

    def search(
        self,
        query: str,
        limit: int = 10,
        *,
        families: Collection[str] | None = None,
        projects: Collection[str] | None = None,
        types: Collection[str] | None = None,
        channels: Sequence[Channel] = CHANNELS,
    ) -> list[Hit]:
        """The best ``limit`` docs for ``query`` by RRF over the chosen channels; the score only orders."""
        unknown = set(channels) - set(CHANNELS)
        if unknown:
            raise ValueError(f"unknown channel(s) {sorted(unknown)}; choose from {list(CHANNELS)}")
        if limit <= 0:
            return []
        depth = max(CANDIDATES, limit)
        ranked: dict[str, list[ChannelHit]] = {}
        if "lexical" in channels:
            ranked["lexical"] = self.lexical(query, depth, families=families, projects=projects, types=types)
        if "semantic" in channels:
            ranked["semantic"] = self.semantic(query, depth, families=families, projects=projects, types=types)
        fused = rrf(ranked)[:limit]
        info = self._guard(lambda: self._store.describe([f.address for f in fused], SNIPPET_CHARS), _no_rows)
        hits: list[Hit] = []
        for f in fused:
            if f.address not in info:
                continue  # removed by another process between ranking and description
            family, type_, project, title, text = info[f.address]
            lex, sem = f.lexical, f.semantic
            snippet = lex.snippet if lex is not None and lex.snippet else _first_words(text)
            hits.append(
                Hit(
                    address=f.address,
                    score=f.score,
                    lexical_rank=lex.rank if lex else None,
                    semantic_rank=sem.rank if sem else None,
                    relaxed=bool(lex and lex.relaxed),
                    family=family,
                    type=type_,
                    project=project,
                    title=title,
                    snippet=snippet,
                    similarity=sem.score if sem else None,
                )
            )
        return hits

    def lexical(
        self,
        query: str,
        limit: int = 10,
        *,
        families: Collection[str] | None = None,
        projects: Collection[str] | None = None,
        types: Collection[str] | None = None,
    ) -> list[ChannelHit]:
        """Keyword channel alone: bm25 order, strict AND first, then one flagged OR relaxation."""
        where, params = _filter_sql(families, projects, types)
        return self._guard(lambda: lexical_channel.search(self._store.conn, query, limit, where, params), list)

    def semantic(
        self,
        query: str,
        limit: int = 10,
        *,
        families: Collection[str] | None = None,
        projects: Collection[str] | None = None,
        types: Collection[str] | None = None,
    ) -> list[ChannelHit]:
        """Meaning channel alone: exact cosine order (score = cosine similarity)."""
        if not query.strip() or limit <= 0:
            return []
        matrix = self._guard(self._current_matrix, lambda: None)
        if matrix is None or len(matrix) == 0:
            return []
        mask = matrix.mask(families, projects, types)
        if mask is not None and not mask.any():
            return []
        vector = self.embedder.encode([query])[0]
        return matrix.top(vector, limit, mask)

    def similar(
        self,
        address: str,
        limit: int = 10,
        *,
        families: Collection[str] | None = None,
        projects: Collection[str] | None = None,
        types: Collection[str] | None = None,
    ) -> list[ChannelHit]:
        """Nearest neighbours of an indexed doc by its stored vector (no model work); itself excluded."""
        matrix = self._guard(self._current_matrix, lambda: None)
        row = matrix.row_of(address) if matrix is not None else None
        if matrix is None or row is None:
            return []
        mask = matrix.mask(families, projects, types)
        mask = np.ones(len(matrix), dtype=bool) if mask is None else mask.copy()
        mask[row] = False
        hits = matrix.top(matrix.vectors[row], limit, mask)
        return hits

    def _sync(self, unique: dict[str, IndexDoc], *, holding_lock: bool = False) -> SyncStats:
        """Diff, embed what is missing and commit chunk by chunk (see :mod:`adapters.index.sync`)."""
        return sync_docs(self._store, self._lock, self.embedder, unique, self.embed_chunk, threaded=not holding_lock)

    def _current_matrix(self) -> VectorMatrix:
        """The in-memory vectors, reloaded whenever any process has committed a sync since the last load."""
        generation = self._store.generation()
        if self._matrix is None or generation != self._matrix_generation:
            self._matrix_generation, self._matrix = self._store.load_matrix(self.embedder.model_id)
        return self._matrix

    def _guard(self, op: Callable[[], T], fallback: Callable[[], T]) -> T:
        """Run a read under the lock; on a corrupt cache rebuild it from the last synced docs and retry once."""
        with self._lock:
            try:
                return op()
            except sqlite3.DatabaseError as exc:
                if not is_corruption(exc):
                    raise
                log.warning("index cache corrupt (%s); rebuilding", exc)
                self._store.reset()
                self._matrix = None
                if self._docs is None:
                    return fallback()
                self._sync({d.address: d for d in self._docs}, holding_lock=True)
                return op()


def _filter_sql(
    families: Collection[str] | None, projects: Collection[str] | None, types: Collection[str] | None
) -> tuple[str, list[object]]:
    """An SQL condition over the ``docs`` alias ``d`` (fixed column names; values bound as parameters)."""
    clauses: list[str] = []
    params: list[object] = []
    for column, values in (("family", families), ("type", types)):
        if values is not None:
            items = sorted(set(values))
            clauses.append(f"d.{column} IN ({', '.join('?' * len(items))})" if items else "0")
            params.extend(items)
    if projects is not None:
        items = sorted(set(projects))
        inner = f" OR d.project IN ({', '.join('?' * len(items))})" if items else ""
        clauses.append(f"(d.family != 'zk'{inner})")
        params.extend(items)
    return " AND ".join(clauses), params


def _first_words(text: str) -> str:
    """A plain snippet for a doc only the meaning channel found: its opening, cut at a word boundary."""
    flat = " ".join(text.split())
    if len(flat) <= SNIPPET_CHARS - 40:
        return flat
    cut = flat[: SNIPPET_CHARS - 40].rsplit(" ", 1)[0]
    return cut + " …"


def _no_rows() -> dict[str, tuple[str, str, str | None, str, str]]:
    return {}
