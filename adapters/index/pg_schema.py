"""The PostgreSQL schema of the shared index, created once per database under an advisory lock.

- ``synapse_workspaces``: one row per workspace key with its ``generation``
  counter and the encoder identity its last sync used; a sync locks its workspace's row (``FOR UPDATE``), so writers of one
  workspace queue while other workspaces proceed.
- ``synapse_vectors``: the content-addressed vector cache shared by every
  workspace, unique on (encoder id, content hash): a text any client embedded
  once is never embedded again by anyone.
- ``synapse_docs``: the searchable rows, unique on (workspace, address), each
  carrying its vector (copied from the cache, so the HNSW index and the
  workspace filter live on one table) and a generated ``tsvector`` (weights:
  title A, text B, address id C) under a GIN index.

The HNSW index on ``synapse_docs.embedding`` is the one part that is not
created with the tables. It exists only while some workspace holds more than
``HELD_ROWS`` rows: a smaller one is ranked exactly in the process that reads
it (:mod:`adapters.index.pg_held`), so a graph would cost every bulk write its
build and answer no query. A bulk load drops it and builds it again once its
rows are in (:mod:`adapters.index.pg_bulk`), and a process that died in between
leaves the table without it. :func:`ensure_schema` therefore checks for it on
every open, and a write checks after it commits, and either builds it when a
workspace needs it and it is missing; meanwhile readers get the exact scan,
which is slower but never wrong.
"""

from __future__ import annotations

from typing import Any

from adapters.index.pg_errors import IndexUnavailable

DIMENSION = 384
SCHEMA_VERSION = "1"
_LOCK_KEY = 7_340_211_905
"""Any fixed number: the advisory lock that lets one process at a time create the schema."""
BUILD_LOCK_KEY = 7_340_211_906
"""The session advisory lock held by whoever drops or builds the HNSW index, so two never race on it."""
VECTOR_INDEX = "synapse_docs_embedding"
HNSW_M = 16
"""Graph degree of the HNSW index (pgvector's default); see ``pg_channels.EF_SEARCH`` for what was measured."""
HNSW_EF_CONSTRUCTION = 64
"""Candidate list while building the graph (pgvector's default). 128 gave recall@10 0.984 instead of 0.975 at
ef_search 400 on 10k MiniLM vectors, but doubled the build (100k rows: 179 s instead of 84 s on two busy
cores, a build 4.8 times SQLite's where the target is 3); a wider ``pg_channels.EF_SEARCH`` buys the same
recall at query time."""
BUILD_MEMORY = "1GB"
"""``maintenance_work_mem`` for an index build: pgvector builds the graph in memory (far faster than on disk
pages) while it fits, and 100k 384-d rows need about 200 MB."""
HELD_ROWS = 200_000
"""A workspace of at most this many rows is ranked exactly, in the reading process, over its vectors held in
memory as the embedded store holds them; only a larger one is ranked by the HNSW graph.

Measured at 100k synthetic notes with MiniLM vectors (``dev/synapse_bench``, two cores): the graph at the
settings below found 0.937 of the exact top 10 at ``ef_search`` 800 (47 ms) and no more than 0.955 at 1000,
with halfvec or binary candidates re-ranked exactly, or IVFFlat, no better within a build budget of three
times SQLite's; the exact scan in SQL took 84 ms. Held in memory, the exact ranking costs what the embedded
store's does (~10-20 ms at 100k) and 150 MB a process, and no bulk write pays a graph build (65 s of a 100 s
load at 100k). 200k is where the embedded store's brute force reaches ~20-40 ms."""
BUILD_WORKERS = 2
"""``max_parallel_maintenance_workers`` for an index build (pgvector builds HNSW in parallel since 0.6)."""

TEXT_CONFIG = "english"
"""Snowball English stemming, the counterpart of FTS5's porter tokenizer."""

