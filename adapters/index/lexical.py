"""The keyword channel: SQLite FTS5 ``bm25()`` over the address id, title and text.

User text never reaches FTS5's query language. It is cut into whitespace
chunks, each chunk becomes one double-quoted FTS5 string (FTS5's tokenizer then
splits ``cost_model`` or ``deci-e17103e8`` into an adjacent-token phrase), so
operators, quotes, ``*``, ``NEAR(``, a leading ``-`` or a NUL are plain text and
a hostile query can never raise a syntax error. Stopwords are dropped on the
query side: ``bm25()`` scores every matching row, and one near-universal word in
an OR query makes it 50-100x slower.

The strict query is the AND of all terms. Only when it matches nothing is the
query relaxed, once, to an OR; those hits carry ``relaxed=True`` so a caller can
say the keywords did not all match.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from adapters.index.documents import ChannelHit

MAX_TERMS = 32
"""A 10k-character paste is still a bounded query: only the first distinct terms count."""

_STOPWORD_TEXT = """
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers him
his how i if in into is it its itself just me more most my no nor not of off on once only or other our ours out
over own same she should so some such than that the their theirs them then there these they this those through
to too under until up very was we were what when where which while who whom why will with would you your yours
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_WORD = re.compile(r"[^\W_]+")
_BM25_WEIGHTS = (0.5, 3.0, 1.0)  # address id, title, text: a title match says more than a body match
SNIPPET_TOKENS = 24


def query_chunks(query: str) -> list[str]:
    """The distinct, non-stopword whitespace chunks of ``query``, in order of appearance (both backends)."""
    # Lone surrogates cannot be bound as database text; NUL and control characters end or split strings.
    cleaned = _CONTROL.sub(" ", query.encode("utf-8", "replace").decode("utf-8"))
    chunks: list[str] = []
    seen: set[str] = set()
    for chunk in cleaned.split():
        words = [w.lower() for w in _WORD.findall(chunk)]
        if not words or all(w in STOPWORDS for w in words):
            continue
        key = " ".join(words)
        if key in seen:
            continue
        seen.add(key)
        chunks.append(chunk)
        if len(chunks) >= MAX_TERMS:
            break
    return chunks


def query_terms(query: str) -> list[str]:
    """The chunks of :func:`query_chunks` as safe FTS5 strings."""
    return ['"' + chunk.replace('"', '""') + '"' for chunk in query_chunks(query)]


def search(
    conn: sqlite3.Connection,
    query: str,
    limit: int,
    where: str = "",
    params: Sequence[object] = (),
) -> list[ChannelHit]:
    """Top ``limit`` docs by bm25: the strict AND first, the OR fallback (flagged) only if that finds nothing.

    ``where`` is an SQL condition on the ``docs`` alias ``d`` built by the caller
    from fixed column names, with its values in ``params``.
    """
    terms = query_terms(query)
    if not terms or limit <= 0:
        return []
    hits = _run(conn, " AND ".join(terms), limit, where, params, relaxed=False)
    if not hits and len(terms) > 1:
        hits = _run(conn, " OR ".join(terms), limit, where, params, relaxed=True)
    return hits


def _run(
    conn: sqlite3.Connection, match: str, limit: int, where: str, params: Sequence[object], relaxed: bool
) -> list[ChannelHit]:
    weights = ", ".join(str(w) for w in _BM25_WEIGHTS)
    sql = (
        f"SELECT d.address, bm25(docs_fts, {weights}) AS s,"
        f" snippet(docs_fts, 2, '', '', '…', {SNIPPET_TOKENS})"
        " FROM docs_fts JOIN docs d ON d.id = docs_fts.rowid"
        f" WHERE docs_fts MATCH ? {'AND ' + where if where else ''}"
        " ORDER BY s, d.address LIMIT ?"
    )
    rows = conn.execute(sql, (match, *params, limit)).fetchall()
    return [
        ChannelHit(address=a, rank=i, score=float(s), relaxed=relaxed, snippet=snip)
        for i, (a, s, snip) in enumerate(rows, start=1)
    ]
