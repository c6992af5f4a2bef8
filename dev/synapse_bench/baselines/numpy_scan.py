"""The plainest exact vector search there is, over the very vectors our index stores.

It reads ``docs`` joined to ``vectors`` straight from the cache file (read-only,
no code of ours in between), stacks them into one float32 matrix and answers a
query with ``X @ q`` and ``argpartition``: what anyone would write in five
lines. If our semantic channel were slower than this by more than its filter
masks and tie-breaking cost, the index would be adding overhead for nothing;
if its top 10 differed, it would not be reading what it stored.

Two variants, because the machine decides the winner: ``X @ q`` goes through
BLAS, which spreads a matrix-vector product over every core and on a busy
2-core machine pays a multi-millisecond floor per query; ``1 thread`` pins BLAS
to one thread with ``threadpoolctl`` (when installed), the setting our own
channel effectively runs with.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

import numpy as np

TOP = 10


def load_vectors(cache_file: Path, model_id: str) -> tuple[list[str], np.ndarray]:
    """Every doc's address and vector from ``model_id``, in address order, read without our index code."""
    conn = sqlite3.connect(f"{cache_file.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT d.address, v.vec FROM docs d JOIN vectors v ON v.key = d.vec_key"
            " WHERE v.model_id = ? ORDER BY d.address",
            (model_id,),
        ).fetchall()
    finally:
        conn.close()
    if not rows:
        return [], np.zeros((0, 0), dtype=np.float32)
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").astype(np.float32)
    return [r[0] for r in rows], matrix.reshape(len(rows), -1)


class NumpyScan:
    """``X @ q`` + ``argpartition`` top-k; ``threads=1`` limits BLAS to one thread around each product."""

    def __init__(self, addresses: list[str], vectors: np.ndarray, threads: int | None = None) -> None:
        self.addresses = addresses
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.threads = threads
        self._limit = _blas_limiter(threads)

    @property
    def available(self) -> bool:
        """False when a thread limit was asked for but ``threadpoolctl`` is not installed."""
        return self._limit is not None

    def top(self, query: np.ndarray, k: int = TOP) -> list[str]:
        """The ``k`` addresses with the highest cosine to the unit vector ``query``, best first."""
        if self._limit is None:
            raise RuntimeError("threadpoolctl is not installed; the one-thread variant is unavailable")
        with self._limit():
            scores = self.vectors @ query
        k = min(k, len(scores))
        if k == 0:
            return []
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [self.addresses[int(i)] for i in best]


def _blas_limiter(threads: int | None) -> Callable[[], AbstractContextManager[object]] | None:
    if threads is None:
        return nullcontext
    try:
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]
    except ImportError:
        return None
    controller = ThreadpoolController()

    @contextmanager
    def limited() -> Iterator[None]:
        with controller.limit(limits=threads, user_api="blas"):
            yield

    return limited


def overlap(ours: list[str], theirs: list[str]) -> float:
    """Share of ``theirs`` that ``ours`` also returned (1.0 for two exact top-k lists without ties)."""
    return len(set(ours) & set(theirs)) / len(theirs) if theirs else 1.0
