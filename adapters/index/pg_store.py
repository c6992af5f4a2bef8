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

No call waits on the database without limit: a connection attempt gives up after the store's
``timeout_s``, a quick statement (a search channel, a count) is cancelled by the server or cut off by
the client after it, and a sync's statements, which may rightly run for minutes, are cut off only when
the server no longer answers a fresh connection either (:mod:`adapters.index.pg_deadline`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from adapters.index import pg_channels, pg_held, pg_schema
from adapters.index.backend import Described, Filters
from adapters.index.documents import ChannelHit, IndexDoc
from adapters.index.pg_bulk import copy_rows, is_bulk, vector_index_rebuilt
from adapters.index.pg_deadline import Watchdog
from adapters.index.pg_errors import IndexUnavailable, guarded
from adapters.index.pg_schema import DIMENSION, ensure_schema, restore_vector_index
from adapters.index.semantic import HeldVectors, MatrixRow, VectorMatrix
from adapters.index.store import Snapshot

log = logging.getLogger(__name__)

TIMEOUT_S = 10.0
"""How long a call waits for an unresponsive database before it is ``IndexUnavailable`` (``index.timeout_s``)."""
ANALYZE_AFTER = 1000
"""A sync that changed this many rows refreshes the planner's statistics (the first big build needs it)."""


class _Refused(Exception):
    """Internal: roll the sync's transaction back because another writer moved the generation."""


class PgStore:
    """One workspace's view of a shared PostgreSQL index database."""

    atomic_sync = True
    path: Path | None = None

    def __init__(self, conn: Any, dsn: str, workspace: str, watchdog: Watchdog) -> None:
        self._conn = conn
        self._dsn = dsn
        self._watchdog = watchdog
        self.workspace = workspace
        self._held = HeldVectors()
        """A workspace within ``pg_schema.HELD_ROWS``'s vectors (:mod:`adapters.index.pg_held`)."""

    def __repr__(self) -> str:
        return f"PgStore(workspace={self.workspace!r})"

    @classmethod
    def connect(cls, dsn: str, workspace: str, timeout_s: float = TIMEOUT_S) -> PgStore:
        """Connect (creating the schema on first use); failures are :class:`IndexUnavailable`, DSN-free."""
        watchdog = Watchdog(timeout_s, lambda: _answers(dsn, timeout_s))
        try:
            return cls(_open(dsn, watchdog), dsn, workspace, watchdog)
        except BaseException:
            watchdog.close()
            raise

    def close(self) -> None:
        try:
            with guarded("close"):
                self._conn.close()
        finally:
            self._watchdog.close()

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
        """The held vectors, loaded now, for a workspace ranked in process; None for one the graph ranks."""
        with self._cursor("read the workspace's extent") as conn:
            extent = pg_channels.scope(conn, self.workspace, Filters(), model_id)
        if not 0 < extent.rows <= pg_schema.HELD_ROWS:
            return None
        self._current_matrix(model_id, extent.generation)
        return self._held.state()

    def adopt_state(self, state: object) -> None:
        self._held.adopt(state)

    def advance_state(
        self, model_id: str, before: int, after: int, written: Sequence[str], removed: Sequence[str]
    ) -> None:
        """After this process's delta sync moved the workspace from ``before`` to ``after``, patch the held
        vectors with the written rows instead of reading every one again (anything else reloads at the next
        search)."""
        self._held.advance(model_id, (before, after), lambda: self._written_rows(model_id, written), written, removed)

    def _written_rows(self, model_id: str, written: Sequence[str]) -> tuple[int, list[MatrixRow]]:
        with self._cursor("read the written vectors", patient=True) as conn:
            return pg_held.written_rows(conn, self.workspace, model_id, written)

    def _current_matrix(self, model_id: str, generation: int) -> VectorMatrix:
        """The workspace's vectors in memory as of ``generation``, read again only when it moved."""
        return self._held.current(generation, model_id, lambda: self._loaded(model_id))

    def _loaded(self, model_id: str) -> tuple[int, VectorMatrix]:
        with self._cursor("read the workspace's vectors", patient=True) as conn:
            return pg_held.load_matrix(conn, self.workspace, model_id)

    def count(self) -> int:
        with self._cursor("count") as conn:
            row = conn.execute("SELECT count(*) FROM synapse_docs WHERE workspace = %s", (self.workspace,)).fetchone()
            return int(row[0])

    def snapshot(self, model_id: str) -> Snapshot:
        with self._cursor("read a snapshot", patient=True) as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            _unhurried(conn)
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
        with self._cursor("store vectors", patient=True) as conn, conn.transaction():
            _unhurried(conn)  # an insert waits for a sync that is writing the same vector to commit
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
            with self._cursor("write a sync", patient=True) as conn:
                bulk = is_bulk(conn, len(upserts))
                with vector_index_rebuilt(conn) if bulk else nullcontext():
                    self._write(conn, expected_generation, upserts, removals, vectors, model_id)
        except _Refused:
            return False
        if len(upserts) + len(removals) >= ANALYZE_AFTER:
            with self._cursor("refresh planner statistics", patient=True) as conn, conn.transaction():
                _unhurried(conn)
                conn.execute("ANALYZE synapse_docs")  # so the planner picks the HNSW index once the table is big
        if not bulk:  # a write that took a workspace past what is ranked in process: it needs the graph now
            with self._cursor("build the vector index", patient=True) as conn:
                restore_vector_index(conn)
        return True

    def _write(
        self,
        conn: Any,
        expected_generation: int,
        upserts: Sequence[tuple[IndexDoc, str, str]],
        removals: Sequence[str],
        vectors: Mapping[str, np.ndarray],
        model_id: str,
    ) -> None:
        """One sync's transaction; raises :class:`_Refused` (rolling it back) when the generation moved."""
        with conn.transaction():
            _unhurried(conn)  # the writer before us may hold the generation row for minutes
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
                "UPDATE synapse_workspaces SET generation = %s, encoder = %s,"
                " rows = (SELECT count(*) FROM synapse_docs WHERE workspace = %s) WHERE workspace = %s",
                (expected_generation + 1, model_id, self.workspace, self.workspace),
            )

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
        if limit <= 0:
            return []
        with self._cursor("meaning search") as conn:
            extent = pg_channels.scope(conn, self.workspace, filters, model_id)
        if extent.rows == 0:
            return []
        if extent.rows <= pg_schema.HELD_ROWS:
            return self._current_matrix(model_id, extent.generation).ranked(lambda: _checked(encode()), limit, filters)
        vector = _checked(encode())
        with self._cursor("meaning search") as conn:
            return pg_channels.nearest(conn, self.workspace, vector, limit, filters, model_id, extent.rows)

    def similar(self, address: str, limit: int, filters: Filters, model_id: str) -> list[ChannelHit]:
        if limit <= 0:
            return []
        with self._cursor("neighbour search") as conn:
            extent = pg_channels.scope(conn, self.workspace, filters, model_id)
        if extent.rows == 0:
            return []
        if extent.rows <= pg_schema.HELD_ROWS:
            return self._current_matrix(model_id, extent.generation).neighbours(address, limit, filters)
        with self._cursor("neighbour search") as conn:
            found = conn.execute(
                "SELECT embedding FROM synapse_docs WHERE workspace = %s AND address = %s AND encoder = %s",
                (self.workspace, address, model_id),
            ).fetchone()
            if found is None:
                return []
            return pg_channels.nearest(
                conn, self.workspace, found[0], limit, filters, model_id, extent.rows, exclude=address
            )

    def all_rows(self) -> Iterator[tuple[IndexDoc, str, str, str]]:
        """Every row of this workspace as (doc, row_hash, content hash, encoder id), for copying an index."""
        with self._cursor("read rows", patient=True) as conn, conn.transaction():
            _unhurried(conn)
            cur = conn.execute(
                "SELECT address, family, project, type, title, body, row_hash, content_hash, encoder"
                " FROM synapse_docs WHERE workspace = %s ORDER BY address",
                (self.workspace,),
            )
            for a, f, p, t, title, body, row_hash, key, encoder in cur.fetchall():
                yield IndexDoc(a, f, p, t, title, body), row_hash, key, encoder

    @contextmanager
    def _cursor(self, action: str, *, patient: bool = False) -> Iterator[Any]:
        """The connection, reconnected once if the server dropped it, under the watchdog's deadline (a patient
        block is cut only once the server stops answering); driver errors become IndexUnavailable."""
        with guarded(action):
            if self._conn.closed or self._conn.broken:
                log.warning("postgres index connection was lost; reconnecting")
                self._conn.close()
                self._conn = _open(self._dsn, self._watchdog)
        conn = self._conn
        with self._watchdog.watching(conn.fileno(), patient=patient) as watch:
            try:
                with guarded(action):
                    yield conn
            except IndexUnavailable:
                if watch.cut:
                    raise _no_answer(action, self._watchdog.seconds) from None
                raise


