"""Copy an embedded (SQLite) index into a PostgreSQL one without embedding anything.

A team moving to the shared backend already paid for its vectors: every row of
the SQLite cache is copied with its vector, its row hash and its content key,
so the first sync against the database afterwards finds every doc current and
embeds nothing, and any other client with the same texts reuses the vectors.
Only rows whose vector came from the encoder of the cache's last sync are
copied (a cache never mixes encoders in a ranking, and neither does a copy).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from adapters.index.documents import IndexDoc
from adapters.index.embedded import EmbeddedStore
from adapters.index.pg_schema import DIMENSION
from adapters.index.pg_store import PgStore

BATCH = 2000
_ATTEMPTS = 5


class MigrationError(RuntimeError):
    """The source cannot be copied (empty, or vectors of a width the database does not hold)."""


@dataclass(frozen=True, slots=True)
class MigrationStats:
    """``copied`` rows now in the target, ``vectors`` offered to its cache, ``removed`` stale target rows."""

    encoder: str
    copied: int
    vectors: int
    removed: int
    skipped: int


def migrate(source: EmbeddedStore, target: PgStore) -> MigrationStats:
    """Make ``target``'s workspace hold exactly ``source``'s rows and vectors (one transaction for the rows)."""
    encoder = source.encoder()
    total = source.count()
    if encoder is None or total == 0:
        raise MigrationError("the SQLite index is empty: build it first (any search does), then migrate")
    upserts: list[tuple[IndexDoc, str, str]] = []
    offered = 0
    for batch in _batches(source, encoder):
        vectors: dict[str, np.ndarray] = {}
        for doc, row_hash, key, vector in batch:
            upserts.append((doc, row_hash, key))
            vectors.setdefault(key, vector)
        target.put_vectors(vectors, encoder)
        offered += len(vectors)
    addresses = {doc.address for doc, _, _ in upserts}
    for _ in range(_ATTEMPTS):
        snap = target.snapshot(encoder)
        removals = [a for a in snap.rows if a not in addresses]
        if target.apply(snap.generation, upserts, removals, {}, encoder):
            return MigrationStats(encoder, len(upserts), offered, len(removals), total - len(upserts))
    raise MigrationError(f"another writer kept changing the target workspace; {_ATTEMPTS} attempts lost")


def _batches(source: EmbeddedStore, encoder: str) -> Iterator[list[tuple[IndexDoc, str, str, np.ndarray]]]:
    cur = source.conn.execute(
        "SELECT d.address, d.family, d.project, d.type, d.title, d.text, d.row_hash, d.vec_key, v.dim, v.vec"
        " FROM docs d JOIN vectors v ON v.key = d.vec_key WHERE v.model_id = ? ORDER BY d.address",
        (encoder,),
    )
    while rows := cur.fetchmany(BATCH):
        batch = []
        for address, family, project, type_, title, text, row_hash, key, dim, blob in rows:
            if dim != DIMENSION or len(blob) != 4 * dim:
                raise MigrationError(f"the index holds {dim}-d vectors; the postgres backend stores {DIMENSION}-d")
            vector = np.frombuffer(blob, dtype="<f4").astype(np.float32)
            batch.append((IndexDoc(address, family, project, type_, title, text), row_hash, key, vector))
        yield batch
