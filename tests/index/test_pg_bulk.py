"""The PostgreSQL index's HNSW graph under bulk loads: built after the rows, rebuilt when missing, never wrong meanwhile.

Every workspace a test makes is small enough to be ranked in process (``pg_schema.HELD_ROWS``), where no graph
is built; so this module lowers the bound to 0 and every workspace needs the graph, as a large one does.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from adapters.index import HybridIndex, IndexDoc, pg_schema
from adapters.index.backend import Filters
from adapters.index.pg_bulk import BULK_ROWS, is_bulk, vector_index_rebuilt
from adapters.index.pg_channels import EXACT_BELOW, nearest, scope
from adapters.index.pg_schema import BUILD_LOCK_KEY, VECTOR_INDEX, vector_index_present
from adapters.index.pg_store import PgStore
from adapters.index.settings import IndexSettings
from tests.support.index_corpus import WideHashEncoder, generated_docs

ENCODER = WideHashEncoder()


@pytest.fixture(scope="module", autouse=True)
def graph_for_every_workspace(postgres_dsn: str) -> Iterator[None]:
    """Every workspace ranked by the HNSW graph while this module runs; the graph dropped after it, as a
    database holding only small workspaces has none."""
    import psycopg

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pg_schema, "HELD_ROWS", 0)
        yield
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(f"DROP INDEX IF EXISTS {VECTOR_INDEX}")


@pytest.fixture
def admin(postgres_dsn: str) -> Iterator[Any]:
    """A plain autocommit connection beside the stores, for what a test does to the shared schema."""
    import psycopg
    from pgvector.psycopg import register_vector

    PgStore.connect(postgres_dsn, "test-admin").close()  # the schema and the vector type exist from here on
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        register_vector(conn)
        yield conn
    PgStore.connect(postgres_dsn, "test-admin").close()  # whatever a test dropped, the next test has the index


def key(workspace: str) -> str:
    """The store's own key for the index a HybridIndex opens with ``workspace`` (its default cache name)."""
    return f"{workspace}/default"


def open_pg(tmp_path: Path, dsn: str, workspace: str) -> HybridIndex:
    return HybridIndex.open(tmp_path / ".angelo", ENCODER, settings=IndexSettings("postgres", dsn, workspace))


def test_a_bulk_sync_builds_the_hnsw_index_after_its_rows_and_finds_them(
    tmp_path: Path, postgres_dsn: str, pg_workspace: str, admin: Any
) -> None:
    n = BULK_ROWS
    while not is_bulk(admin, n):  # other tests' rows share the table: write enough to make this a bulk load
        n *= 2
    if n > 8 * BULK_ROWS:
        pytest.skip(f"this session's shared table holds so many rows that a bulk load would write {n}")
    docs = generated_docs(n, salt=pg_workspace)
    before = _index_oid(admin)
    with open_pg(tmp_path, postgres_dsn, pg_workspace) as index:
        index.sync(docs)
        assert len(index) == len(docs)
        assert vector_index_present(admin) and _index_oid(admin) != before  # built again, not inserted into
        for i in (0, 17, n - 1):
            query = f"uniq{i} sharpe costs"
            hits = index.semantic(query, limit=10)
            assert [round(h.score, 4) for h in hits] == exact_top_scores(docs, query, 10)
            assert index.lexical(f"uniq{i}", limit=1)[0].address == f"mem:tree:gen-{i:05d}"


def exact_top(docs: list[IndexDoc], query: str, k: int) -> list[str]:
    """The exact cosine top ``k`` (equal scores in address order), computed here in numpy."""
    scores = ENCODER.encode([d.embed_text() for d in docs]) @ ENCODER.encode([query])[0]
    return [a for _, a in sorted(zip(np.round(-scores, 5), (d.address for d in docs), strict=True))[:k]]


def exact_top_scores(docs: list[IndexDoc], query: str, k: int) -> list[float]:
    """The exact top ``k`` cosine scores: an answer that has them found the true neighbours (up to ties)."""
    scores = ENCODER.encode([d.embed_text() for d in docs]) @ ENCODER.encode([query])[0]
    return [round(float(s), 4) for s in sorted(scores, reverse=True)[:k]]


def _index_oid(conn: Any) -> int | None:
    """The graph's object id, None while there is none (a first bulk load into an empty table builds it)."""
    oid = conn.execute("SELECT to_regclass(%s)::oid", (VECTOR_INDEX,)).fetchone()[0]
    return None if oid is None else int(oid)


