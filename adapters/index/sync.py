"""The write path of the index: make the cache hold exactly a set of docs, at the encoder's own pace.

A sync diffs the docs against a snapshot of the cache, then embeds only the
texts whose content key has no vector yet, in chunks. Each chunk is committed
by a writer thread while the encoder already works on the next one, so the
model never waits for SQLite (FTS5 inserts, blob writes, the WAL) and a cold
build runs at the rate of the encoder alone. Texts are ordered by length
before they are cut into chunks, so each chunk's batches pad little.

Each commit checks the cache's generation: if another process wrote first, the
writer stops, the pipeline drains, and the sync re-diffs against the winner's
state, keeping every vector it has computed. Committing per chunk also keeps
the work of an interrupted build: a chunk already handed to the writer is
committed before the interruption propagates.

A store shared by many clients (``atomic_sync``: PostgreSQL) must never show a
half-written sync, so there the writer commits each chunk's *vectors* only, and
every row of the sync in one final transaction. Vectors another workspace or an
earlier interrupted sync already stored (``known_vectors``) are never computed.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Collection
from dataclasses import dataclass, field

import numpy as np

from adapters.index.backend import RetrievalStore
from adapters.index.documents import IndexDoc, SyncStats
from adapters.index.encoder_base import TextEncoder
from adapters.index.store import Snapshot

log = logging.getLogger(__name__)

ATTEMPTS = 5
"""Races against other writers a sync tolerates before it gives up (each costs a re-diff, not a re-embed)."""
QUEUE_DEPTH = 2
"""Chunks waiting for the writer: enough to keep the encoder busy, few enough to bound memory."""

Upsert = tuple[IndexDoc, str, str]  # doc, row hash, vector key
_FINAL: list[Upsert] = []
"""Marker for the one commit of every held row (``atomic_sync`` stores); compared by identity."""


@dataclass
class _Plan:
    """What one snapshot says must change."""

    upserts: list[Upsert]
    missing: dict[str, IndexDoc]  # vector key -> a doc with that text, for keys with no stored vector
    removals: list[str]

    @property
    def empty(self) -> bool:
        return not (self.upserts or self.removals or self.missing)


@dataclass
class _Counts:
    added: int = 0
    updated: int = 0
    removed: int = 0


@dataclass
class _Writer:
    """Commits chunks in order on its own thread; stops at the first commit another writer pre-empted.

    ``threaded`` False commits in the caller's thread instead: for a caller that already holds ``lock``
    (a rebuild after corruption), which a writer thread would wait on forever.
    """

    store: RetrievalStore
    lock: threading.RLock
    generation: int
    model_id: str
    known: set[str]  # addresses the snapshot held (to count added vs updated)
    counts: _Counts
    threaded: bool = True
    raced: bool = False
    error: BaseException | None = None
    _held_upserts: list[Upsert] = field(default_factory=list)
    _held_removals: list[str] = field(default_factory=list)
    _queue: queue.Queue[tuple[list[Upsert], list[str], dict[str, np.ndarray]] | None] = field(
        default_factory=lambda: queue.Queue(QUEUE_DEPTH)
    )

    def __post_init__(self) -> None:
        self._thread = threading.Thread(target=self._run, name="index-writer", daemon=True)
        if self.threaded:
            self._thread.start()

    @property
    def stopped(self) -> bool:
        return self.raced or self.error is not None

    def put(self, upserts: list[Upsert], removals: list[str], vectors: dict[str, np.ndarray]) -> None:
        if self.stopped:
            return
        if upserts is not _FINAL:
            upserts = list(upserts)  # never the marker itself
        if self.threaded:
            self._queue.put((upserts, removals, vectors))
        else:
            self._commit(upserts, removals, vectors)
            if self.error is not None:
                raise self.error

    def finish(self, *, complete: bool = True) -> None:
        """Wait until every chunk handed over is committed (or the writer stopped), then re-raise its error.

        ``complete`` False (the sync was interrupted): an ``atomic_sync`` store keeps its vectors but gets no
        rows, so no reader ever sees part of this sync.
        """
        if self.store.atomic_sync and complete:
            self.put(_FINAL, [], {})
        if self.threaded:
            self._queue.put(None)
            self._thread.join()
        if self.error is not None:
            raise self.error

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            if not self.stopped:  # after a race or an error: drain only, the sync re-diffs
                self._commit(*item)

    def _commit(self, upserts: list[Upsert], removals: list[str], vectors: dict[str, np.ndarray]) -> None:
        if self.store.atomic_sync and upserts is not _FINAL:
            try:  # a shared store shows no row of this sync until the final commit; keep the vectors meanwhile
                if vectors:
                    with self.lock:
                        self.store.put_vectors(vectors, self.model_id)
            except BaseException as exc:
                self.error = exc
            self._held_upserts.extend(upserts)
            self._held_removals.extend(removals)
            return
        if upserts is _FINAL:
            upserts, removals, vectors = self._held_upserts, self._held_removals, {}
        try:
            with self.lock:
                applied = self.store.apply(self.generation, upserts, removals, vectors, self.model_id)
        except BaseException as exc:  # handed to the caller's thread by finish()
            self.error = exc
            return
        if not applied:
            self.raced = True
            return
        self.generation += 1
        new = sum(1 for d, _, _ in upserts if d.address not in self.known)
        self.counts.added += new
        self.counts.updated += len(upserts) - new
        self.counts.removed += len(removals)


def sync(
    store: RetrievalStore,
    lock: threading.RLock,
    encoder: TextEncoder,
    docs: dict[str, IndexDoc],
    embed_chunk: int,
    *,
    threaded: bool = True,
) -> SyncStats:
    """Make ``store`` hold exactly ``docs``; see the module docstring for how it stays at the encoder's pace."""
    model_id = encoder.model_id
    hashes = {a: d.row_hash(model_id) for a, d in docs.items()}
    keys: dict[str, str] = {}  # vector keys of new or changed docs, computed once
    computed: dict[str, np.ndarray] = {}
    counts = _Counts()
    races = 0
    while True:
        with lock:
            snap = store.snapshot(model_id)
        plan = _plan(snap, docs, hashes, keys, model_id)
        unknown = [key for key in plan.missing if key not in computed]
        if unknown:
            with lock:  # another workspace (or an interrupted sync) may already have embedded them
                found = store.known_vectors(unknown, model_id)
            snap = Snapshot(snap.generation, snap.rows, snap.vector_keys | found)
            plan.missing = {k: d for k, d in plan.missing.items() if k not in found}
        if plan.empty:
            reembedded = sum(1 for a in hashes if snap.rows[a][1] in computed)
            return SyncStats(
                counts.added,
                counts.updated,
                counts.removed,
                reembedded,
                len(hashes) - reembedded,
                snap.generation,
                model_id,
            )
        writer = _Writer(store, lock, snap.generation, model_id, set(snap.rows), counts, threaded)
        try:
            _pipeline(plan, snap, encoder, computed, writer, embed_chunk)
        except BaseException:
            writer.finish(complete=False)
            raise
        writer.finish()
        if writer.raced:
            races += 1
            if races >= ATTEMPTS:
                raise RuntimeError(f"index sync lost {races} races against concurrent writers; try again")
            log.info("index sync raced another writer (%d); recomputing", races)