STATEMENTS = (
    "CREATE TABLE IF NOT EXISTS synapse_meta(key text PRIMARY KEY, value text NOT NULL)",
    """CREATE TABLE IF NOT EXISTS synapse_workspaces(
        workspace text PRIMARY KEY, generation bigint NOT NULL DEFAULT 0, encoder text)""",
    f"""CREATE TABLE IF NOT EXISTS synapse_vectors(
        encoder text NOT NULL,
        content_hash text NOT NULL,
        embedding vector({DIMENSION}) NOT NULL,
        PRIMARY KEY (encoder, content_hash))""",
    f"""CREATE TABLE IF NOT EXISTS synapse_docs(
        workspace text NOT NULL REFERENCES synapse_workspaces(workspace) ON DELETE CASCADE,
        address text NOT NULL,
        ident text NOT NULL,
        family text NOT NULL,
        project text,
        type text NOT NULL,
        title text NOT NULL,
        body text NOT NULL,
        row_hash text NOT NULL,
        encoder text NOT NULL,
        content_hash text NOT NULL,
        embedding vector({DIMENSION}) NOT NULL,
        lexemes tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('{TEXT_CONFIG}'::regconfig, title), 'A')
            || setweight(to_tsvector('{TEXT_CONFIG}'::regconfig, body), 'B')
            || setweight(to_tsvector('{TEXT_CONFIG}'::regconfig, ident), 'C')) STORED,
        PRIMARY KEY (workspace, address))""",
    "CREATE INDEX IF NOT EXISTS synapse_docs_lexemes ON synapse_docs USING gin (lexemes)",
    # A row (vector, text and lexemes) passes the 2 kB TOAST threshold, and the vector, the one column
    # that does not compress, would be moved out of line: every exact-scan row and every returned hit
    # would then read it back through the TOAST index (at 10k rows the exact scan took 80 ms, 6 page
    # reads a row). Kept inline, the text and lexemes are toasted instead.
    "ALTER TABLE synapse_docs ALTER COLUMN embedding SET STORAGE PLAIN",
    # The row count of a workspace as of its last sync: a small one is ranked by the exact scan.
    "ALTER TABLE synapse_workspaces ADD COLUMN IF NOT EXISTS rows bigint",
)
_CURRENT = (
    "SELECT (SELECT value FROM synapse_meta WHERE key = 'schema'),"
    " EXISTS(SELECT 1 FROM pg_attribute WHERE attrelid = 'synapse_workspaces'::regclass AND attname = 'rows'"
    " AND NOT attisdropped),"
    " (SELECT attstorage FROM pg_attribute WHERE attrelid = 'synapse_docs'::regclass AND attname = 'embedding')"
)
"""Whether the tables are as the statements above leave them (a database made by an earlier release of schema
1 lacks the last two statements, which then run once)."""


def vector_index_present(conn: Any) -> bool:
    """Whether the HNSW index exists and is valid (a failed concurrent build leaves an invalid one)."""
    row = conn.execute(
        "SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass(%s)", (VECTOR_INDEX,)
    ).fetchone()
    return bool(row is not None and row[0])


def vector_index_needed(conn: Any) -> bool:
    """Whether a workspace holds more rows (as its last sync counted them) than are ranked in process."""
    row = conn.execute("SELECT coalesce(max(rows), 0) FROM synapse_workspaces").fetchone()
    return int(row[0]) > HELD_ROWS


def build_vector_index(conn: Any) -> None:
    """Build the HNSW index if a workspace needs it and it is missing, in one transaction (a crash rolls it
    back: no invalid index).

    The caller holds ``BUILD_LOCK_KEY``. A plain ``CREATE INDEX`` blocks writers of the table while it runs,
    never readers: they plan without the index, so they scan exactly.
    """
    if not vector_index_needed(conn):
        return
    with conn.transaction():
        conn.execute("SET LOCAL statement_timeout = 0")
        conn.execute("SET LOCAL lock_timeout = 0")
        conn.execute(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'")
        conn.execute(f"SET LOCAL max_parallel_maintenance_workers = {BUILD_WORKERS}")
        if not vector_index_present(conn):
            conn.execute(f"DROP INDEX IF EXISTS {VECTOR_INDEX}")  # an invalid leftover
            conn.execute(
                f"CREATE INDEX {VECTOR_INDEX} ON synapse_docs USING hnsw (embedding vector_cosine_ops)"
                f" WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})"
            )


def restore_vector_index(conn: Any) -> None:
    """Build a missing HNSW index a workspace needs, unless another session holds the build lock (it is
    building it now)."""
    if vector_index_present(conn) or not vector_index_needed(conn):
        return
    if not conn.execute("SELECT pg_try_advisory_lock(%s)", (BUILD_LOCK_KEY,)).fetchone()[0]:
        return
    try:
        build_vector_index(conn)
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (BUILD_LOCK_KEY,))


def _version(conn: Any) -> str | None:
    if not conn.execute("SELECT to_regclass('synapse_meta') IS NOT NULL").fetchone()[0]:
        return None
    row = conn.execute("SELECT value FROM synapse_meta WHERE key = 'schema'").fetchone()
    return None if row is None else str(row[0])


def ensure_schema(conn: Any) -> None:
    """Create the extension and tables if missing; refuse a database holding another schema version."""
    if conn.execute("SELECT to_regclass('synapse_docs') IS NOT NULL").fetchone()[0]:
        version, counted, storage = conn.execute(_CURRENT).fetchone()
        if version == SCHEMA_VERSION and counted and storage == "p":
            restore_vector_index(conn)  # the common case: one more round trip, no lock
            return
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
            conn.execute("CREATE EXTENSION vector")
        found = _version(conn)
        if found in (None, SCHEMA_VERSION):  # another version's tables are left as they are
            for statement in STATEMENTS:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO synapse_meta(key, value) VALUES ('schema', %s) ON CONFLICT (key) DO NOTHING",
                (SCHEMA_VERSION,),
            )
            found = _version(conn)
    if found != SCHEMA_VERSION:
        raise IndexUnavailable(
            f"postgres index: the database holds schema {found or 'unknown'}, this version needs {SCHEMA_VERSION}"
        )
    restore_vector_index(conn)
