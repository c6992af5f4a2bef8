"""A PostgreSQL workspace within ``pg_schema.HELD_ROWS`` is ranked exactly in process, over vectors that are
never older than the database's, and no HNSW graph is built until a workspace outgrows the bound."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from adapters.index import HybridIndex, IndexDoc, pg_held, pg_schema
from adapters.index.backend import Filters
from adapters.index.documents import ChannelHit
from adapters.index.pg_channels import nearest
from adapters.index.pg_errors import IndexUnavailable
from adapters.index.pg_schema import VECTOR_INDEX, vector_index_present
from adapters.index.pg_store import PgStore
from adapters.index.settings import IndexSettings
from tests.support.index_corpus import WideHashEncoder, generated_docs

ENCODER = WideHashEncoder()
MODEL = ENCODER.model_id


@pytest.fixture
def admin(postgres_dsn: str) -> Iterator[Any]:
    import psycopg
    from pgvector.psycopg import register_vector

    PgStore.connect(postgres_dsn, "test-admin").close()
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        register_vector(conn)
        yield conn


def open_pg(folder: Path, dsn: str, workspace: str) -> HybridIndex:
    return HybridIndex.open(folder / ".angelo", ENCODER, settings=IndexSettings("postgres", dsn, workspace))


def mixed_docs() -> list[IndexDoc]:
    """Memory rows, and zk rows of two projects and two types, with exact twins, so filters and ties matter."""
    notes = [
        IndexDoc(f"zk:{project}:n{i:03d}", "zk", project, kind, f"Note {i}", f"{project} {kind} costs momentum {i % 4}")
        for i in range(30)
        for project, kind in [(("research", "methods")[i % 2], ("note", "claim")[i % 3 == 0])]
    ]
    twins = [IndexDoc(f"mem:tree:twin-{c}", "memory", None, "note", "Twin", "costs momentum twin") for c in "cab"]
    return generated_docs(50, salt="held") + notes + twins


FILTERS = [
    Filters(),
    Filters(families={"zk"}),
    Filters(projects={"methods"}),
    Filters(types={"claim"}),
    Filters(families={"zk"}, projects={"research"}, types={"note"}),
    Filters(families={"nothing-here"}),
]


def test_a_held_workspace_ranks_exactly_what_the_exact_scan_in_sql_ranks(
    tmp_path: Path, postgres_dsn: str, pg_workspace: str, admin: Any
) -> None:
    docs = mixed_docs()
    with open_pg(tmp_path, postgres_dsn, pg_workspace) as index:
        index.sync(docs)
        store = index.store
        for query in ("costs momentum twin", "methods claim costs", "uniq7 sharpe"):
            vector = ENCODER.encode([query])[0]
            for filters in FILTERS:
                held = store.semantic(lambda v=vector: v, 12, filters, MODEL)
                same_ranking(held, nearest(admin, f"{pg_workspace}/default", vector, 12, filters, MODEL, scope=0))
        anchor = "zk:research:n004"
        own = admin.execute(
            "SELECT embedding FROM synapse_docs WHERE workspace = %s AND address = %s",
            (f"{pg_workspace}/default", anchor),
        ).fetchone()[0]
        for filters in FILTERS:
            held = store.similar(anchor, 9, filters, MODEL)
            same_ranking(
                held, nearest(admin, f"{pg_workspace}/default", own, 9, filters, MODEL, scope=0, exclude=anchor)
            )
        twins = store.semantic(lambda: ENCODER.encode(["costs momentum twin"])[0], 3, Filters(), MODEL)
        assert [h.address for h in twins] == ["mem:tree:twin-a", "mem:tree:twin-b", "mem:tree:twin-c"]
    assert not vector_index_present(admin)  # nothing needed a graph


def same_ranking(held: list[ChannelHit], in_sql: list[ChannelHit]) -> None:
    """The same scores (float32 in numpy, float8 in SQL: equal to 5 places), and the same addresses in the
    same order but among rows whose scores are equal to 5 places at the cut, where either side may keep any."""
    ranked = [sorted((-round(h.score, 5), h.address) for h in hits) for hits in (held, in_sql)]
    assert [s for s, _ in ranked[0]] == [s for s, _ in ranked[1]]
    cut = ranked[0][-1][0] if ranked[0] else None
    assert [r for r in ranked[0] if r[0] != cut] == [r for r in ranked[1] if r[0] != cut]


def test_a_write_by_another_process_is_seen_by_the_next_meaning_search(
    tmp_path: Path, postgres_dsn: str, pg_workspace: str
) -> None:
    docs = generated_docs(40, salt="stale")
    moved = IndexDoc("mem:tree:gen-00021", "memory", None, "note", "Moved", "zebra quokka wombat")
    with (
        open_pg(tmp_path / "a", postgres_dsn, pg_workspace) as reader,
        open_pg(tmp_path / "b", postgres_dsn, pg_workspace) as writer,
    ):
        writer.sync(docs)
        assert reader.semantic("uniq3 zebra quokka", limit=1)[0].address == "mem:tree:gen-00003"  # held now
        writer.sync([d for d in docs if d.address not in {"mem:tree:gen-00003", moved.address}] + [moved])
        hits = [h.address for h in reader.semantic("uniq3 zebra quokka", limit=40)]
    assert hits[0] == moved.address  # the rewritten row, not the held one
    assert "mem:tree:gen-00003" not in hits  # the removed row is gone
    assert len(hits) == len(docs) - 1


def test_a_delta_sync_patches_the_held_vectors_to_what_a_fresh_load_reads(
    tmp_path: Path, postgres_dsn: str, pg_workspace: str, monkeypatch: pytest.MonkeyPatch, admin: Any
) -> None:
    docs = generated_docs(60, salt="patch")
    with open_pg(tmp_path, postgres_dsn, pg_workspace) as index:
        stats = index.sync(docs)
        state = index.warm_state()
        assert state is not None
        loads: list[str] = []
        original = pg_held.load_matrix
        monkeypatch.setattr(pg_held, "load_matrix", lambda *a: (loads.append("load"), original(*a))[1])
        edited = [
            *docs[:10],
            IndexDoc("mem:tree:gen-00010", "memory", None, "note", "Edited", "edited words"),
            *docs[12:],
        ]
        index.advance(edited, docs, stats, state)
        patched = index.store.warm_state(MODEL)
        assert loads == []  # taken in from the written rows, not read again
        fresh = pg_held.load_matrix(admin, f"{pg_workspace}/default", MODEL)
    assert isinstance(patched, tuple)
    (generation, _), matrix = patched
    assert generation == fresh[0]
    assert matrix.addresses == fresh[1].addresses
    assert np.array_equal(matrix.vectors, fresh[1].vectors)


def test_no_graph_is_built_until_a_workspace_outgrows_what_is_held(
    tmp_path: Path, postgres_dsn: str, pg_workspace: str, monkeypatch: pytest.MonkeyPatch, admin: Any
) -> None:
    admin.execute(f"DROP INDEX IF EXISTS {VECTOR_INDEX}")
    biggest = admin.execute("SELECT coalesce(max(rows), 0) FROM synapse_workspaces").fetchone()[0]
    monkeypatch.setattr(pg_schema, "HELD_ROWS", int(biggest) + 30)  # every workspace so far is held
    docs = generated_docs(int(biggest) + 60, salt="grow")
    try:
        with open_pg(tmp_path, postgres_dsn, pg_workspace) as index:
            index.sync(docs[: int(biggest) + 20])
            assert not vector_index_present(admin)
            assert index.warm_state() is not None
            index.sync(docs)  # past the bound: this write leaves the graph built
            assert vector_index_present(admin)
            assert index.warm_state() is None  # ranked by the graph now, nothing held
            assert index.semantic("uniq5 volatility value grow", limit=1)[0].address == "mem:tree:gen-00005"
    finally:
        admin.execute(f"DROP INDEX IF EXISTS {VECTOR_INDEX}")


def test_stored_vectors_of_another_width_are_an_unavailable_index_not_a_wrong_ranking() -> None:
    good = (384).to_bytes(2, "big") + bytes(2) + np.ones(384, dtype=">f4").tobytes()
    short = (3).to_bytes(2, "big") + bytes(2) + np.ones(3, dtype=">f4").tobytes()
    assert pg_held._decoded([good]).shape == (1, 384)
    with pytest.raises(IndexUnavailable):
        pg_held._decoded([good, short])
    with pytest.raises(IndexUnavailable):
        pg_held._decoded([(3).to_bytes(2, "big") + bytes(2) + np.ones(384, dtype=">f4").tobytes()])
