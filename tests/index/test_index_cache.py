"""The derived cache: reused when nothing changed, re-embedded only where text changed, rebuilt when damaged."""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from adapters.index import Embedder, HybridIndex, IndexDoc, TextEncoder
from adapters.index.store import Store
from tests.support.index_corpus import DOCS, CountingEncoder, HashEncoder, by_address, generated_docs

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def build(cache: Path, encoder: TextEncoder, docs: Sequence[IndexDoc] = DOCS) -> None:
    with HybridIndex.open(cache, encoder) as index:
        index.sync(docs)


def test_a_second_open_with_unchanged_docs_embeds_nothing(tmp_path: Path, embedder: Embedder) -> None:
    first = CountingEncoder(embedder)
    with HybridIndex.open(tmp_path, first) as index:
        stats = index.sync(DOCS)
    assert (stats.added, stats.reembedded, stats.reused) == (len(DOCS), len(DOCS), 0)
    assert len(first.texts) == len(DOCS)
    second = CountingEncoder(embedder)
    with HybridIndex.open(tmp_path, second) as index:
        stats = index.sync(DOCS)
        assert index.lexical("momentum crashes", limit=1)[0].address == "zk:research:20260702-1100-finding"
    assert (stats.added, stats.updated, stats.removed, stats.reembedded, stats.reused) == (0, 0, 0, 0, len(DOCS))
    assert second.texts == []


def test_a_warm_open_with_unchanged_docs_never_loads_the_model(tmp_path: Path, embedder: Embedder) -> None:
    build(tmp_path, embedder)
    cold = Embedder()
    with HybridIndex.open(tmp_path, cold) as index:
        index.sync(DOCS)
        index.search("momentum", limit=3, channels=("lexical",))
        index.similar("zk:research:20260702-1100-finding", limit=3)
    assert not cold.is_loaded


def test_editing_one_doc_reembeds_only_that_doc(tmp_path: Path, embedder: Embedder) -> None:
    build(tmp_path, embedder)
    edited = dataclasses.replace(DOCS[5], text="Scale positions to a constant ex-ante tracking error budget.")
    docs = [edited if d.address == edited.address else d for d in DOCS]
    counter = CountingEncoder(embedder)
    with HybridIndex.open(tmp_path, counter) as index:
        stats = index.sync(docs)
        assert index.lexical("tracking error budget", limit=1)[0].address == edited.address
        assert index.lexical("inversely trailing realised", limit=5) == []
    assert (stats.added, stats.updated, stats.reembedded, stats.reused) == (0, 1, 1, len(DOCS) - 1)
    assert counter.texts == [edited.embed_text()]


def test_a_retyped_doc_is_rewritten_without_reembedding(tmp_path: Path, embedder: Embedder) -> None:
    build(tmp_path, embedder)
    retyped = dataclasses.replace(by_address("mem:tree:note-11223344"), type="decision")
    docs = [retyped if d.address == retyped.address else d for d in DOCS]
    counter = CountingEncoder(embedder)
    with HybridIndex.open(tmp_path, counter) as index:
        stats = index.sync(docs)
        assert (stats.updated, stats.reembedded) == (1, 0) and counter.texts == []
        hits = index.search("vendor", limit=5, types={"decision"})
    assert hits[0].address == retyped.address and all(h.type == "decision" for h in hits)


def test_a_doc_no_longer_synced_leaves_both_channels(tmp_path: Path, embedder: Embedder) -> None:
    gone = by_address("mem:tree:anti-0a1b2c3d")
    with HybridIndex.open(tmp_path, embedder) as index:
        index.sync(DOCS)
        stats = index.sync([d for d in DOCS if d is not gone])
        assert stats.removed == 1 and len(index) == len(DOCS) - 1
        assert index.lexical("survivorship delisted", limit=5) == []
        assert all(h.address != gone.address for h in index.semantic("bankrupt firms absent", limit=20))


