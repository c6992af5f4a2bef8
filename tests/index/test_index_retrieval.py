"""Hybrid retrieval over a small labelled trading-research corpus, with the real MiniLM model.

Every test runs against both backends: the embedded SQLite store and a real PostgreSQL + pgvector server.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from adapters.index import Embedder, HybridIndex
from adapters.index.settings import IndexSettings
from tests.support.index_corpus import DOCS, KEYWORD_ONLY, LABELLED, MEANING_ONLY


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def index(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, embedder: Embedder
) -> Iterator[HybridIndex]:
    """Built once per backend for the module: every test here only reads."""
    settings = None
    if request.param == "postgres":
        dsn = request.getfixturevalue("postgres_dsn")
        settings = IndexSettings("postgres", dsn, f"retrieval-{uuid.uuid4().hex[:8]}")
    cache = tmp_path_factory.mktemp("retrieval") / ".angelo"
    with HybridIndex.open(cache, embedder, settings=settings) as built:
        built.sync(DOCS)
        yield built


@pytest.mark.parametrize(("query", "expected"), LABELLED, ids=[q for q, _ in LABELLED])
def test_the_obviously_relevant_doc_comes_first(index: HybridIndex, query: str, expected: str) -> None:
    hits = index.search(query, limit=5)
    assert hits[0].address == expected


def test_the_fused_list_holds_hits_from_both_channels(index: HybridIndex) -> None:
    hits = index.search("transaction costs and net returns", limit=10)
    assert hits[0].lexical_rank == 1 and hits[0].semantic_rank == 1
    assert any(h.lexical_rank is None and h.semantic_rank is not None for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_a_paraphrase_sharing_no_word_is_found_by_meaning_alone(index: HybridIndex) -> None:
    query, expected = MEANING_ONLY
    assert index.lexical(query, limit=10) == []
    top = index.search(query, limit=3)[0]
    assert (top.address, top.lexical_rank, top.semantic_rank) == (expected, None, 1)
    assert top.similarity is not None and top.similarity > 0.4


def test_an_exact_identifier_is_found_by_keywords_where_meaning_misses(index: HybridIndex) -> None:
    query, expected = KEYWORD_ONLY
    assert index.semantic(query, limit=3)[0].address != expected
    top = index.search(query, limit=3)[0]
    assert (top.address, top.lexical_rank, top.relaxed) == (expected, 1, False)


def test_a_strict_query_matching_nothing_relaxes_once_and_flags_the_hits(index: HybridIndex) -> None:
    lexical = index.lexical("momentum turnover", limit=10)
    assert lexical and all(h.relaxed for h in lexical)
    assert {h.address for h in lexical} >= {"zk:research:20260702-1100-finding", "zk:research:20260701-0900-finding"}
    fused = index.search("momentum turnover", limit=10)
    assert all(h.relaxed == (h.lexical_rank is not None) for h in fused)


def test_a_strict_match_is_not_flagged_relaxed(index: HybridIndex) -> None:
    hits = index.lexical("momentum crashes", limit=10)
    assert [h.address for h in hits] == ["zk:research:20260702-1100-finding"]
    assert not hits[0].relaxed


def test_stopwords_do_not_have_to_match(index: HybridIndex) -> None:
    hits = index.lexical("what is the market impact of large orders", limit=3)
    assert hits[0].address == "zk:research:20260703-1400-concept" and not hits[0].relaxed


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced quote',
        'costs" OR "x',
        "momentum*",
        "*",
        "NEAR(costs momentum",
        "NEAR(",
        "-costs",
        "costs -momentum",
        "costs\x00momentum",
        "\x00",
        "AND OR NOT",
        "title:costs",
        "{ident title}: costs",
        "^costs",
        "costs + momentum ( )",
        "\ud800 lone surrogate",
        "",
        "   ",
        "costs " * 2000,
        "x" * 10_000,
    ],
    ids=lambda q: repr(q[:24]),
)
def test_hostile_queries_never_raise(index: HybridIndex, query: str) -> None:
    for channels in (("lexical",), ("semantic",), ("lexical", "semantic")):
        hits = index.search(query, limit=5, channels=channels)
        assert isinstance(hits, list)


def test_family_project_and_type_filters_apply_inside_both_channels(index: HybridIndex) -> None:
    for channels in (("lexical",), ("semantic",)):
        memory = index.search("costs", limit=20, families={"memory"}, channels=channels)
        assert memory and all(h.family == "memory" for h in memory)
        methods = index.search("sharpe ratio overfitting", limit=20, projects=["methods"], channels=channels)
        assert methods and all(h.family != "zk" or h.project == "methods" for h in methods)
        claims = index.search("returns", limit=20, types={"claim"}, channels=channels)
        assert claims and all(h.type == "claim" for h in claims)


def test_an_empty_project_list_keeps_memory_and_drops_every_zk_doc(index: HybridIndex) -> None:
    hits = index.search("momentum costs returns", limit=20, projects=[])
    assert hits and all(h.family == "memory" for h in hits)


def test_a_filter_nothing_passes_returns_nothing(index: HybridIndex) -> None:
    assert index.search("costs", limit=5, families={"code"}) == []


def test_the_fusion_constant_a_caller_passes_is_the_one_the_scores_use(index: HybridIndex) -> None:
    for k in (5, 60):
        for hit in index.search("backtest costs sharpe", limit=5, fusion_k=k):
            ranks = [r for r in (hit.lexical_rank, hit.semantic_rank) if r is not None]
            assert hit.score == pytest.approx(sum(1 / (k + r) for r in sorted(ranks)))


def test_the_same_query_ranks_the_same_way_every_time(index: HybridIndex) -> None:
    first = index.search("backtest costs sharpe", limit=15)
    assert index.search("backtest costs sharpe", limit=15) == first


def test_similar_finds_neighbours_from_stored_vectors(index: HybridIndex) -> None:
    neighbours = index.similar("zk:research:20260702-1100-finding", limit=3)
    assert neighbours and neighbours[0].address == "zk:research:20260701-0900-finding"
    assert all(h.address != "zk:research:20260702-1100-finding" for h in neighbours)


def test_an_unknown_channel_is_a_value_error(index: HybridIndex) -> None:
    with pytest.raises(ValueError, match="channel"):
        index.search("costs", channels=("keyword",))  # type: ignore[arg-type]
