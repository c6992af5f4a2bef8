"""The shared retrieval store: PostgreSQL with pgvector, many workspaces in one database.

Every row is scoped by a workspace key, and every statement filters on it, so
one workspace's query can never return another's rows. A sync of a workspace
is one transaction that first locks the workspace's generation row: writers of
the same workspace queue, a sync computed against a state another writer has
since changed is refused (and recomputed by the caller), and readers - each
channel is one statement - see the state before or after a sync, never part of
it. Vectors live in a cache keyed by (encoder id, content hash) that every
workspace shares; they are committed as soon as they are computed, ahead of
the rows, so an interrupted build keeps its work and no client re-embeds a text
any client has embedded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from adapters.index import pg_channels
from adapters.index.backend import Described, Filters
from adapters.index.documents import ChannelHit, IndexDoc
from adapters.index.pg_errors import IndexUnavailable, guarded
from adapters.index.pg_schema import DIMENSION, ensure_schema
from adapters.index.store import Snapshot

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10
ANALYZE_AFTER = 1000
"""A sync that changed this many rows refreshes the planner's statistics (the first big build needs it)."""


class _Refused(Exception):
    """Internal: roll the sync's transaction back because another writer moved the generation."""


class PgStore:
    """One workspace's view of a shared PostgreSQL index database."""

    atomic_sync = True
    path: Path | None = None

    def __init__(self, conn: Any, dsn: str, workspace: str) -> None:
        self._conn = conn
        self._dsn = dsn
        self.workspace = workspace

    def __repr__(self) -> str:
        return f"PgStore(workspace={self.workspace!r})"

    @classmethod
    def connect(cls, dsn: str, workspace: str) -> PgStore:
        """Connect (creating the schema on first use); failures are :class:`IndexUnavailable`, DSN-free."""
        return cls(_open(dsn), dsn, workspace)

    def close(self) -> None:
        with guarded("close"):
            self._conn.close()

    def reset(self) -> None:
        """Nothing to rebuild: a database is never a damaged cache file."""

    def is_corruption(self, error: BaseException) -> bool:
        return False

    def generation(self) -> int:
        with self._cursor("read the generation") as conn:
            return _generation(conn, self.workspace)

    def encoder(self) -> str | None:
        with self._cursor("read the encoder identity") as conn:
            row = conn.execute(
                "SELECT encoder FROM synapse_workspaces WHERE workspace = %s", (self.workspace,)
            ).fetchone()
            return None if row is None or row[0] is None else str(row[0])

    def warm_state(self, model_id: str) -> object | None:
        return None  # the database ranks; this process keeps nothing between reads

    def adopt_state(self, state: object) -> None:
        pass

    def count(self) -> int:
        with self._cursor("count") as conn:
            row = conn.execute("SELECT count(*) FROM synapse_docs WHERE workspace = %s", (self.workspace,)).fetchone()
            return int(row[0])

    def snapshot(self, model_id: str) -> Snapshot:
        with self._cursor("read a snapshot") as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            generation = _generation(conn, self.workspace)
            rows: dict[str, tuple[str, str]] = {}
            keys: set[str] = set()
            cur = conn.execute(
                "SELECT address, row_hash, content_hash, encoder FROM synapse_docs WHERE workspace = %s",
                (self.workspace,),
            )
            for address, row_hash, key, encoder in cur:
                rows[address] = (row_hash, key)
                if encoder == model_id:
                    keys.add(key)
        return Snapshot(generation, rows, keys)

    def known_vectors(self, keys: Collection[str], model_id: str) -> set[str]:
        if not keys:
            return set()
        with self._cursor("look up cached vectors") as conn:
            cur = conn.execute(
                "SELECT content_hash FROM synapse_vectors WHERE encoder = %s AND content_hash = ANY(%s)",
                (model_id, list(keys)),
            )
            return {k for (k,) in cur}

    def put_vectors(self, vectors: Mapping[str, np.ndarray], model_id: str) -> None:
        if not vectors:
            return
        with self._cursor("store vectors") as conn, conn.transaction():
            _insert_vectors(conn, vectors, model_id)

    def apply(
        self,
        expected_generation: int,
        upserts: Sequence[tuple[IndexDoc, str, str]],
        removals: Sequence[str],
        vectors: Mapping[str, np.ndarray],
        model_id: str,
    ) -> bool:
        try:
            with self._cursor("write a sync") as conn, conn.transaction():
                conn.execute(
                    "INSERT INTO synapse_workspaces(workspace) VALUES (%s) ON CONFLICT (workspace) DO NOTHING",
                    (self.workspace,),
                )
                row = conn.execute(
                    "SELECT generation FROM synapse_workspaces WHERE workspace = %s FOR UPDATE", (self.workspace,)
                ).fetchone()
                if int(row[0]) != expected_generation:
                    raise _Refused
                _insert_vectors(conn, vectors, model_id)
                if removals:
                    conn.execute(
                        "DELETE FROM synapse_docs WHERE workspace = %s AND address = ANY(%s)",
                        (self.workspace, list(removals)),
                    )
                if upserts and pg_channels.upsert_docs(conn, self.workspace, upserts, model_id) != len(upserts):
                    raise _Refused  # a vector the snapshot promised is gone: recompute
                conn.execute(
                    "UPDATE synapse_workspaces SET generation = %s, encoder = %s WHERE workspace = %s",
                    (expected_generation + 1, model_id, self.workspace),
                )
        except _Refused:
            return False
        if len(upserts) + len(removals) >= ANALYZE_AFTER:
            with self._cursor("refresh planner statistics") as conn:
                conn.execute("ANALYZE synapse_docs")  # so the planner picks the HNSW index once the table is big
        return True

    def describe(self, addresses: Sequence[str], chars: int) -> Described:
        if not addresses:
            return {}
        with self._cursor("describe hits") as conn:
            cur = conn.execute(
                "SELECT address, family, type, project, title, left(body, %s) FROM synapse_docs"
                " WHERE workspace = %s AND address = ANY(%s)",
                (chars, self.workspace, list(addresses)),
            )
            return {a: (f, t, p, title, text) for a, f, t, p, title, text in cur}

    def lexical(self, query: str, limit: int, filters: Filters) -> list[ChannelHit]:
        with self._cursor("keyword search") as conn:
            return pg_channels.lexical(conn, self.workspace, query, limit, filters)

    def semantic(
        self, encode: Callable[[], np.ndarray], limit: int, filters: Filters, model_id: str
    ) -> list[ChannelHit]:
        with self._cursor("meaning search") as conn:
            if limit <= 0 or not pg_channels.has_vectors(conn, self.workspace, filters, model_id):
                return []
        vector = _checked(encode())
        with self._cursor("meaning search") as conn:
            return pg_channels.nearest(conn, self.workspace, vector, limit, filters, model_id)

    def similar(self, address: str, limit: int, filters: Filters, model_id: str) -> list[ChannelHit]:
        with self._cursor("neighbour search") as conn:
            row = conn.execute(
                "SELECT embedding FROM synapse_docs WHERE workspace = %s AND address = %s AND encoder = %s",
                (self.workspace, address, model_id),
            ).fetchone()
            if row is None or limit <= 0:
                return []
            return pg_channels.nearest(conn, self.workspace, row[0], limit, filters, model_id, exclude=address)

    def all_rows(self) -> Iterator[tuple[IndexDoc, str, str, str]]:
        """Every row of this workspace as (doc, row_hash, content hash, encoder id), for copying an index."""
        with self._cursor("read rows") as conn:
            cur = conn.execute(
                "SELECT address, family, project, type, title, body, row_hash, content_hash, encoder"
                " FROM synapse_docs WHERE workspace = %s ORDER BY address",
                (self.workspace,),
            )
            for a, f, p, t, title, body, row_hash, key, encoder in cur.fetchall():
                yield IndexDoc(a, f, p, t, title, body), row_hash, key, encoder

    @contextmanager
    def _cursor(self, action: str) -> Iterator[Any]:
        """The connection, reconnected once if the server dropped it; driver errors become IndexUnavailable."""
        with guarded(action):
            if self._conn.closed or self._conn.broken:
                log.warning("postgres index connection was lost; reconnecting")
                self._conn = _open(self._dsn)
            yield self._conn


