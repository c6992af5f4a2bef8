"""The two ranked channels and the row upsert of the PostgreSQL backend, as SQL.

Keyword channel: each query chunk (the same chunks as the FTS5 channel, see
:func:`adapters.index.lexical.query_chunks`) becomes one bound
``phraseto_tsquery``, so user text never reaches the query syntax. The strict
query is their AND; only when it matches nothing does one OR query run, and its
hits carry ``relaxed=True``. Ranking is ``ts_rank`` with length normalisation
and the FTS5 channel's column weights (title 3, text 1, address id 0.5);
``score`` is the negated rank so that, as with bm25, lower is better.

Meaning channel: ``ORDER BY embedding <=> q`` over the HNSW cosine index with
pgvector's iterative scan in strict order, so a workspace or family filter
still yields ``limit`` rows; equal distances are then ordered by address.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from adapters.index.backend import Filters
from adapters.index.documents import ChannelHit, IndexDoc
from adapters.index.lexical import SNIPPET_TOKENS, query_chunks
from adapters.index.pg_bulk import copy_rows
from adapters.index.pg_schema import TEXT_CONFIG

WEIGHTS = "{0, 0.1667, 0.3333, 1}"
"""ts_rank weights for D, C (address id), B (text), A (title): the FTS5 channel's 0.5 / 1 / 3 scaled to <= 1."""
EF_SEARCH = 800
"""HNSW candidate list per query (pgvector's default is 40; its ceiling 1000), sixteen times the 50
candidates fusion asks for.

Measured with the graph built at m = 16, recall@10 against the exact scan over 100 queries
(``dev/synapse_bench``; p50 of the vector statement alone, on two busy cores):

- 10k synthetic notes, MiniLM vectors: ef_construction 64: 0.884 / 0.943 / 0.975 / 0.986 at ef_search
  100 / 200 / 400 / 800 (3.9 / 9.5 / 12.1 / 18.1 ms); ef_construction 128: 0.914 / 0.963 / 0.984 / 0.997
  (2.5 / 5.5 / 9.6 / 17.8 ms); the exact scan 13.5 ms, so at this size the planner often picks it.
- 100k, hashed bag-of-words stand-in vectors (so many exact ties that the exact scan itself scores 0.932
  against numpy's order; a harder set than MiniLM): ef_construction 64: 0.648 / 0.737 / 0.795 / 0.806 at
  200 / 400 / 800 / 1000 (10 / 27 / 36 / 57 ms); 128: 0.769 / 0.823 / 0.870 / 0.885 (11 / 19 / 37 / 45 ms);
  the exact scan 125 ms.

- 100k synthetic notes, MiniLM vectors, ef_construction 64 (only a workspace past ``pg_schema.HELD_ROWS`` is
  ranked by the graph): 0.827 / 0.893 / 0.937 at 200 / 400 / 800 (12 / 20 / 37 ms), and no more than 0.955 at
  1000; the benchmark's graph at 800: 0.958 (42 ms).

800 on the pgvector-default graph gives the recall of ef_construction 128 at 400 without doubling the build
(``pg_schema.HNSW_EF_CONSTRUCTION``), for a vector search that stays within the fused-search budget (twice
SQLite's at 100k)."""
EXACT_BELOW = 5000
"""A workspace of at most this many rows is ranked by the exact scan: it answers exactly, walks no other
workspace's rows of the shared graph, and costs less than the HNSW walk there (measured: the exact scan is
linear, 13.5 ms at 10k rows and 125 ms at 100k; the walk at ``EF_SEARCH`` 18 ms at 10k and 36 ms at 100k, so
they cross between 10k and 20k rows). Between this and the crossing the planner, which costs both, often
picks the exact scan itself; the fixed bound keeps a small workspace exact whatever the statistics say."""
_HEADLINE = f'StartSel="", StopSel="", MaxWords={SNIPPET_TOKENS}, MinWords={SNIPPET_TOKENS // 2}, ShortWord=2'


def filter_sql(filters: Filters) -> tuple[str, list[object]]:
    """Extra conditions over the alias ``d`` (fixed column names; values bound as parameters)."""
    clauses: list[str] = []
    params: list[object] = []
    for column, values in (("family", filters.families), ("type", filters.types)):
        if values is not None:
            clauses.append(f" AND d.{column} = ANY(%s)")
            params.append(sorted(set(values)))
    if filters.projects is not None:
        clauses.append(" AND (d.family <> 'zk' OR d.project = ANY(%s))")
        params.append(sorted(set(filters.projects)))
    return "".join(clauses), params


def lexical(conn: Any, workspace: str, query: str, limit: int, filters: Filters) -> list[ChannelHit]:
    chunks = query_chunks(query)
    if not chunks or limit <= 0:
        return []
    hits = _run(conn, workspace, chunks, "&&", limit, filters, relaxed=False)
    if not hits and len(chunks) > 1:
        hits = _run(conn, workspace, chunks, "||", limit, filters, relaxed=True)
    return hits


def _run(
    conn: Any, workspace: str, chunks: Sequence[str], op: str, limit: int, filters: Filters, relaxed: bool
) -> list[ChannelHit]:
    tsquery = f" {op} ".join([f"phraseto_tsquery('{TEXT_CONFIG}', %s)"] * len(chunks))
    where, params = filter_sql(filters)
    sql = (
        f"WITH q AS (SELECT ({tsquery}) AS q),"
        " top AS (SELECT d.address, d.body, ts_rank(%s, d.lexemes, q.q, 1) AS r FROM synapse_docs d, q"
        f" WHERE d.workspace = %s AND d.lexemes @@ q.q{where} ORDER BY r DESC, d.address LIMIT %s)"
        f" SELECT top.address, top.r, ts_headline('{TEXT_CONFIG}', top.body, q.q, %s) FROM top, q"
        " ORDER BY top.r DESC, top.address"
    )
    rows = conn.execute(sql, (*chunks, WEIGHTS, workspace, *params, limit, _HEADLINE)).fetchall()
    return [
        ChannelHit(address=a, rank=i, score=-float(r), relaxed=relaxed, snippet=" ".join(snip.split()))
        for i, (a, r, snip) in enumerate(rows, start=1)
    ]


