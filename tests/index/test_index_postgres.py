"""The PostgreSQL backend shared by many clients: content-hash reuse, workspace scoping, atomic syncs, races."""

from __future__ import annotations

import dataclasses
import json
import logging
import subprocess
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from adapters.index import Embedder, HybridIndex, IndexDoc, TextEncoder
from adapters.index.pg_errors import IndexUnavailable
from adapters.index.settings import IndexSettings
from tests.support.index_corpus import DOCS, CountingEncoder, WideHashEncoder, generated_docs

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def pg(dsn: str, workspace: str) -> IndexSettings:
    return IndexSettings("postgres", dsn, workspace)


def open_pg(tmp_path: Path, encoder: TextEncoder, settings: IndexSettings, **kw: int) -> HybridIndex:
    return HybridIndex.open(tmp_path / ".angelo", encoder, settings=settings, **kw)


def test_a_reopened_workspace_embeds_nothing_and_writes_no_sqlite_file(
    tmp_path: Path, embedder: Embedder, postgres_dsn: str, pg_workspace: str
) -> None:
    # An encoder identity of this test's own, so the shared vector cache starts cold whatever ran before.
    first, counter = CountingEncoder(embedder), CountingEncoder(embedder)
    first.model_id = counter.model_id = f"{embedder.model_id}+{pg_workspace}"
    with open_pg(tmp_path, first, pg(postgres_dsn, pg_workspace)) as index:
        assert index.sync(DOCS).reembedded == len(DOCS)
    with open_pg(tmp_path, counter, pg(postgres_dsn, pg_workspace)) as index:
        stats = index.sync(DOCS)
        assert index.path is None and len(index) == len(DOCS)
        assert index.lexical("momentum crashes", limit=1)[0].address == "zk:research:20260702-1100-finding"
    assert (stats.added, stats.updated, stats.removed, stats.reembedded) == (0, 0, 0, 0)
    assert counter.texts == []
    assert not (tmp_path / ".angelo").exists()


def test_another_workspace_with_the_same_texts_reuses_every_vector(
    tmp_path: Path, embedder: Embedder, postgres_dsn: str, pg_workspace: str
) -> None:
    with open_pg(tmp_path, embedder, pg(postgres_dsn, pg_workspace + "-a")) as index:
        index.sync(DOCS)
    counter = CountingEncoder(embedder)
    with open_pg(tmp_path, counter, pg(postgres_dsn, pg_workspace + "-b")) as index:
        stats = index.sync(DOCS)
        hits = index.search("why did net returns drop after costs rose", limit=3)
    assert (stats.added, stats.reembedded, stats.reused) == (len(DOCS), 0, len(DOCS))
    assert counter.texts == ["why did net returns drop after costs rose"]  # the query, nothing else
    assert hits and hits[0].semantic_rank is not None


def test_one_workspace_never_sees_another_workspaces_rows(tmp_path: Path, postgres_dsn: str, pg_workspace: str) -> None:
    encoder = WideHashEncoder()
    ours = generated_docs(30, salt="ours")
    theirs = [dataclasses.replace(d, address=d.address.replace("gen-", "their-")) for d in generated_docs(40, "x")]
    with (
        open_pg(tmp_path, encoder, pg(postgres_dsn, pg_workspace + "-ours")) as mine,
        open_pg(tmp_path, encoder, pg(postgres_dsn, pg_workspace + "-theirs")) as other,
    ):
        mine.sync(ours)
        other.sync(theirs)
        own = {d.address for d in ours}
        assert len(mine) == 30 and len(other) == 40
        for query in ("costs momentum", "uniq3", "Generated note"):
            for hits in (mine.search(query, limit=50), mine.lexical(query, limit=50), mine.semantic(query, limit=50)):
                assert hits and {h.address for h in hits} <= own
        assert {h.address for h in mine.similar("mem:tree:gen-00001", limit=50)} <= own
        assert mine.similar("mem:tree:their-00001", limit=5) == []
        mine.sync([])
        assert len(mine) == 0 and len(other) == 40
        assert mine.search("costs momentum", limit=10) == []


class PeekingEncoder:
    """Embeds for real and, before each batch, records which addresses another client can see right now."""

    def __init__(self, inner: TextEncoder, reader: HybridIndex) -> None:
        self.inner, self.reader = inner, reader
        self.model_id = inner.model_id
        self.seen: list[frozenset[str]] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        hits = self.reader.lexical("generated", limit=1000) + self.reader.lexical("fresh", limit=1000)
        self.seen.append(frozenset(h.address for h in hits))
        return self.inner.encode(texts)


def test_a_reader_sees_the_whole_old_state_until_the_whole_new_one_commits(
    tmp_path: Path, postgres_dsn: str, pg_workspace: str
) -> None:
    settings = pg(postgres_dsn, pg_workspace)
    old = generated_docs(12)
    new = [IndexDoc(f"mem:tree:new-{i:03d}", "memory", None, "note", f"Fresh note {i}", f"fresh{i}") for i in range(9)]
    with open_pg(tmp_path, WideHashEncoder(), settings) as reader:
        with open_pg(tmp_path, WideHashEncoder(), settings) as writer:
            writer.sync(old)
            peeking = PeekingEncoder(WideHashEncoder(), reader)
            with open_pg(tmp_path, peeking, settings, embed_chunk=2) as syncing:
                syncing.sync(new)
        assert len(peeking.seen) == 5  # 9 texts in chunks of 2: the reader looked in the middle of the sync
        assert set(peeking.seen) == {frozenset(d.address for d in old)}
        assert {h.address for h in reader.lexical("fresh", limit=100)} == {d.address for d in new}


