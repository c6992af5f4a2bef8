"""A handle that holds the docs another handle synced skips the diff, and takes over its loaded vectors, only while
the index has not moved since; anything committed in between, or another encoder, means a real sync or a reload.

This is what a navigate turn forked from the warm template relies on. Both backends, the real MiniLM model.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

from adapters.index import Embedder, HybridIndex, TextEncoder
from adapters.index.settings import IndexSettings
from tests.support.index_corpus import DOCS, CountingEncoder

Opener = Callable[[TextEncoder], HybridIndex]
REMOVED = "zk:research:20260702-1100-finding"


@pytest.fixture(params=["sqlite", "postgres"])
def open_index(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Opener]:
    """Opens handles on one fresh index (a private cache folder, or a private PostgreSQL workspace)."""
    settings = None
    if request.param == "postgres":
        settings = IndexSettings("postgres", request.getfixturevalue("postgres_dsn"), f"resume-{uuid.uuid4().hex[:8]}")
    cache = tmp_path_factory.mktemp("resume")
    handles: list[HybridIndex] = []

    def opener(encoder: TextEncoder) -> HybridIndex:
        handles.append(HybridIndex.open(cache, encoder, settings=settings))
        return handles[-1]

    yield opener
    for handle in handles:
        handle.close()


class SnapshotCounter:
    """Counts the store's snapshot reads (each sync's diff starts with one) and passes them through."""

    def __init__(self, index: HybridIndex) -> None:
        self.reads = 0
        store = index.store
        real = store.snapshot

        def counted(model_id: str) -> object:
            self.reads += 1
            return real(model_id)

        store.snapshot = counted  # type: ignore[method-assign]


def test_resuming_the_docs_of_an_unmoved_index_skips_the_diff_and_embeds_nothing(
    open_index: Opener, embedder: Embedder
) -> None:
    synced = open_index(embedder).sync(DOCS)
    counting = CountingEncoder(embedder)
    turn = open_index(counting)
    snapshots = SnapshotCounter(turn)
    stats = turn.resume(DOCS, synced)
    assert snapshots.reads == 0 and counting.texts == []
    assert (stats.reused, stats.generation, stats.encoder) == (len(DOCS), synced.generation, synced.encoder)
    assert turn.lexical("momentum crashes", limit=1)[0].address == REMOVED


def test_a_commit_after_the_recorded_sync_makes_resume_sync_for_real(open_index: Opener, embedder: Embedder) -> None:
    synced = open_index(embedder).sync(DOCS)
    open_index(embedder).sync([d for d in DOCS if d.address != REMOVED])  # another process moved the index
    turn = open_index(embedder)
    stats = turn.resume(DOCS, synced)
    assert stats.added == 1 and stats.generation != synced.generation
    assert turn.lexical("momentum crashes", limit=1)[0].address == REMOVED


def test_a_sync_by_another_encoder_is_never_resumed(open_index: Opener, embedder: Embedder) -> None:
    synced = open_index(embedder).sync(DOCS)
    other = CountingEncoder(embedder)
    other.model_id = "test/another-encoder"
    stats = open_index(other).resume(DOCS, synced)
    assert stats.reembedded == len(DOCS) and len(other.texts) == len(DOCS)


def test_adopted_vectors_rank_as_loaded_ones_and_are_reloaded_once_the_index_moves(
    open_index: Opener, embedder: Embedder
) -> None:
    template = open_index(embedder)
    synced = template.sync(DOCS)
    state = template.warm_state()
    turn = open_index(embedder)
    turn.resume(DOCS, synced)
    turn.adopt_state(state)
    fresh = open_index(embedder)
    assert turn.semantic("momentum crash after a bear market", limit=5) == fresh.semantic(
        "momentum crash after a bear market", limit=5
    )
    open_index(embedder).sync([d for d in DOCS if d.address != REMOVED])
    after = [h.address for h in turn.semantic("momentum crash after a bear market", limit=len(DOCS))]
    assert REMOVED not in after, "the adopted vectors were stale and must have been reloaded"
