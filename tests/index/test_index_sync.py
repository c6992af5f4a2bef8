"""The sync pipeline: the encoder works on the next chunk while the writer commits the last one."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from adapters.index import HybridIndex
from tests.support.index_corpus import HashEncoder, generated_docs


class SignallingEncoder(HashEncoder):
    """Sets an event when the encoder is asked for its second chunk."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        self.second = threading.Event()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == 2:
            self.second.set()
        return super().encode(texts)


def test_the_encoder_starts_the_next_chunk_before_the_last_one_is_committed(tmp_path: Path) -> None:
    encoder = SignallingEncoder()
    overlapped: list[bool] = []
    with HybridIndex.open(tmp_path, encoder, embed_chunk=4) as index:
        real_apply = index._store.apply

        def apply(*args: Any, **kwargs: Any) -> bool:
            if not overlapped:  # the first commit waits until the encoder is already on chunk two
                overlapped.append(encoder.second.wait(timeout=60))
            return real_apply(*args, **kwargs)

        index._store.apply = apply  # type: ignore[method-assign]
        stats = index.sync(generated_docs(12))
        assert len(index) == 12
    assert overlapped == [True]
    assert (stats.added, stats.reembedded) == (12, 12) and encoder.calls == 3


def test_chunks_are_cut_from_texts_ordered_by_length(tmp_path: Path) -> None:
    docs = generated_docs(9)
    docs = [
        d.__class__(d.address, d.family, d.project, d.type, d.title, d.text * (1 + i % 3)) for i, d in enumerate(docs)
    ]
    seen: list[list[int]] = []

    class Recording(HashEncoder):
        def encode(self, texts: Sequence[str]) -> np.ndarray:
            seen.append([len(t) for t in texts])
            return super().encode(texts)

    with HybridIndex.open(tmp_path, Recording(), embed_chunk=3) as index:
        index.sync(docs)
    flat = [n for chunk in seen for n in chunk]
    assert len(seen) == 3 and flat == sorted(flat)