def _open(dsn: str, watchdog: Watchdog) -> Any:
    import psycopg
    from pgvector.psycopg import register_vector

    with guarded("connect"):
        conn = psycopg.connect(_bounded(dsn, watchdog.seconds), autocommit=True)
    try:
        with watchdog.watching(conn.fileno(), patient=True) as watch:
            try:
                with guarded("connect"):
                    conn.execute("SET client_min_messages = warning")  # no NOTICE (stopword-only queries) in logs
                    # Session-wide, so a meaning query is one round trip: a filtered HNSW scan keeps going (in
                    # distance order) until it has ``limit`` rows that pass, instead of returning fewer.
                    conn.execute("SET hnsw.iterative_scan = strict_order")
                    # JIT compilation pays off for long analytic queries only; the exact scan of a large
                    # workspace (about a million rows) is costed past jit_above_cost, and compiling would add
                    # tens of milliseconds to a statement that is a search.
                    conn.execute("SET jit = off")
                    conn.execute(f"SET hnsw.ef_search = {pg_channels.EF_SEARCH}")
                    ensure_schema(conn)
                    register_vector(conn)
                    # From here on the server cancels its own slow statement or lock wait after the same time
                    # the client waits; the patient blocks lift both for their own transaction.
                    ms = max(1, round(watchdog.seconds * 1000))
                    conn.execute(f"SET statement_timeout = {ms}")
                    conn.execute(f"SET lock_timeout = {ms}")
            except IndexUnavailable:
                if watch.cut:
                    raise _no_answer("connect", watchdog.seconds) from None
                raise
    except BaseException:
        conn.close()
        raise
    return conn


