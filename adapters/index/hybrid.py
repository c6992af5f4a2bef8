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
embedding a sync's texts (the slow part) runs outside it.

Where the docs and vectors live is a :class:`~adapters.index.backend.RetrievalStore`:
the embedded SQLite file by default, or a shared PostgreSQL database when
``settings`` name one (see :mod:`adapters.index.settings`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

from adapters.index.backend import Described, Filters, RetrievalStore
from adapters.index.documents import CHANNELS, Channel, ChannelHit, Hit, IndexDoc, SyncStats
from adapters.index.embedder import TextEncoder
from adapters.index.fusion import RRF_K, rrf
from adapters.index.settings import IndexSettings, open_store
from adapters.index.sync import sync as sync_docs
from adapters.index.sync import sync_delta

log = logging.getLogger(__name__)

T = TypeVar("T")
CANDIDATES = 50
"""Each channel contributes at least its top 50 to the fusion (more when the caller asks for more)."""
SNIPPET_CHARS = 240
EMBED_CHUNK = 2048
"""Texts embedded (and committed) per step of a sync: bounds memory and keeps an interrupted build's work."""


class HybridIndex:
    """Keyword (FTS5 bm25) + meaning (MiniLM cosine) retrieval over one cached set of docs."""

    def __init__(self, store: RetrievalStore, embedder: TextEncoder, embed_chunk: int = EMBED_CHUNK) -> None:
        self._store = store
        self.embedder = embedder
        self.embed_chunk = max(1, embed_chunk)
        self._docs: tuple[IndexDoc, ...] | None = None
        self._lock = threading.RLock()
        self.last_sync: SyncStats | None = None
        """What the last :meth:`sync` or :meth:`resume` of this handle found (None before either)."""

    @classmethod
    def open(
        cls,
        cache_dir: Path,
        embedder: TextEncoder,
        name: str = "default",
        *,
        embed_chunk: int = EMBED_CHUNK,
        settings: IndexSettings | None = None,
    ) -> HybridIndex:
        """Open ``<cache_dir>/index-<name>.sqlite3`` (a bad or missing file is rebuilt, never raised; a symlink
        raises ``CacheLinkRefused``), or the database ``settings`` name."""
        return cls(open_store(Path(cache_dir), name, settings), embedder, embed_chunk)

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

    @property
    def store(self) -> RetrievalStore:
        """The backend (for tools that copy or inspect an index, such as ``synapse index migrate``)."""
        return self._store

    def close(self) -> None:
        with self._lock:
            self._store.close()

    def __enter__(self) -> HybridIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def sync(self, docs: Iterable[IndexDoc]) -> SyncStats:
        """Make the index hold exactly ``docs`` (first occurrence wins on a repeated address)."""
        return self._sync_unique(_unique(docs))

    def _sync_unique(self, unique: dict[str, IndexDoc]) -> SyncStats:
        self._docs = tuple(unique.values())
        try:
            stats = self._sync(unique)
        except Exception as exc:
            if not self._store.is_corruption(exc):
                raise
            log.warning("index cache corrupt during sync (%s); rebuilding", exc)
            with self._lock:
                self._store.reset()
            stats = self._sync(unique)
        self.last_sync = stats
        return stats

    def warm_state(self) -> object | None:
        """The store's in-process read state for this encoder, loaded now (see :meth:`adopt_state`)."""
        return self._guard(lambda: self._store.warm_state(self.embedder.model_id), lambda: None)

    def adopt_state(self, state: object | None) -> None:
        """Start from another handle's :meth:`warm_state` on the same index, so a process forked from a warm
        one does not load the vectors again; a state the index has moved past since is reloaded, not used."""
        if state is not None:
            with self._lock:
                self._store.adopt_state(state)

    def resume(self, docs: Iterable[IndexDoc], synced: SyncStats | None) -> SyncStats:
        """:meth:`sync`, skipped while the store is where ``synced`` - a sync of these same docs - left it.

        A navigate turn forked from a warm template holds the very docs the template synced; when no process
        has committed since (the generation has not moved) and the encoder is the same, the cache still holds
        exactly them, and the diff over every doc (seconds at 100k nodes) is skipped. Anything else syncs.
        """
        unique = _unique(docs)
        if (
            synced is not None
            and synced.generation is not None
            and synced.encoder == self.embedder.model_id
            and self._guard(self._store.generation, lambda: -1) == synced.generation
        ):
            self._docs = tuple(unique.values())
            self.last_sync = SyncStats(reused=len(unique), generation=synced.generation, encoder=synced.encoder)
            return self.last_sync
        return self._sync_unique(unique)

    def advance(
        self,
        docs: Sequence[IndexDoc],
        earlier: Sequence[IndexDoc],
        synced: SyncStats | None,
        state: object | None,
        *,
        written: Mapping[str, IndexDoc] | None = None,
    ) -> SyncStats:
        """:meth:`resume` after an edit: write only what differs from ``earlier``, the docs ``synced`` left here.

        While no process has committed since that sync (the generation has not moved) the store holds exactly
        ``earlier``, so the docs that are not the same objects (or equal values), and the addresses that left,
        are all there is to write; no snapshot of every row is read. ``state`` is the earlier handle's
        :meth:`warm_state`: adopted, and patched with the written rows rather than loaded again. Anything
        else - another writer first, another encoder, no earlier sync - is a full :meth:`sync`.

        ``written``, where the caller knows it, is that difference already: ``docs`` are ``earlier`` with the
        same addresses in the same places and only these docs differing (a reload that moved no address),
        so neither list is walked again.
        """
        generation = self._guard(self._store.generation, lambda: -1)
        if synced is None or synced.generation != generation or synced.encoder != self.embedder.model_id:
            return self._sync_unique(_unique(docs))
        self.adopt_state(state)
        if written is not None:  # every written address is one the store holds: nothing is added
            changed, removed, current = dict(written), [], tuple(docs)
            held, known = len(earlier), set(written)
        else:
            unique = _unique(docs)
            before = {d.address: d for d in earlier}
            changed = {a: d for a, d in unique.items() if (old := before.get(a)) is not d and old != d}
            removed = [a for a in before if a not in unique]
            current, held, known = tuple(unique.values()), len(before), {a for a in changed if a in before}
        if not changed and not removed:
            return self.resume(current, synced)
        self._docs = current
        try:
            stats = sync_delta(
                self._store, self._lock, self.embedder, held, changed, removed, generation, self.embed_chunk, known
            )
        except Exception as exc:
            if not self._store.is_corruption(exc):
                raise
            stats = None  # the full sync below finds the damage again and rebuilds
        if stats is None:  # another writer came first, or the cache is damaged: diff everything
            return self._sync_unique(_unique(current))
        # Only a store that keeps its vectors in memory (the embedded one) has a state to patch.
        advance = getattr(self._store, "advance_state", None)
        if advance is not None and stats.generation is not None:
            with self._lock:
                advance(self.embedder.model_id, generation, stats.generation, list(changed), removed)
        self.last_sync = stats
        return stats

    def search(
        self,
        query: str,
        limit: int = 10,
        *,
        families: Collection[str] | None = None,
        projects: Collection[str] | None = None,
        types: Collection[str] | None = None,
        channels: Sequence[Channel] = CHANNELS,
        fusion_k: int = RRF_K,
    ) -> list[Hit]:
        """The best ``limit`` docs for ``query`` by RRF (constant ``fusion_k``) over the chosen channels; the score
        only orders."""
        unknown = set(channels) - set(CHANNELS)
        if unknown:
            raise ValueError(f"unknown channel(s) {sorted(unknown)}; choose from {list(CHANNELS)}")
        if limit <= 0:
            return []
        depth = max(CANDIDATES, limit)
        filters = Filters(families, projects, types)
        ranked: dict[str, list[ChannelHit]] = {}
        both = "lexical" in channels and "semantic" in channels and bool(query.strip())
        vector = _QueryVector(self, query, ahead=both and getattr(self.embedder, "is_loaded", False))
        try:
            if "lexical" in channels:
                ranked["lexical"] = self._guard(lambda: self._store.lexical(query, depth, filters), list)
            if "semantic" in channels:
                ranked["semantic"] = self._semantic(query, depth, filters, vector)
        finally:
            vector.settle()
        fused = rrf(ranked, fusion_k)[:limit]
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
        filters = Filters(families, projects, types)
        return self._guard(lambda: self._store.lexical(query, limit, filters), list)

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
        return self._semantic(query, limit, Filters(families, projects, types), _QueryVector(self, query))

    def _semantic(self, query: str, limit: int, filters: Filters, vector: _QueryVector) -> list[ChannelHit]:
        if not query.strip() or limit <= 0:
            return []
        model_id = self.embedder.model_id
        return self._guard(lambda: self._store.semantic(vector, limit, filters, model_id), list)

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
        filters = Filters(families, projects, types)
        model_id = self.embedder.model_id
        return self._guard(lambda: self._store.similar(address, limit, filters, model_id), list)

    def _sync(self, unique: dict[str, IndexDoc], *, holding_lock: bool = False) -> SyncStats:
        """Diff, embed what is missing and commit chunk by chunk (see :mod:`adapters.index.sync`)."""
        return sync_docs(self._store, self._lock, self.embedder, unique, self.embed_chunk, threaded=not holding_lock)

    def _guard(self, op: Callable[[], T], fallback: Callable[[], T]) -> T:
        """Run a read under the lock; on a corrupt cache rebuild it from the last synced docs and retry once."""
        with self._lock:
            try:
                return op()
            except Exception as exc:
                if not self._store.is_corruption(exc):
                    raise
                log.warning("index cache corrupt (%s); rebuilding", exc)
                self._store.reset()
                if self._docs is None:
                    return fallback()
                self._sync({d.address: d for d in self._docs}, holding_lock=True)
                return op()


def _unique(docs: Iterable[IndexDoc]) -> dict[str, IndexDoc]:
    unique: dict[str, IndexDoc] = {}
    for doc in docs:
        if doc.address in unique:
            log.warning("index sync: duplicate address %s ignored", doc.address)
            continue
        unique[doc.address] = doc
    return unique


def _first_words(text: str) -> str:
    """A plain snippet for a doc only the meaning channel found: its opening, cut at a word boundary."""
    flat = " ".join(text.split())
    if len(flat) <= SNIPPET_CHARS - 40:
        return flat
    cut = flat[: SNIPPET_CHARS - 40].rsplit(" ", 1)[0]
    return cut + " …"


def _no_rows() -> Described:
    return {}


class _QueryVector:
    """The query's vector, computed once and only if the store has something to rank (an empty index or a
    filter nothing passes never loads the model).

    With ``ahead``, for a fused search whose model is already loaded, the vector is computed on a thread of
    its own while the keyword channel runs: the encoder and SQLite both release the GIL, so the fused
    search costs about the slower channel instead of their sum. ``settle`` waits for that thread, so no
    search leaves one behind.
    """

    def __init__(self, index: HybridIndex, query: str, *, ahead: bool = False) -> None:
        self._index, self._query = index, query
        self._vector: np.ndarray | None = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if ahead:
            self._thread = threading.Thread(target=self._encode_ahead, name="synapse-query-vector", daemon=True)
            self._thread.start()

    def _encode_ahead(self) -> None:
        try:
            self._vector = self._index.embedder.encode([self._query])[0]
        except BaseException as exc:  # raised where the vector is used, on the caller's thread
            self._error = exc

    def settle(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __call__(self) -> np.ndarray:
        self.settle()
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        if self._vector is None:
            self._vector = self._index.embedder.encode([self._query])[0]
        return self._vector