def test_a_reader_during_an_index_rebuild_gets_the_answers_it_gets_after(
    tmp_path: Path, postgres_dsn: str, pg_workspace: str, admin: Any
) -> None:
    with open_pg(tmp_path, postgres_dsn, pg_workspace) as index:
        index.sync(generated_docs(60, salt="rebuild"))
        after_queries = ["costs momentum", "uniq5 sharpe", "carry value rebuild"]
        with vector_index_rebuilt(admin):
            assert not vector_index_present(admin)
            during = [[h.address for h in index.semantic(q, limit=10)] for q in after_queries]
        assert vector_index_present(admin)
        after = [[h.address for h in index.semantic(q, limit=10)] for q in after_queries]
    assert during == after and all(len(hits) == 10 for hits in during)


def test_an_open_builds_the_hnsw_index_a_dead_bulk_load_left_missing(postgres_dsn: str, admin: Any) -> None:
    admin.execute(f"DROP INDEX {VECTOR_INDEX}")
    PgStore.connect(postgres_dsn, "test-open").close()
    assert vector_index_present(admin)


def test_an_open_leaves_the_index_to_the_session_holding_the_build_lock(postgres_dsn: str, admin: Any) -> None:
    admin.execute("SELECT pg_advisory_lock(%s)", (BUILD_LOCK_KEY,))
    try:
        admin.execute(f"DROP INDEX {VECTOR_INDEX}")
        PgStore.connect(postgres_dsn, "test-open").close()  # (it did not wait for the lock either)
        assert not vector_index_present(admin)
    finally:
        admin.execute("SELECT pg_advisory_unlock(%s)", (BUILD_LOCK_KEY,))
    PgStore.connect(postgres_dsn, "test-open").close()
    assert vector_index_present(admin)


def test_a_filtered_index_walk_that_comes_back_short_is_answered_by_the_exact_scan(
    tmp_path: Path, postgres_dsn: str, pg_workspace: str, admin: Any
) -> None:
    docs = generated_docs(80, salt="walk")
    notes = [IndexDoc(f"zk:research:n{i:03d}", "zk", "research", "note", f"N {i}", f"walk note {i}") for i in range(12)]
    with open_pg(tmp_path, postgres_dsn, pg_workspace) as index:
        index.sync(docs + notes)
    model = ENCODER.model_id
    query = ENCODER.encode(["walk note"])[0]
    only_notes = Filters(families={"zk"})
    admin.execute("SET hnsw.iterative_scan = strict_order")
    admin.execute("SET hnsw.ef_search = 1")
    admin.execute("SET hnsw.max_scan_tuples = 1")  # the walk gives up after one tuple: fewer rows than asked
    admin.execute("SET enable_seqscan = off")
    admin.execute("SET enable_sort = off")
    plan = admin.execute(
        "EXPLAIN SELECT address FROM synapse_docs d WHERE d.workspace = %s AND d.family = 'zk'"
        " ORDER BY d.embedding <=> %s LIMIT 10",
        (key(pg_workspace), query),
    ).fetchall()
    assert any(VECTOR_INDEX in line for (line,) in plan)  # the ANN path is the one under test
    hits = nearest(admin, key(pg_workspace), query, 10, only_notes, model, scope=EXACT_BELOW + 1)
    assert len(hits) == 10 and all(h.address.startswith("zk:") for h in hits)
    assert scope(admin, key(pg_workspace), only_notes, model).rows == len(docs) + len(notes)  # the workspace's


def test_a_small_workspace_is_ranked_exactly_with_ties_in_address_order(
    tmp_path: Path, postgres_dsn: str, pg_workspace: str
) -> None:
    twins = [IndexDoc(f"mem:tree:twin-{c}", "memory", None, "note", "Twin", "same words here") for c in "dcbae"]
    docs = twins + generated_docs(40, salt="ties")
    with open_pg(tmp_path, postgres_dsn, pg_workspace) as index:
        index.sync(docs)
        hits = index.semantic("same words here", limit=7)
    assert [h.address for h in hits] == exact_top(docs, "same words here", 7)
    assert [h.address for h in hits[:5]] == [f"mem:tree:twin-{c}" for c in "abcde"]


def test_an_open_brings_a_database_of_the_earlier_layout_up_to_date(postgres_dsn: str, admin: Any) -> None:
    # Schema 1 as first released: the vector could be toasted out of line and no row count was kept.
    admin.execute("ALTER TABLE synapse_docs ALTER COLUMN embedding SET STORAGE EXTENDED")
    admin.execute("ALTER TABLE synapse_workspaces DROP COLUMN rows")
    PgStore.connect(postgres_dsn, "test-open").close()
    layout = admin.execute(
        "SELECT (SELECT attstorage FROM pg_attribute WHERE attrelid = 'synapse_docs'::regclass"
        " AND attname = 'embedding'),"
        " EXISTS(SELECT 1 FROM pg_attribute WHERE attrelid = 'synapse_workspaces'::regclass"
        " AND attname = 'rows' AND NOT attisdropped)"
    ).fetchone()
    assert layout == ("p", True)