class Scope(NamedTuple):
    """What one cheap statement tells a meaning search before it embeds the query."""

    rows: int
    """0 when no row passes the filters (so an empty or fully filtered index never embeds the query), else the
    workspace's row count as its last sync recorded it (``EXACT_BELOW + 1``, the HNSW path, if unknown)."""
    generation: int
    """The workspace's generation, which says whether vectors held in memory are still the stored ones."""


def scope(conn: Any, workspace: str, filters: Filters, model_id: str) -> Scope:
    """The workspace's :class:`Scope` for a search under ``filters``.

    One cheap statement: counting the filtered rows themselves took 6 ms at 100k, the HNSW walk's own order.
    """
    where, params = filter_sql(filters)
    sql = (
        f"SELECT EXISTS(SELECT 1 FROM synapse_docs d WHERE d.workspace = %s AND d.encoder = %s{where}),"
        " w.rows, w.generation FROM (SELECT 1) one"
        " LEFT JOIN synapse_workspaces w ON w.workspace = %s"
    )
    found, rows, generation = conn.execute(sql, (workspace, model_id, *params, workspace)).fetchone()
    counted = 0 if not found else EXACT_BELOW + 1 if rows is None else int(rows)
    return Scope(counted, 0 if generation is None else int(generation))


def nearest(
    conn: Any,
    workspace: str,
    vector: Any,
    limit: int,
    filters: Filters,
    model_id: str,
    scope: int,
    exclude: str | None = None,
) -> list[ChannelHit]:
    """The ``limit`` rows nearest ``vector``, from the HNSW index or, for a ``scope`` (:attr:`Scope.rows`) of at
    most ``EXACT_BELOW`` rows, from the exact scan; an index walk that comes back short (pgvector stops an
    iterative scan after ``hnsw.max_scan_tuples``, so a filter that leaves few rows of a large workspace can
    end it early) is answered by the exact scan too."""
    where, params = filter_sql(filters)
    if exclude is not None:
        where += " AND d.address <> %s"
        params.append(exclude)
    exact = scope <= EXACT_BELOW
    rows = _nearest_rows(conn, (workspace, model_id, *params), where, vector, limit, exact)
    if not exact and len(rows) < limit:
        rows = _nearest_rows(conn, (workspace, model_id, *params), where, vector, limit, True)
    ordered = sorted(((float(s), a) for a, s in rows), key=lambda item: (-item[0], item[1]))
    return [ChannelHit(address=a, rank=i, score=s) for i, (s, a) in enumerate(ordered, start=1)]


def _nearest_rows(
    conn: Any, bound: tuple[object, ...], where: str, vector: Any, limit: int, exact: bool
) -> list[tuple[str, float]]:
    # ``+ 0`` makes the ORDER BY an expression the HNSW index cannot serve, so the planner scans exactly.
    order = "(d.embedding <=> %s) + 0, d.address" if exact else "d.embedding <=> %s"
    sql = (
        "SELECT d.address, 1 - (d.embedding <=> %s) FROM synapse_docs d"
        f" WHERE d.workspace = %s AND d.encoder = %s{where} ORDER BY {order} LIMIT %s"
    )
    args = (vector, *bound, vector, limit)
    if exact or 2 * limit <= EF_SEARCH:
        rows: list[tuple[str, float]] = conn.execute(sql, args).fetchall()
        return rows
    with conn.transaction():  # a deep request widens the candidate list for this query only
        conn.execute(f"SET LOCAL hnsw.ef_search = {min(1000, 2 * int(limit))}")
        rows = conn.execute(sql, args).fetchall()
    return rows


def upsert_docs(conn: Any, workspace: str, upserts: Sequence[tuple[IndexDoc, str, str]], model_id: str) -> int:
    """Insert or rewrite rows, each taking its vector from the shared cache; returns the rows written.

    The rows reach the server by binary COPY into a staging table (:func:`adapters.index.pg_bulk.copy_rows`).
    """
    rows = (
        (d.address, d.address.split(":", 2)[-1], d.family, d.project, d.type, d.title, d.text, row_hash, key)
        for d, row_hash, key in upserts
    )
    copy_rows(conn, "synapse_stage_docs", [(c, "text") for c in _STAGED], rows)
    cur = conn.execute(
        "INSERT INTO synapse_docs(workspace, address, ident, family, project, type, title, body, row_hash,"
        " encoder, content_hash, embedding)"
        " SELECT %s, u.address, u.ident, u.family, u.project, u.type, u.title, u.body, u.row_hash, v.encoder,"
        " v.content_hash, v.embedding"
        " FROM synapse_stage_docs u"
        " JOIN synapse_vectors v ON v.encoder = %s AND v.content_hash = u.content_hash"
        " ON CONFLICT (workspace, address) DO UPDATE SET ident = excluded.ident, family = excluded.family,"
        " project = excluded.project, type = excluded.type, title = excluded.title, body = excluded.body,"
        " row_hash = excluded.row_hash, encoder = excluded.encoder, content_hash = excluded.content_hash,"
        " embedding = excluded.embedding",
        (workspace, model_id),
    )
    return int(cur.rowcount)


_STAGED = ("address", "ident", "family", "project", "type", "title", "body", "row_hash", "content_hash")