class FailingEncoder:
    """Embeds for real until call ``fail_at``, then dies the way a killed build would."""

    def __init__(self, inner: TextEncoder, fail_at: int) -> None:
        self.inner, self.fail_at = inner, fail_at
        self.model_id = inner.model_id
        self.batches: list[int] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if len(self.batches) + 1 == self.fail_at:
            raise KeyboardInterrupt
        self.batches.append(len(texts))
        return self.inner.encode(texts)


def test_an_interrupted_build_keeps_the_chunks_it_committed(tmp_path: Path) -> None:
    dying = FailingEncoder(HashEncoder(), fail_at=3)
    with HybridIndex.open(tmp_path, dying, embed_chunk=4) as index, pytest.raises(KeyboardInterrupt):
        index.sync(DOCS)
    assert dying.batches == [4, 4]
    with HybridIndex.open(tmp_path, HashEncoder(), embed_chunk=4) as index:
        stats = index.sync(DOCS)
        assert len(index) == len(DOCS)
    assert (stats.added, stats.reembedded, stats.reused) == (len(DOCS) - 8, len(DOCS) - 8, 8)


def test_identical_texts_are_embedded_once(tmp_path: Path, embedder: Embedder) -> None:
    twin = dataclasses.replace(DOCS[0], address="mem:tree:deci-twin0000")
    counter = CountingEncoder(embedder)
    with HybridIndex.open(tmp_path, counter) as index:
        stats = index.sync([DOCS[0], twin])
    assert stats.reembedded == 2 and len(counter.texts) == 1


def test_a_deleted_cache_file_is_rebuilt(tmp_path: Path, embedder: Embedder) -> None:
    build(tmp_path, embedder)
    for file in tmp_path.glob("index-default.sqlite3*"):
        file.unlink()
    with HybridIndex.open(tmp_path, embedder) as index:
        stats = index.sync(DOCS)
        assert index.search("momentum crashes", limit=1)[0].address == "zk:research:20260702-1100-finding"
    assert stats.reembedded == len(DOCS)


