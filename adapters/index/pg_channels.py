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
from typing import Any

from adapters.index.backend import Filters
from adapters.index.documents import ChannelHit, IndexDoc
from adapters.index.lexical import SNIPPET_TOKENS, query_chunks
from adapters.index.pg_schema import TEXT_CONFIG

WEIGHTS = "{0, 0.1667, 0.3333, 1}"
"""ts_rank weights for D, C (address id), B (text), A (title): the FTS5 channel's 0.5 / 1 / 3 scaled to <= 1."""
EF_SEARCH = 200
"""HNSW candidate list per query (pgvector's default is 40), four times the 50 candidates fusion asks for.

Measured on the 10k synthetic workspace with MiniLM vectors, recall@10 against the exact scan: 0.887 at 100,
0.952 at 200, 0.981 at 400, for about 2.5 and 4 ms more per vector search; 200 keeps the two backends'
answers close at a cost well under one keyword query."""
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


def has_vectors(conn: Any, workspace: str, filters: Filters, model_id: str) -> bool:
    """Whether any row passes the filters (so an empty or fully filtered index never embeds the query)."""
    where, params = filter_sql(filters)
    sql = f"SELECT EXISTS(SELECT 1 FROM synapse_docs d WHERE d.workspace = %s AND d.encoder = %s{where})"
    return bool(conn.execute(sql, (workspace, model_id, *params)).fetchone()[0])


def nearest(
    conn: Any,
    workspace: str,
    vector: Any,
    limit: int,
    filters: Filters,
    model_id: str,
    exclude: str | None = None,
) -> list[ChannelHit]:
    where, params = filter_sql(filters)
    if exclude is not None:
        where += " AND d.address <> %s"
        params.append(exclude)
    sql = (
        "SELECT d.address, 1 - (d.embedding <=> %s) FROM synapse_docs d"
        f" WHERE d.workspace = %s AND d.encoder = %s{where} ORDER BY d.embedding <=> %s LIMIT %s"
    )
    args = (vector, workspace, model_id, *params, vector, limit)
    if 2 * limit <= EF_SEARCH:
        rows = conn.execute(sql, args).fetchall()
    else:  # a deep request widens the candidate list for this query only
        with conn.transaction():
            conn.execute(f"SET LOCAL hnsw.ef_search = {min(1000, 2 * int(limit))}")
            rows = conn.execute(sql, args).fetchall()
    ordered = sorted(((float(s), a) for a, s in rows), key=lambda item: (-item[0], item[1]))
    return [ChannelHit(address=a, rank=i, score=s) for i, (s, a) in enumerate(ordered, start=1)]


def upsert_docs(conn: Any, workspace: str, upserts: Sequence[tuple[IndexDoc, str, str]], model_id: str) -> int:
    """Insert or rewrite rows, each taking its vector from the shared cache; returns the rows written."""
    rows = [
        (d.address, d.address.split(":", 2)[-1], d.family, d.project, d.type, d.title, d.text, row_hash, key)
        for d, row_hash, key in upserts
    ]
    columns = [list(column) for column in zip(*rows, strict=True)]
    cur = conn.execute(
        "INSERT INTO synapse_docs(workspace, address, ident, family, project, type, title, body, row_hash,"
        " encoder, content_hash, embedding)"
        " SELECT %s, u.address, u.ident, u.family, u.project, u.type, u.title, u.body, u.row_hash, v.encoder,"
        " v.content_hash, v.embedding"
        " FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[],"
        " %s::text[], %s::text[]) AS u(address, ident, family, project, type, title, body, row_hash, content_hash)"
        " JOIN synapse_vectors v ON v.encoder = %s AND v.content_hash = u.content_hash"
        " ON CONFLICT (workspace, address) DO UPDATE SET ident = excluded.ident, family = excluded.family,"
        " project = excluded.project, type = excluded.type, title = excluded.title, body = excluded.body,"
        " row_hash = excluded.row_hash, encoder = excluded.encoder, content_hash = excluded.content_hash,"
        " embedding = excluded.embedding",
        (workspace, *columns, model_id),
    )
    return int(cur.rowcount)
