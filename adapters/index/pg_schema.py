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
"""

from __future__ import annotations

from typing import Any

DIMENSION = 384
SCHEMA_VERSION = "1"
_LOCK_KEY = 7_340_211_905
"""Any fixed number: the advisory lock that lets one process at a time create the schema."""

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
    "CREATE INDEX IF NOT EXISTS synapse_docs_embedding ON synapse_docs USING hnsw (embedding vector_cosine_ops)",
)


def ensure_schema(conn: Any) -> None:
    """Create the extension and tables if missing; refuse a database holding another schema version."""
    if conn.execute("SELECT to_regclass('synapse_docs') IS NOT NULL").fetchone()[0]:
        row = conn.execute("SELECT value FROM synapse_meta WHERE key = 'schema'").fetchone()
        if row is not None and row[0] == SCHEMA_VERSION:
            return  # the common case: one round trip, no lock
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
            conn.execute("CREATE EXTENSION vector")
        for statement in STATEMENTS:
            conn.execute(statement)
        conn.execute(
            "INSERT INTO synapse_meta(key, value) VALUES ('schema', %s) ON CONFLICT (key) DO NOTHING",
            (SCHEMA_VERSION,),
        )
        row = conn.execute("SELECT value FROM synapse_meta WHERE key = 'schema'").fetchone()
    if row is None or row[0] != SCHEMA_VERSION:
        from adapters.index.pg_errors import IndexUnavailable

        found = row[0] if row else "unknown"
        raise IndexUnavailable(
            f"postgres index: the database holds schema {found}, this version needs {SCHEMA_VERSION}"
        )