def sync_delta(
    store: RetrievalStore,
    lock: threading.RLock,
    encoder: TextEncoder,
    held: int,
    changed: dict[str, IndexDoc],
    removed: list[str],
    generation: int,
    embed_chunk: int,
    known: Collection[str] = (),
) -> SyncStats | None:
    """Write only ``changed`` and ``removed`` into a store known to hold ``held`` rows at ``generation``,
    ``known`` among them the addresses of ``changed`` it already holds (the others are added).

    The caller knows what the store holds (its own earlier sync, and the generation has not moved since), so
    no snapshot of every row is read: a reload after one edit costs that edit. Returns None, having written
    nothing, when another writer moved the generation first; the caller then runs a full :func:`sync`.
    """
    model_id = encoder.model_id
    upserts = [(doc, doc.row_hash(model_id), doc.vector_key(model_id)) for doc in changed.values()]
    wanted = {key: doc for doc, _, key in upserts}
    with lock:
        stored = store.known_vectors(list(wanted), model_id)
    missing = {key: doc for key, doc in wanted.items() if key not in stored}
    plan = _Plan(upserts, missing, removed)
    counts = _Counts()
    writer = _Writer(store, lock, generation, model_id, set(known), counts, threaded=False)
    computed: dict[str, np.ndarray] = {}
    try:
        _pipeline(plan, Snapshot(generation, {}, stored), encoder, computed, writer, embed_chunk)
    except BaseException:
        writer.finish(complete=False)
        raise
    writer.finish()
    if writer.raced:
        return None
    reembedded = sum(1 for _, _, key in upserts if key in computed)
    return SyncStats(
        counts.added,
        counts.updated,
        counts.removed,
        reembedded,
        held - len(removed) + counts.added - reembedded,
        writer.generation,
        model_id,
    )


def _plan(
    snap: Snapshot, docs: dict[str, IndexDoc], hashes: dict[str, str], keys: dict[str, str], model_id: str
) -> _Plan:
    upserts: list[Upsert] = []
    missing: dict[str, IndexDoc] = {}
    for address, row_hash in hashes.items():
        row = snap.rows.get(address)
        if row is not None and row[0] == row_hash:
            key = row[1]  # an equal row hash means equal embedded text, so the stored key is current
        else:
            key = keys.get(address) or keys.setdefault(address, docs[address].vector_key(model_id))
            upserts.append((docs[address], row_hash, key))
        if key not in snap.vector_keys:
            missing.setdefault(key, docs[address])
    return _Plan(upserts, missing, [a for a in snap.rows if a not in hashes])


def _pipeline(
    plan: _Plan,
    snap: Snapshot,
    encoder: TextEncoder,
    computed: dict[str, np.ndarray],
    writer: _Writer,
    embed_chunk: int,
) -> None:
    """Hand the writer what is ready now, then one chunk per encode, until done or the writer stops."""
    by_key: dict[str, list[Upsert]] = {}
    for upsert in plan.upserts:
        by_key.setdefault(upsert[2], []).append(upsert)
    ready = [u for u in plan.upserts if u[2] in snap.vector_keys or u[2] in computed]
    known = {k: computed[k] for k in plan.missing if k in computed}
    todo = sorted((k for k in plan.missing if k not in computed), key=lambda k: len(plan.missing[k].embed_text()))
    if ready or plan.removals or known:
        writer.put(ready, plan.removals, known)
    for start in range(0, len(todo), max(1, embed_chunk)):
        if writer.stopped:
            return
        chunk = todo[start : start + embed_chunk]
        vectors = encoder.encode([plan.missing[k].embed_text() for k in chunk])
        fresh = dict(zip(chunk, vectors, strict=True))
        computed.update(fresh)
        writer.put([u for k in chunk for u in by_key.get(k, ())], [], fresh)
