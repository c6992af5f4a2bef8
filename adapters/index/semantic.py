"""The meaning channel: exact cosine over every stored vector, in numpy.

Vectors are unit length, so cosine is one matrix-vector product. Brute force
stays within ~10-20 ms up to 100-200k docs on two cores, and it is exact, so an
approximate index would buy nothing at the sizes a project reaches. Rows are
kept in address order and ties are broken by that order, so the same query over
the same docs always ranks the same way.

Filters are applied before ranking: family, project and type are stored as
small integer codes so a mask over 100k rows costs well under a millisecond.
"""

from __future__ import annotations

import bisect
import itertools
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from adapters.index.documents import ChannelHit

if TYPE_CHECKING:
    from adapters.index.backend import Filters


@dataclass(frozen=True, slots=True)
class _Column:
    """A categorical column: one small int per row plus the value each int stands for."""

    codes: np.ndarray
    values: dict[str | None, int]

    @classmethod
    def build(cls, items: Sequence[str | None]) -> _Column:
        values: dict[str | None, int] = {}
        codes = np.fromiter((values.setdefault(v, len(values)) for v in items), dtype=np.int32, count=len(items))
        return cls(codes, values)

    def patched(self, keep: np.ndarray, at: Sequence[int], values: Sequence[str | None]) -> _Column:
        """The rows ``keep`` selects, with ``values`` inserted before positions ``at`` (as ``np.insert``)."""
        mapping = dict(self.values)
        codes = self.codes[keep]
        if at:
            new = np.fromiter((mapping.setdefault(v, len(mapping)) for v in values), dtype=np.int32, count=len(values))
            codes = np.insert(codes, list(at), new)
        return _Column(codes, mapping)

    def rewritten(self, where: Sequence[int], values: Sequence[str | None]) -> _Column:
        """This column with the rows at ``where`` set to ``values``."""
        mapping = dict(self.values)
        codes = self.codes.copy()
        codes[list(where)] = [mapping.setdefault(v, len(mapping)) for v in values]
        return _Column(codes, mapping)

    def mask(self, wanted: Iterable[str | None]) -> np.ndarray:
        keys = [self.values[v] for v in wanted if v in self.values]
        return np.isin(self.codes, np.asarray(keys, dtype=np.int32))


EDITS_HELD = 256
"""Edited rows a matrix keeps beside its array before writing them into a copy of it (see ``_rewritten``)."""

MatrixRow = tuple[str, np.ndarray, str, str | None, str]
"""One row as a sync writes it: address, unit vector, family, project, type."""

SPLIT_ROWS = 32_768
"""Rows from which one query's product is split across the CPUs (see :func:`cosine_scores`)."""