class DyingEncoder:
    """Embeds for real until call ``fail_at``, then dies the way a killed build would."""

    def __init__(self, fail_at: int) -> None:
        self.inner, self.fail_at = WideHashEncoder(), fail_at
        self.model_id = self.inner.model_id
        self.calls = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == self.fail_at:
            raise KeyboardInterrupt
        return self.inner.encode(texts)


def test_an_interrupted_build_shows_no_rows_but_keeps_its_vectors(
    tmp_path: Path, postgres_dsn: str, pg_workspace: str
) -> None:
    settings = pg(postgres_dsn, pg_workspace)
    docs = generated_docs(10, salt=pg_workspace)  # texts no earlier test embedded into the shared cache
    with open_pg(tmp_path, DyingEncoder(fail_at=3), settings, embed_chunk=4) as index, pytest.raises(KeyboardInterrupt):
        index.sync(docs)
    counter = CountingEncoder(WideHashEncoder())
    with open_pg(tmp_path, counter, settings, embed_chunk=4) as index:
        assert len(index) == 0
        stats = index.sync(docs)
        assert len(index) == 10
    assert (stats.added, stats.reembedded, stats.reused) == (10, 2, 8)
    assert len(counter.texts) == 2


_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from adapters.index import HybridIndex
from adapters.index.settings import IndexSettings
from tests.support.index_corpus import WideHashEncoder, generated_docs
settings = IndexSettings("postgres", sys.argv[2], sys.argv[3])
index = HybridIndex.open(Path(sys.argv[4]), WideHashEncoder(), settings=settings, embed_chunk=250)
print("ready", flush=True)
sys.stdin.readline()
stats = index.sync(generated_docs(int(sys.argv[5])))
print(json.dumps({"added": stats.added, "reembedded": stats.reembedded, "size": len(index)}), flush=True)
index.close()
"""


def _run_together(args: list[list[str]]) -> list[dict[str, int]]:
    """Start every child, wait until each has connected, then let them all sync at once."""
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(HERE), *a],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for a in args
    ]
    for child in children:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    results = []
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def test_four_processes_syncing_one_workspace_leave_each_row_exactly_once(
    tmp_path: Path, postgres_dsn: str, pg_workspace: str
) -> None:
    n = 1500
    results = _run_together([[postgres_dsn, pg_workspace, str(tmp_path), str(n)] for _ in range(4)])
    assert sorted(r["added"] for r in results) == [0, 0, 0, n]
    assert all(r["size"] == n for r in results)
    settings = pg(postgres_dsn, pg_workspace)
    counter = CountingEncoder(WideHashEncoder())
    with open_pg(tmp_path, counter, settings) as index:
        stats = index.sync(generated_docs(n))
        assert (stats.added, stats.updated, stats.removed, stats.reembedded) == (0, 0, 0, 0)
        assert [h.address for h in index.lexical("uniq1499", limit=2)] == ["mem:tree:gen-01499"]
        rows = list(index.store.all_rows())  # type: ignore[attr-defined]
    assert len(rows) == n == len({doc.address for doc, *_ in rows})
    assert counter.texts == []


def test_processes_syncing_different_workspaces_at_once_all_succeed(
    tmp_path: Path, postgres_dsn: str, pg_workspace: str
) -> None:
    sizes = [300, 500, 700]
    results = _run_together([[postgres_dsn, f"{pg_workspace}-{n}", str(tmp_path), str(n)] for n in sizes])
    assert [(r["added"], r["size"]) for r in results] == [(n, n) for n in sizes]


SECRET = "s3cr3t-marker-pw"


def _with_password(dsn: str) -> str:
    """The server trusts local sockets, so a password in the DSN is accepted and ignored: a marker to hunt for."""
    return dsn.replace("postgres:@", f"postgres:{SECRET}@", 1)


def test_the_dsn_never_appears_in_results_errors_or_logs(
    tmp_path: Path, postgres_dsn: str, pg_workspace: str, caplog: pytest.LogCaptureFixture
) -> None:
    assert "postgres:@" in postgres_dsn
    dsn = _with_password(postgres_dsn)
    socket_dir = postgres_dsn.split("host=", 1)[1]
    caplog.set_level(logging.DEBUG)
    settings = pg(dsn, pg_workspace)
    assert SECRET not in repr(settings) and SECRET not in settings.describe()
    with open_pg(tmp_path, WideHashEncoder(), settings) as index:
        index.sync(generated_docs(20))
        results = [index.search("costs", limit=5), index.similar("mem:tree:gen-00001", limit=3)]
        assert results[0] and SECRET not in repr(results) and SECRET not in repr(index.store)
    bad = dsn.replace("/postgres?", "/no_such_database?", 1)
    with pytest.raises(IndexUnavailable) as caught:
        open_pg(tmp_path, WideHashEncoder(), pg(bad, pg_workspace))
    told = "".join(traceback.format_exception(caught.value))
    assert "connect failed" in caught.value.message
    for secret in (SECRET, socket_dir, "no_such_database"):
        assert secret not in told
        assert secret not in caplog.text
