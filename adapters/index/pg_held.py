"""A workspace's vectors held in the reading process, so the PostgreSQL backend ranks it exactly.

A workspace of at most ``pg_schema.HELD_ROWS`` rows is ranked the way the embedded store ranks: cosine over
every one of its vectors in numpy (:class:`adapters.index.semantic.VectorMatrix`), loaded once and loaded
again only when the workspace's generation moves (another process wrote; this one's own writes are patched
in, :func:`written_rows`). The HNSW graph answers only larger workspaces, where it trades recall for time.

The vectors come back in PostgreSQL's binary form (a 4-byte header, then big-endian float4s) and are decoded
as one array: through the driver's per-row loader, 100k rows took seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from adapters.index.pg_errors import IndexUnavailable
from adapters.index.pg_schema import DIMENSION
from adapters.index.semantic import MatrixRow, VectorMatrix

_WIRE = np.dtype([("dim", ">u2"), ("unused", ">u2"), ("values", ">f4", (DIMENSION,))])
"""pgvector's binary ``vector``: dimension, a reserved word, then the values."""
_COLUMNS = "address, family, project, type, embedding"


def load_matrix(conn: Any, workspace: str, model_id: str) -> tuple[int, VectorMatrix]:
    """Every row of ``workspace`` with a vector from ``model_id``, in address order, and the generation they
    are (one read-only snapshot: the rows and the generation agree)."""
    generation, rows = _snapshot(conn, workspace, "d.workspace = %s AND d.encoder = %s", (workspace, model_id))
    return generation, _matrix(rows)


def written_rows(conn: Any, workspace: str, model_id: str, addresses: Sequence[str]) -> tuple[int, list[MatrixRow]]:
    """The workspace's generation and the rows at ``addresses`` with a vector from ``model_id``, as one
    snapshot: what a held matrix needs to take in a sync this process just wrote."""
    where = "d.workspace = %s AND d.encoder = %s AND d.address = ANY(%s)"
    generation, rows = _snapshot(conn, workspace, where, (workspace, model_id, list(addresses)))
    vectors = _decoded([r[4] for r in rows])
    return generation, [(r[0], v, r[1], r[2], r[3]) for r, v in zip(rows, vectors, strict=True)]


def _snapshot(conn: Any, workspace: str, where: str, params: tuple[object, ...]) -> tuple[int, list[tuple[Any, ...]]]:
    """The workspace's generation and the rows ``where`` selects, read in one read-only snapshot."""
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        conn.execute("SET LOCAL statement_timeout = 0")  # a large workspace's vectors take a while to read;
        conn.execute("SET LOCAL lock_timeout = 0")  # the caller's watchdog still cuts off a server that is gone
        row = conn.execute("SELECT generation FROM synapse_workspaces WHERE workspace = %s", (workspace,)).fetchone()
        rows = _fetch(conn, where, params)
    return (int(row[0]) if row else 0), rows


def _fetch(conn: Any, where: str, params: tuple[object, ...]) -> list[tuple[Any, ...]]:
    from psycopg.adapt import Loader
    from psycopg.pq import Format

    class _Wire(Loader):
        format = Format.BINARY

        def load(self, data: Any) -> bytes:
            return bytes(data)

    cur = conn.cursor(binary=True)
    cur.adapters.register_loader("vector", _Wire)
    rows: list[tuple[Any, ...]] = cur.execute(f"SELECT {_COLUMNS} FROM synapse_docs d WHERE {where}", params).fetchall()
    return rows


def _decoded(blobs: Sequence[bytes]) -> np.ndarray:
    if not blobs:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    joined = b"".join(blobs)
    if len(joined) != len(blobs) * _WIRE.itemsize:
        raise IndexUnavailable(f"postgres index: stored vectors are not {DIMENSION}-d")
    wire = np.frombuffer(joined, dtype=_WIRE)
    if np.any(wire["dim"] != DIMENSION):
        raise IndexUnavailable(f"postgres index: stored vectors are not {DIMENSION}-d")
    return wire["values"].astype(np.float32)


def _matrix(rows: list[tuple[Any, ...]]) -> VectorMatrix:
    rows.sort(key=lambda r: r[0])  # Python's order, which the matrix bisects (a collation may differ)
    return VectorMatrix(
        [r[0] for r in rows],
        _decoded([r[4] for r in rows]),
        [r[1] for r in rows],
        [r[2] for r in rows],
        [r[3] for r in rows],
    )