def cosine_scores(vectors: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``vectors @ query``, one float32 score per row, split into one slice per CPU past :data:`SPLIT_ROWS` rows.

    einsum, not ``@``: BLAS gemv spreads over its own threads, and on a busy 2-core machine that cost a
    ~20 ms floor per query at any size, while einsum's single-threaded SIMD loop takes 0.3 ms at 10k rows.
    One core reads a 100k-row matrix (150 MB) at 22-25 ms, though, so a large matrix is scored in slices on
    threads of this call's own (einsum releases the GIL): 12-14 ms at 100k on two cores. Each row's score
    is the same sum whichever slice holds it, so the ranking does not depend on the split. The threads
    are started per call, not pooled: a forked turn inherits no worker a pool believes it still has.
    """
    rows = vectors.shape[0]
    slices = min(_usable_cpus(), rows // (SPLIT_ROWS // 2))
    if rows < SPLIT_ROWS or slices < 2:
        return np.einsum("ij,j->i", vectors, query)
    scores = np.full(rows, np.nan, dtype=np.float32)  # a row no slice scored could never pass for a stale score
    bounds = np.linspace(0, rows, slices + 1, dtype=np.int64).tolist()
    parts = list(itertools.pairwise(bounds))

    failed: list[BaseException] = []

    def score(start: int, stop: int) -> None:
        try:
            np.einsum("ij,j->i", vectors[start:stop], query, out=scores[start:stop])
        except BaseException as exc:  # raised below, on the caller's thread, never left as NaN scores
            failed.append(exc)

    helpers = [threading.Thread(target=score, args=part, name="synapse-scan", daemon=True) for part in parts[1:]]
    for helper in helpers:
        helper.start()
    try:
        score(*parts[0])
    finally:
        for helper in helpers:
            helper.join()
    if failed:
        raise failed[0]
    return scores


def _usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the platform tells it, else every CPU)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


class VectorMatrix:
    """All vectors of one index, their addresses (sorted) and the filter columns."""

    def __init__(
        self,
        addresses: Sequence[str],
        vectors: np.ndarray,
        families: Sequence[str | None],
        projects: Sequence[str | None],
        types: Sequence[str | None],
    ) -> None:
        if vectors.ndim != 2 or vectors.shape[0] != len(addresses):
            raise ValueError(f"vector matrix shape {vectors.shape} does not match {len(addresses)} addresses")
        self.addresses = list(addresses)
        self._base = np.ascontiguousarray(vectors, dtype=np.float32)
        self._edits: dict[int, np.ndarray] = {}
        self._families = _Column.build(families)
        self._projects = _Column.build(projects)
        self._types = _Column.build(types)

    def __len__(self) -> int:
        return len(self.addresses)

    @property
    def vectors(self) -> np.ndarray:
        """Every row's vector as one array: the shared array itself, or, where rows were edited, a copy with
        them written in (this matrix is never changed: a search may be reading it)."""
        if not self._edits:
            return self._base
        merged = self._base.copy()
        rows = list(self._edits)
        merged[rows] = np.stack([self._edits[row] for row in rows])
        return merged

    def vector(self, row: int) -> np.ndarray:
        """One row's vector, without materialising :attr:`vectors`."""
        edited = self._edits.get(row)
        return self._base[row] if edited is None else edited

    @property
    def dimension(self) -> int:
        return int(self._base.shape[1])

    def row_of(self, address: str) -> int | None:
        """Row index of ``address`` (binary search: rows are sorted)."""
        i = bisect.bisect_left(self.addresses, address)
        return i if i < len(self.addresses) and self.addresses[i] == address else None

    def patched(self, dropped: Iterable[str], rows: Sequence[MatrixRow]) -> VectorMatrix:
        """This matrix less the rows of ``dropped`` and of every address in ``rows``, plus ``rows``.

        What a sync of a few docs changed, applied without reading every vector again; the result equals a
        fresh load of the same docs (same sorted order, same columns). Columns are edited as code arrays:
        rebuilding them value by value cost more than the patch saved at 100k rows.
        """
        dropped = list(dropped)
        if not dropped and rows:
            rewritten = self._rewritten(rows)
            if rewritten is not None:
                return rewritten
        gone = {*dropped, *(row[0] for row in rows)}
        drop = sorted(i for i in map(self.row_of, gone) if i is not None)
        keep = np.ones(len(self), dtype=bool)
        keep[drop] = False
        addresses = (
            [a for a, k in zip(self.addresses, keep.tolist(), strict=True) if k] if drop else list(self.addresses)
        )
        where = [bisect.bisect_left(addresses, row[0]) for row in rows]
        order = sorted(range(len(rows)), key=lambda i: (where[i], rows[i][0]))
        at = [where[i] for i in order]
        vectors = self.vectors[keep] if drop else self.vectors
        if rows:
            vectors = np.insert(vectors, at, np.stack([rows[i][1] for i in order]), axis=0)
            for i in reversed(order):  # back to front, so earlier insert positions stay valid
                addresses.insert(where[i], rows[i][0])
        placed = [rows[i] for i in order]
        return VectorMatrix._assembled(
            addresses,
            vectors,
            self._families.patched(keep, at, [row[2] for row in placed]),
            self._projects.patched(keep, at, [row[3] for row in placed]),
            self._types.patched(keep, at, [row[4] for row in placed]),
        )

    def _rewritten(self, rows: Sequence[MatrixRow]) -> VectorMatrix | None:
        """:meth:`patched` where every row replaces one already here (an edit); None where a row is new (then
        rows must be inserted).

        The new matrix shares this one's array and keeps the edited rows beside it (scored apart in
        :meth:`top`): copying every vector for one edit cost ~70 ms at 100k rows. Past :data:`EDITS_HELD`
        edited rows they are written into one copy. This matrix is left as it was either way.
        """
        at = [self.row_of(row[0]) for row in rows]
        if any(i is None for i in at):
            return None
        where = [i for i in at if i is not None]
        edits = dict(self._edits)
        for i, row in zip(where, rows, strict=True):
            edits[i] = np.ascontiguousarray(row[1], dtype=np.float32)
        matrix = VectorMatrix._assembled(
            list(self.addresses),
            self._base,
            self._families.rewritten(where, [row[2] for row in rows]),
            self._projects.rewritten(where, [row[3] for row in rows]),
            self._types.rewritten(where, [row[4] for row in rows]),
        )
        matrix._edits = edits
        if len(edits) > EDITS_HELD:  # written into one copy before anyone can read the new matrix
            matrix._base, matrix._edits = matrix.vectors, {}
        return matrix

    @classmethod
    def _assembled(
        cls, addresses: list[str], vectors: np.ndarray, families: _Column, projects: _Column, types: _Column
    ) -> VectorMatrix:
        matrix = cls.__new__(cls)
        matrix.addresses, matrix._base = addresses, np.ascontiguousarray(vectors, dtype=np.float32)
        matrix._edits = {}
        matrix._families, matrix._projects, matrix._types = families, projects, types
        return matrix

    def mask(
        self,
        families: Iterable[str] | None = None,
        projects: Iterable[str] | None = None,
        types: Iterable[str] | None = None,
    ) -> np.ndarray | None:
        """Rows passing every given filter; None means no filter. ``projects`` only narrows zk rows."""
        mask: np.ndarray | None = None
        if families is not None:
            mask = self._families.mask(families)
        if projects is not None:
            zk = self._families.mask(["zk"])
            keep = ~zk | self._projects.mask(projects)
            mask = keep if mask is None else mask & keep
        if types is not None:
            t = self._types.mask(types)
            mask = t if mask is None else mask & t
        return mask

    def ranked(self, encode: Callable[[], np.ndarray], limit: int, filters: Filters) -> list[ChannelHit]:
        """The meaning channel over these rows: the ``limit`` nearest the query ``encode`` gives, among the rows
        passing ``filters``; the query is embedded only when some row passes them."""
        mask = self.mask(filters.families, filters.projects, filters.types)
        if len(self) == 0 or (mask is not None and not mask.any()):
            return []
        return self.top(encode(), limit, mask)

    def neighbours(self, address: str, limit: int, filters: Filters) -> list[ChannelHit]:
        """The ``limit`` rows nearest ``address``'s own vector among those passing ``filters``, itself left out."""
        row = self.row_of(address)
        if row is None:
            return []
        mask = self.mask(filters.families, filters.projects, filters.types)
        mask = np.ones(len(self), dtype=bool) if mask is None else mask.copy()
        mask[row] = False
        return self.top(self.vector(row), limit, mask)

    def top(self, query: np.ndarray, limit: int, mask: np.ndarray | None = None) -> list[ChannelHit]:
        """The ``limit`` rows most similar to ``query`` (a unit vector), best first, ties by address."""
        if limit <= 0 or len(self) == 0:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dimension:
            raise ValueError(f"query has dimension {q.shape[0]}, index has {self.dimension}")
        # One product over all rows, then select: cheaper than copying the filtered sub-matrix.
        scores = cosine_scores(self._base, q)
        if self._edits:  # rows an edit replaced are scored from their own vectors
            rows_edited = list(self._edits)
            scores[rows_edited] = np.einsum("ij,j->i", np.stack([self._edits[r] for r in rows_edited]), q)
        rows = np.flatnonzero(mask) if mask is not None else None
        if rows is not None:
            scores = scores[rows]
        if scores.shape[0] == 0:
            return []
        if scores.shape[0] > limit:
            # Keep every row tied with the k-th best so the address tie-break, not argpartition, decides.
            kth = np.partition(scores, scores.shape[0] - limit)[scores.shape[0] - limit]
            cand = np.flatnonzero(scores >= kth)
        else:
            cand = np.arange(scores.shape[0])
        order = cand[np.lexsort((cand, -scores[cand]))][:limit]
        index = order if rows is None else rows[order]
        return [
            ChannelHit(address=self.addresses[int(r)], rank=i, score=float(scores[int(o)]))
            for i, (r, o) in enumerate(zip(index, order, strict=True), start=1)
        ]


class HeldVectors:
    """A store's vectors in memory and the (generation, encoder) they are as of.

    The embedded store holds every vector so, the PostgreSQL one a workspace within its held bound. A read
    loads them again when any process has committed since (the generation moved); this process's own delta
    sync patches them with the rows it wrote instead. A forked handle adopts its template's copy.
    """

    def __init__(self) -> None:
        self.matrix: VectorMatrix | None = None
        self.key: tuple[int, str] | None = None

    def current(self, generation: int, model_id: str, load: Callable[[], tuple[int, VectorMatrix]]) -> VectorMatrix:
        """The vectors as of ``generation``, loaded (with the generation the load saw) only when they are not."""
        if self.matrix is None or self.key != (generation, model_id):
            loaded, matrix = load()
            self.matrix, self.key = matrix, (loaded, model_id)
        return self.matrix

    def state(self) -> tuple[tuple[int, str] | None, VectorMatrix | None]:
        """What :meth:`adopt` takes in another handle."""
        return self.key, self.matrix

    def adopt(self, state: object) -> None:
        """Start from another handle's :meth:`state` (checked against the generation at the next read)."""
        if self.matrix is None and isinstance(state, tuple) and len(state) == 2:
            key, matrix = state
            if isinstance(matrix, VectorMatrix) and isinstance(key, tuple):
                self.matrix, self.key = matrix, key

    def advance(
        self,
        model_id: str,
        span: tuple[int, int],
        read: Callable[[], tuple[int, list[MatrixRow]]],
        written: Sequence[str],
        removed: Sequence[str],
    ) -> None:
        """After a delta sync moved the index across ``span`` (generation before, after) writing ``written`` and
        removing ``removed``, patch the held vectors with the written rows ``read`` gives (with the generation
        it saw); anything else - other vectors held, another writer, a row missing - is left to reload."""
        before, after = span
        if self.matrix is None or self.key != (before, model_id):
            return
        generation, rows = read()
        if generation != after or len(rows) != len(written):
            self.forget()
            return
        self.matrix, self.key = self.matrix.patched(removed, rows), (after, model_id)

    def forget(self) -> None:
        self.matrix = self.key = None