def test_a_corrupted_cache_file_is_rebuilt(tmp_path: Path) -> None:
    encoder = HashEncoder()
    build(tmp_path, encoder)
    cache = tmp_path / "index-default.sqlite3"
    good = cache.read_bytes()
    damaged = {
        "garbage": os.urandom(len(good)),
        "header": b"\xff" * 100 + good[100:],
        "truncated": good[: len(good) // 2],
        "pages": good[:4096] + b"\xa5" * (len(good) - 8192) + good[-4096:],
    }
    for name, data in damaged.items():
        cache.write_bytes(data)
        with HybridIndex.open(tmp_path, encoder) as index:
            stats = index.sync(DOCS)
            top = index.search("momentum crashes", limit=1)
        assert stats.reembedded == len(DOCS), name
        assert top[0].address == "zk:research:20260702-1100-finding", name


def test_a_cache_damaged_under_an_open_index_is_rebuilt_from_the_last_sync(tmp_path: Path) -> None:
    encoder = HashEncoder()
    with HybridIndex.open(tmp_path, encoder) as index:
        index.sync(DOCS)
        cache = tmp_path / "index-default.sqlite3"
        with sqlite3.connect(cache) as other:  # move everything from the WAL into the main file, then damage it
            other.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        other.close()
        size = cache.stat().st_size
        with cache.open("r+b") as raw:
            raw.seek(4096)
            raw.write(b"\xa5" * (size - 4096))
        hits = index.search("momentum crashes", limit=1)
        assert hits[0].address == "zk:research:20260702-1100-finding"
        assert len(index) == len(DOCS)


def test_a_cache_from_another_schema_version_is_rebuilt(tmp_path: Path) -> None:
    encoder = HashEncoder()
    build(tmp_path, encoder)
    with sqlite3.connect(tmp_path / "index-default.sqlite3") as conn:
        conn.execute("UPDATE meta SET value = 'old' WHERE key = 'schema'")
    conn.close()
    with HybridIndex.open(tmp_path, encoder) as index:
        assert len(index) == 0
        assert index.sync(DOCS).added == len(DOCS)


def test_an_unusable_cache_directory_indexes_in_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory should be", encoding="utf-8")
    with HybridIndex.open(blocker, HashEncoder()) as index:
        assert index.path is None
        index.sync(DOCS)
        assert index.search("momentum crashes", limit=1)[0].address == "zk:research:20260702-1100-finding"


class RacingEncoder:
    """Embeds for real, but lets a rival process-alike commit its own sync in the middle of ours (once)."""

    def __init__(self, inner: TextEncoder, rival: HybridIndex, rival_docs: Sequence[IndexDoc]) -> None:
        self.inner, self.rival, self.rival_docs = inner, rival, rival_docs
        self.model_id = inner.model_id
        self.calls = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == 1:
            self.rival.sync(self.rival_docs)
        return self.inner.encode(texts)


def test_clients_opening_a_fresh_cache_at_once_all_get_the_file(tmp_path: Path) -> None:
    # Two connections switching a new file to WAL together get an immediate SQLITE_BUSY that no busy timeout
    # waits out; unserialised, about one opener in eighty fell back to a private in-memory index.
    for round_ in range(200):
        folder, barrier = tmp_path / str(round_), threading.Barrier(4)
        stores: list[Store] = []

        def open_at_once(folder: Path, barrier: threading.Barrier, stores: list[Store]) -> None:
            barrier.wait()
            stores.append(Store.open(folder, "default"))

        threads = [threading.Thread(target=open_at_once, args=(folder, barrier, stores)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert [s.path for s in stores] == [folder / "index-default.sqlite3"] * 4
        for store in stores:
            store.close()


def test_a_sync_that_raced_another_writer_is_recomputed_against_the_winner(tmp_path: Path) -> None:
    encoder = HashEncoder()
    with HybridIndex.open(tmp_path, encoder) as rival:
        racing = RacingEncoder(encoder, rival, generated_docs(5, salt="rival"))
        with HybridIndex.open(tmp_path, racing) as index:
            stats = index.sync(DOCS)
            assert (stats.added, stats.removed) == (len(DOCS), 5)
            assert racing.calls == 1
            assert len(index) == len(DOCS) and len(rival) == len(DOCS)
            assert index.lexical("uniq3", limit=5) == []


_CHILD = """
import json, logging, sys
logging.basicConfig(level=logging.WARNING)
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from adapters.index import HybridIndex
from tests.support.index_corpus import HashEncoder, generated_docs
index = HybridIndex.open(Path(sys.argv[2]), HashEncoder())
print("ready", flush=True)
sys.stdin.readline()
stats = index.sync(generated_docs(int(sys.argv[3])))
print(json.dumps({"added": stats.added, "reused": stats.reused, "size": len(index)}), flush=True)
index.close()
"""


def test_two_processes_syncing_one_cache_both_succeed_and_leave_one_index(tmp_path: Path) -> None:
    n = 3000
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(HERE), str(tmp_path), str(n)],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for child in children:  # both have the cache open before either writes
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    results, logs = [], []
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
        logs.append(err)
    # Each row is added by exactly one of them (the other re-diffs against the winner's chunks), in one file.
    assert sum(r["added"] for r in results) == n, logs
    assert all(r["size"] == n for r in results), logs
    assert not any("in memory" in log or "rebuilding" in log for log in logs), logs
    with HybridIndex.open(tmp_path, HashEncoder()) as index:
        stats = index.sync(generated_docs(n))
        assert (stats.added, stats.updated, stats.removed, stats.reembedded) == (0, 0, 0, 0)
        assert [h.address for h in index.lexical("uniq2999", limit=2)] == ["mem:tree:gen-02999"]
        assert index.similar("mem:tree:gen-00000", limit=1)
    with sqlite3.connect(tmp_path / "index-default.sqlite3") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (n,)
        conn.execute("INSERT INTO docs_fts(docs_fts) VALUES ('integrity-check')")
    conn.close()
