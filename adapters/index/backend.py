"""The retrieval-store interface both index backends implement.

:class:`~adapters.index.hybrid.HybridIndex` owns what is the same everywhere -
diffing a sync against the content-hash keys, embedding only what is missing,
fusing the channels with RRF - and asks a :class:`RetrievalStore` for the rest:
a consistent snapshot, an atomic write guarded by a generation counter, and the
two ranked channels. The embedded default is SQLite FTS5 + an exact numpy scan
(:mod:`adapters.index.embedded`); the team backend is PostgreSQL with a
``tsvector`` GIN index and a pgvector HNSW index (:mod:`adapters.index.pg_store`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from adapters.index.documents import ChannelHit, IndexDoc
from adapters.index.store import Snapshot

Described = dict[str, tuple[str, str, str | None, str, str]]
"""address -> (family, type, project, title, opening of the text)."""


@dataclass(frozen=True, slots=True)
class Filters:
    """What both channels narrow to before ranking; None means no filter, ``projects`` narrows zk docs only."""

    families: Collection[str] | None = None
    projects: Collection[str] | None = None
    types: Collection[str] | None = None


@runtime_checkable
class RetrievalStore(Protocol):
    """Where an index keeps its docs and vectors and how it ranks them."""

    path: Path | None
    """The SQLite file; None for the in-memory fallback and for a database server."""
    atomic_sync: bool
    """True: a sync's doc rows become visible in one transaction (vectors are committed as they are computed)."""

    def close(self) -> None: ...

    def reset(self) -> None:
        """Start empty after damage was found (a no-op where the store cannot be damaged that way)."""

    def count(self) -> int: ...

    def generation(self) -> int: ...

    def warm_state(self, model_id: str) -> object | None:
        """In-process read state (the embedded store's vector matrix), loaded now, for another handle on the
        same index in a forked process; None where reads keep no such state."""

    def adopt_state(self, state: object) -> None:
        """Start from another handle's :meth:`warm_state`; it is still checked against the generation and
        the encoder before any read uses it, so a stale state is reloaded, never served."""

    def encoder(self) -> str | None:
        """Identity of the encoder the last sync ran with (None for an index never synced)."""

    def snapshot(self, model_id: str) -> Snapshot:
        """The rows and the vector keys this index already holds for ``model_id``."""

    def known_vectors(self, keys: Collection[str], model_id: str) -> set[str]:
        """Which of ``keys`` already have a stored vector (another workspace or an earlier sync made them)."""

    def put_vectors(self, vectors: Mapping[str, np.ndarray], model_id: str) -> None:
        """Commit computed vectors ahead of the rows that use them (only called when ``atomic_sync``)."""

    def apply(
        self,
        expected_generation: int,
        upserts: Sequence[tuple[IndexDoc, str, str]],
        removals: Sequence[str],
        vectors: Mapping[str, np.ndarray],
        model_id: str,
    ) -> bool:
        """Write one sync atomically; False (nothing written) if another writer moved the generation first."""

    def describe(self, addresses: Sequence[str], chars: int) -> Described: ...

    def lexical(self, query: str, limit: int, filters: Filters) -> list[ChannelHit]:
        """Keyword channel: strict AND of the query terms, one flagged OR relaxation when that finds nothing."""

    def semantic(
        self, encode: Callable[[], np.ndarray], limit: int, filters: Filters, model_id: str
    ) -> list[ChannelHit]:
        """Meaning channel, best cosine first; ``encode`` is called only when there is something to rank."""

    def similar(self, address: str, limit: int, filters: Filters, model_id: str) -> list[ChannelHit]:
        """Nearest neighbours of a stored doc by its stored vector, itself excluded."""

    def is_corruption(self, error: BaseException) -> bool:
        """True when ``error`` means the store is damaged and should be rebuilt from the last synced docs."""
