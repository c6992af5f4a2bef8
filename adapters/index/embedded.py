"""The embedded retrieval store: one SQLite file, FTS5 for keywords, an exact numpy scan for meaning.

This is the default backend and needs nothing but the standard library and
numpy. :class:`EmbeddedStore` adds the ranking half of the
:class:`~adapters.index.backend.RetrievalStore` interface to the cache file of
:mod:`adapters.index.store`: the keyword channel runs inside SQLite, the
vectors are loaded into one matrix that is reloaded whenever any process has
committed a sync since (the ``generation`` counter says so).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path

import numpy as np

from adapters.index import lexical as lexical_channel
from adapters.index.backend import Filters
from adapters.index.documents import ChannelHit
from adapters.index.semantic import HeldVectors, MatrixRow, VectorMatrix
from adapters.index.store import Snapshot, Store, is_corruption

_KEYS_PER_QUERY = 500
"""Bound parameters per lookup, well under SQLite's limit."""


class EmbeddedStore(Store):
    """SQLite FTS5 + numpy: a sync's chunks commit one by one (an interrupted cold build keeps its work)."""

    atomic_sync = False

    def __init__(self, path: Path | None) -> None:
        super().__init__(path)
        self._held = HeldVectors()

    def reset(self) -> None:
        super().reset()
        self._held.forget()

    def close(self) -> None:
        super().close()
        self._held.forget()

    def snapshot(self, model_id: str = "") -> Snapshot:
        return super().snapshot()

    def known_vectors(self, keys: Collection[str], model_id: str) -> set[str]:
        """Which of ``keys`` have a stored vector (a full sync's snapshot lists them all; a delta asks here)."""
        wanted, found = list(keys), set[str]()
        with self._read():
            for start in range(0, len(wanted), _KEYS_PER_QUERY):
                chunk = wanted[start : start + _KEYS_PER_QUERY]
                marks = ", ".join("?" * len(chunk))
                found.update(k for (k,) in self.conn.execute(f"SELECT key FROM vectors WHERE key IN ({marks})", chunk))
        return found

    def put_vectors(self, vectors: Mapping[str, np.ndarray], model_id: str) -> None:
        raise NotImplementedError("the embedded store commits vectors together with their rows")

    def lexical(self, query: str, limit: int, filters: Filters) -> list[ChannelHit]:
        where, params = filter_sql(filters)
        return lexical_channel.search(self.conn, query, limit, where, params)

    def semantic(
        self, encode: Callable[[], np.ndarray], limit: int, filters: Filters, model_id: str
    ) -> list[ChannelHit]:
        return self._current_matrix(model_id).ranked(encode, limit, filters)

    def similar(self, address: str, limit: int, filters: Filters, model_id: str) -> list[ChannelHit]:
        return self._current_matrix(model_id).neighbours(address, limit, filters)

    def warm_state(self, model_id: str) -> object | None:
        self._current_matrix(model_id)
        return self._held.state()

    def adopt_state(self, state: object) -> None:
        self._held.adopt(state)

    def advance_state(
        self, model_id: str, before: int, after: int, written: Sequence[str], removed: Sequence[str]
    ) -> None:
        """After a delta sync moved the index from generation ``before`` to ``after`` with only these writes,
        patch the in-memory vectors instead of loading every one again (any other state is left to reload)."""
        self._held.advance(model_id, (before, after), lambda: self._written_rows(model_id, written), written, removed)

    def _written_rows(self, model_id: str, written: Sequence[str]) -> tuple[int, list[MatrixRow]]:
        generation, rows = self.generation(), list[MatrixRow]()
        dimension = self._held.matrix.dimension if self._held.matrix is not None else 0
        with self._read():
            for start in range(0, len(written), _KEYS_PER_QUERY):
                chunk = list(written[start : start + _KEYS_PER_QUERY])
                marks = ", ".join("?" * len(chunk))
                found = self.conn.execute(
                    "SELECT d.address, d.family, d.project, d.type, v.vec FROM docs d JOIN vectors v"
                    f" ON v.key = d.vec_key WHERE v.model_id = ? AND d.address IN ({marks})",
                    (model_id, *chunk),
                )
                for address, family, project, kind, blob in found:
                    vector = np.frombuffer(blob, dtype="<f4").astype(np.float32)
                    if vector.shape[0] == dimension:
                        rows.append((address, vector, family, project, kind))
        return generation, rows

    def is_corruption(self, error: BaseException) -> bool:
        return isinstance(error, sqlite3.DatabaseError) and is_corruption(error)

    def _current_matrix(self, model_id: str) -> VectorMatrix:
        """The in-memory vectors, reloaded whenever any process has committed a sync since the last load."""
        return self._held.current(self.generation(), model_id, lambda: self.load_matrix(model_id))


def filter_sql(filters: Filters) -> tuple[str, list[object]]:
    """An SQL condition over the ``docs`` alias ``d`` (fixed column names; values bound as parameters)."""
    clauses: list[str] = []
    params: list[object] = []
    for column, values in (("family", filters.families), ("type", filters.types)):
        if values is not None:
            items = sorted(set(values))
            clauses.append(f"d.{column} IN ({', '.join('?' * len(items))})" if items else "0")
            params.extend(items)
    if filters.projects is not None:
        items = sorted(set(filters.projects))
        inner = f" OR d.project IN ({', '.join('?' * len(items))})" if items else ""
        clauses.append(f"(d.family != 'zk'{inner})")
        params.extend(items)
    return " AND ".join(clauses), params