def _bounded(dsn: str, seconds: float) -> str:
    """The DSN with libpq's own bounds: the connection attempt, TCP keepalives and unacknowledged data."""
    from psycopg.conninfo import make_conninfo

    return make_conninfo(
        dsn,
        connect_timeout=max(2, math.ceil(seconds)),  # libpq counts whole seconds and treats 1 as 2
        keepalives=1,
        keepalives_idle=max(1, math.ceil(seconds)),
        keepalives_interval=max(1, math.ceil(seconds / 3)),
        keepalives_count=3,
        tcp_user_timeout=max(1000, round(seconds * 1000)),
    )


def _answers(dsn: str, seconds: float) -> bool:
    """Whether a fresh connection gets a reply within the bound: the watchdog's test that a server is still there."""
    import psycopg

    try:
        with psycopg.connect(_bounded(dsn, seconds), autocommit=True) as probe:
            probe.execute("SELECT 1")
    except psycopg.Error:
        return False
    return True


def _unhurried(conn: Any) -> None:
    """Lift the server-side timeouts for this transaction: the client watchdog still cuts off a server that is gone."""
    conn.execute("SET LOCAL statement_timeout = 0")
    conn.execute("SET LOCAL lock_timeout = 0")


def _no_answer(action: str, seconds: float) -> IndexUnavailable:
    return IndexUnavailable(
        f"postgres index: {action} failed (no answer within {seconds:g} s: the server is stopped or unreachable)"
    )


def _generation(conn: Any, workspace: str) -> int:
    row = conn.execute("SELECT generation FROM synapse_workspaces WHERE workspace = %s", (workspace,)).fetchone()
    return int(row[0]) if row else 0


def _checked(vector: np.ndarray) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    if v.shape[0] != DIMENSION:
        raise IndexUnavailable(f"postgres index stores {DIMENSION}-d vectors; the encoder gives {v.shape[0]}-d")
    return v


def _insert_vectors(conn: Any, vectors: Mapping[str, np.ndarray], model_id: str) -> None:
    """Add vectors to the shared cache (by COPY into a staging table); a key already there is kept."""
    if not vectors:
        return
    rows = ((key, _checked(v)) for key, v in vectors.items())
    copy_rows(conn, "synapse_stage_vectors", [("content_hash", "text"), ("embedding", "vector")], rows)
    conn.execute(
        "INSERT INTO synapse_vectors(encoder, content_hash, embedding)"
        " SELECT %s, content_hash, embedding FROM synapse_stage_vectors"
        " ON CONFLICT (encoder, content_hash) DO NOTHING",
        (model_id,),
    )
