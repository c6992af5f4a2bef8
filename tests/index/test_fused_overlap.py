"""A fused search embeds its query on a thread of its own while the keyword channel runs, and ranks as before.

The overlap starts only when the model is already loaded, so a search that finds
nothing to rank still never loads it; an encoder's failure on that thread is the
search's failure, raised where the caller can see it; no search leaves a thread.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from adapters.index import Embedder, HybridIndex, TextEncoder
from tests.support.index_corpus import DOCS

QUERIES = ["momentum crashes", "transaction costs and net returns", "how do we size positions", "vendor"]


class LoadedEncoder:
    """A loaded encoder (``is_loaded``) that records the thread of every encode and can be made to fail."""

    def __init__(self, inner: TextEncoder, *, fail: bool = False) -> None:
        self.inner, self.fail = inner, fail
        self.model_id = inner.model_id
        self.is_loaded = True
        self.threads: list[int] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.threads.append(threading.get_ident())
        if self.fail:
            raise RuntimeError("the encoder broke")
        return self.inner.encode(texts)


class SequentialEncoder:
    """The same model without ``is_loaded``: the search embeds in line, after the keyword channel."""

    def __init__(self, inner: TextEncoder) -> None:
        self.inner = inner
        self.model_id = inner.model_id

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.encode(texts)


@pytest.fixture
def cache(tmp_path: Path, embedder: Embedder) -> Path:
    with HybridIndex.open(tmp_path, embedder) as index:
        index.sync(DOCS)
    return tmp_path


def test_a_fused_search_embeds_its_query_off_the_callers_thread_and_ranks_as_in_sequence(
    cache: Path, embedder: Embedder
) -> None:
    ahead = LoadedEncoder(embedder)
    with HybridIndex.open(cache, ahead) as overlapped, HybridIndex.open(cache, SequentialEncoder(embedder)) as inline:
        for query in QUERIES:
            assert overlapped.search(query, limit=10) == inline.search(query, limit=10)
    assert ahead.threads and threading.get_ident() not in ahead.threads


def test_an_encoder_failure_on_the_query_thread_is_raised_by_the_search(cache: Path, embedder: Embedder) -> None:
    before = threading.active_count()
    with (
        HybridIndex.open(cache, LoadedEncoder(embedder, fail=True)) as index,
        pytest.raises(RuntimeError, match="broke"),
    ):
        index.search("momentum crashes", limit=5)
    assert threading.active_count() == before, "the search left its query thread behind"


def test_a_search_with_nothing_to_rank_still_never_loads_the_model(cache: Path) -> None:
    cold = Embedder()
    with HybridIndex.open(cache, cold) as index:
        assert index.search("momentum crashes", limit=5, families={"no-such-family"}) == []
    assert not cold.is_loaded


def test_a_keyword_only_or_meaning_only_search_embeds_on_the_callers_thread(cache: Path, embedder: Embedder) -> None:
    encoder = LoadedEncoder(embedder)
    with HybridIndex.open(cache, encoder) as index:
        index.search("momentum crashes", limit=5, channels=("lexical",))
        assert encoder.threads == [], "no vector for a keyword-only search"
        index.search("momentum crashes", limit=5, channels=("semantic",))
    assert encoder.threads == [threading.get_ident()]
