"""Bulk writes into the shared PostgreSQL index: COPY through staging tables, and the HNSW index built once.

Rows go in by binary ``COPY`` into a temporary table (dropped at commit) and from there by one
``INSERT ... SELECT``, instead of one text array per column (vectors: one statement per row).

A sync that writes many rows (:func:`is_bulk`) builds the HNSW graph once, after the rows are in, instead of
inserting each row into a live graph (one ``ef_construction`` search per row, through shared buffers and the
WAL). The index is shared by every workspace in the table, so the load (:func:`vector_index_rebuilt`):

1. takes ``BUILD_LOCK_KEY`` (bulk loaders queue; an opener that finds the index missing leaves it to us);
2. drops the index ``CONCURRENTLY``, which waits for readers that are using it and blocks none;
3. lets the caller write its transaction; readers meanwhile plan without the index and scan exactly, so
   their answers are correct, only slower;
4. builds the index in one transaction (``maintenance_work_mem`` raised, parallel workers), which blocks
   other writers of the table but no reader, and unlocks.

A process that dies after step 2 leaves the table without the index; the next open builds it
(:func:`adapters.index.pg_schema.restore_vector_index`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from adapters.index.pg_schema import BUILD_LOCK_KEY, VECTOR_INDEX, build_vector_index

BULK_ROWS = 2000
"""A sync writing fewer rows inserts them into the live HNSW graph (about 3 ms a row measured at 10k): a few
seconds at most, not worth taking the index away from every other workspace's readers."""
REBUILD_SHARE = 0.25
"""A sync rebuilds the shared index only when it writes at least this share of the table's rows: the build
walks every row of every workspace, the live insert only the new ones. Measured at 10k MiniLM rows: the build
took 4.1 s where inserting the same rows into the live graph took about 29 s, a seventh, so the rebuild is
cheaper from about a seventh of the table on; a quarter keeps a margin, and keeps a small sync into a large
shared table from taking the index away from every other workspace's readers. (At a half, a second clone's
10k rows into a table of 20k went into the live graph: 43.8 s.)"""


def is_bulk(conn: Any, rows: int) -> bool:
    """Whether writing ``rows`` rows is cheaper with the HNSW index rebuilt than inserted into."""
    if rows < BULK_ROWS:
        return False
    estimate = conn.execute("SELECT reltuples FROM pg_class WHERE oid = 'synapse_docs'::regclass").fetchone()[0]
    existing = max(0.0, float(estimate))  # -1 until the table was first analysed: treat it as empty
    return rows >= REBUILD_SHARE * (existing + rows)


@contextmanager
def vector_index_rebuilt(conn: Any) -> Iterator[None]:
    """Drop the HNSW index for the block and build it again after (see the module doc); autocommit ``conn``."""
    with _unbounded(conn):
        conn.execute("SELECT pg_advisory_lock(%s)", (BUILD_LOCK_KEY,))
        try:
            conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {VECTOR_INDEX}")
            try:
                yield
            finally:
                if _alive(conn):  # else the lock went with the session, and the next open builds the index
                    build_vector_index(conn)
        finally:
            if _alive(conn):
                conn.execute("SELECT pg_advisory_unlock(%s)", (BUILD_LOCK_KEY,))


@contextmanager
def _unbounded(conn: Any) -> Iterator[None]:
    """Lift the session's server-side timeouts (the client watchdog still watches) and put them back after."""
    saved = conn.execute("SELECT current_setting('statement_timeout'), current_setting('lock_timeout')").fetchone()
    conn.execute("SET statement_timeout = 0")
    conn.execute("SET lock_timeout = 0")
    try:
        yield
    finally:
        if _alive(conn):
            conn.execute(
                "SELECT set_config('statement_timeout', %s, false), set_config('lock_timeout', %s, false)", saved
            )


def _alive(conn: Any) -> bool:
    return not (conn.closed or conn.broken)


def copy_rows(conn: Any, table: str, columns: Sequence[tuple[str, str]], rows: Iterator[tuple[object, ...]]) -> None:
    """Create the temporary ``table`` (dropped at commit) with ``columns`` (name, type) and fill it by binary COPY."""
    names = ", ".join(name for name, _ in columns)
    conn.execute(f"CREATE TEMPORARY TABLE {table} ({', '.join(f'{n} {t}' for n, t in columns)}) ON COMMIT DROP")
    with conn.cursor() as cur, cur.copy(f"COPY {table} ({names}) FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types([kind for _, kind in columns])
        for row in rows:
            copy.write_row(row)