def _open(dsn: str) -> Any:
    import psycopg
    from pgvector.psycopg import register_vector

    with guarded("connect"):
        conn = psycopg.connect(dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
        try:
            conn.execute("SET client_min_messages = warning")  # no NOTICE (stopword-only queries) in logs
            # Session-wide, so a meaning query is one round trip: a filtered HNSW scan keeps going (in distance
            # order) until it has ``limit`` rows that pass, instead of returning fewer.
            conn.execute("SET hnsw.iterative_scan = strict_order")
            conn.execute(f"SET hnsw.ef_search = {pg_channels.EF_SEARCH}")
            ensure_schema(conn)
            register_vector(conn)
        except BaseException:
            conn.close()
            raise
        return conn


def _generation(conn: Any, workspace: str) -> int:
    row = conn.execute("SELECT generation FROM synapse_workspaces WHERE workspace = %s", (workspace,)).fetchone()
    return int(row[0]) if row else 0


def _checked(vector: np.ndarray) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    if v.shape[0] != DIMENSION:
        raise IndexUnavailable(f"postgres index stores {DIMENSION}-d vectors; the encoder gives {v.shape[0]}-d")
    return v


def _insert_vectors(conn: Any, vectors: Mapping[str, np.ndarray], model_id: str) -> None:
    if not vectors:
        return
    rows = [(model_id, key, _checked(v)) for key, v in vectors.items()]
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO synapse_vectors(encoder, content_hash, embedding) VALUES (%s, %s, %s)"
            " ON CONFLICT (encoder, content_hash) DO NOTHING",
            rows,
        )
