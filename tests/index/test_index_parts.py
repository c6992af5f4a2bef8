"""The index's parts on their own: import cost, the embedder protocol, query sanitising, fusion and top-k ties."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from adapters.base import Node
from adapters.index import DEFAULT_MODEL_ID, ChannelHit, Embedder, IndexDoc, semantic
from adapters.index.fusion import RRF_K, SEARCH_RRF_K, rrf
from adapters.index.lexical import MAX_TERMS, query_terms
from adapters.index.semantic import VectorMatrix

REPO = Path(__file__).resolve().parents[2]


def test_importing_the_index_loads_neither_torch_nor_sentence_transformers() -> None:
    code = (
        "import sys, adapters.index; e = adapters.index.Embedder(); e.dimension;"
        " print(sorted({'torch', 'sentence_transformers', 'transformers'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"


def test_the_embedder_speaks_the_kglite_protocol(embedder: Embedder) -> None:
    assert embedder.model_id.startswith(DEFAULT_MODEL_ID) and embedder.dimension == 384
    rows = embedder.embed(["Higher costs reduce net returns.", "Momentum crashes after rebounds."])
    assert len(rows) == 2 and all(len(r) == 384 and isinstance(r[0], float) for r in rows)


def test_encode_returns_unit_float32_rows_and_meaning_shows_in_cosine(embedder: Embedder) -> None:
    vectors = embedder.encode(["The cat sits on the mat", "A feline rests on a rug", "Quarterly revenue rose 4%"])
    assert vectors.dtype == np.float32 and vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3
    assert embedder.encode([]).shape == (0, 384)


def test_an_unloaded_embedder_loads_lazily_on_first_use_and_unload_releases_it() -> None:
    model = Embedder()
    assert not model.is_loaded
    model.encode(["lazy"])
    assert model.is_loaded
    model.unload(cooldown=300.0)  # a timed release keeps the model until it has been idle that long
    assert model.is_loaded
    model.unload()
    assert not model.is_loaded


def test_a_configured_model_directory_gets_a_distinct_model_id(tmp_path: Path) -> None:
    model = Embedder(tmp_path / "my-model", dimension=384)
    assert model.model_id != Embedder().model_id and str(tmp_path / "my-model") in model.model_id
    assert not model.is_loaded


def test_query_terms_quote_every_chunk_and_drop_stopwords() -> None:
    assert query_terms('What is the "cost" NEAR(model) -x* AND \x00') == ['"""cost"""', '"NEAR(model)"', '"-x*"']
    assert query_terms("the and of") == []
    assert len(query_terms(" ".join(f"w{i}" for i in range(500)))) == MAX_TERMS


def test_doc_from_node_takes_the_zk_project_and_searchable_tags() -> None:
    node = Node(
        address="zk:lab.research:20260706-1832-claim",
        type="claim",
        title="Higher costs reduce net returns",
        body="Body.",
        family="zk",
        meta={"tags": ["costs", "backtest"]},
    )
    doc = IndexDoc.from_node(node)
    assert (doc.project, doc.type, doc.family) == ("lab.research", "claim", "zk")
    assert doc.text.endswith("tags: costs backtest")


def test_rrf_adds_reciprocal_ranks_and_breaks_ties_by_address() -> None:
    lexical = [ChannelHit("b", 1, -3.0), ChannelHit("a", 3, -1.0), ChannelHit("c", 2, -2.0)]
    semantic = [ChannelHit("a", 1, 0.9), ChannelHit("b", 3, 0.5), ChannelHit("d", 2, 0.7)]
    fused = rrf({"lexical": lexical, "semantic": semantic})
    assert [f.address for f in fused] == ["a", "b", "c", "d"]
    assert fused[0].score == pytest.approx(1 / (RRF_K + 1) + 1 / (RRF_K + 3))
    assert fused[0].score == fused[1].score
    assert fused[2].semantic is None and fused[3].lexical is None


def test_the_search_fusion_constant_lets_a_first_place_outrank_two_third_places() -> None:
    # "top" is first by keywords and sixth by meaning; "even" is third by both
    lexical = [ChannelHit("top", 1, -3.0), ChannelHit("x", 2, -2.0), ChannelHit("even", 3, -1.0)]
    semantic = [*(ChannelHit(f"s{r}", r, 0.9 - r / 100) for r in (1, 2, 4, 5)), ChannelHit("even", 3, 0.8)]
    semantic.append(ChannelHit("top", 6, 0.7))
    channels = {"lexical": lexical, "semantic": semantic}
    search_order = [f.address for f in rrf(channels, SEARCH_RRF_K)]
    navigate_order = [f.address for f in rrf(channels, RRF_K)]
    assert search_order.index("top") < search_order.index("even")
    assert navigate_order.index("even") < navigate_order.index("top"), "k = 60 prefers what both rank alike"


def test_top_k_breaks_similarity_ties_by_address_and_honours_the_mask() -> None:
    vectors = np.array([[1, 0], [1, 0], [0, 1], [1, 0]], dtype=np.float32)
    matrix = VectorMatrix(
        ["a", "b", "c", "d"], vectors, ["memory", "zk", "memory", "zk"], [None, "p", None, "q"], ["note"] * 4
    )
    query = np.array([1, 0], dtype=np.float32)
    assert [h.address for h in matrix.top(query, 2)] == ["a", "b"]
    assert [h.address for h in matrix.top(query, 10)] == ["a", "b", "d", "c"]
    assert [h.address for h in matrix.top(query, 2, matrix.mask(projects=["q"]))] == ["a", "d"]
    assert [h.address for h in matrix.top(query, 5, matrix.mask(families=["zk"], projects=["p"]))] == ["b"]


@pytest.mark.parametrize("cpus", [2, 3, 7])
def test_a_scan_split_across_cpus_scores_and_ranks_every_row_as_one_slice(
    cpus: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((1001, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors[[0, 333, 500, 667, 1000]] = vectors[250]  # ties that straddle every slice boundary
    addresses = [f"n{i:04d}" for i in range(len(vectors))]
    matrix = VectorMatrix(addresses, vectors, ["memory"] * 1001, [None] * 1001, ["note"] * 1001)
    query = vectors[250]
    whole = np.einsum("ij,j->i", vectors, query)
    one_slice = [(h.address, h.score) for h in matrix.top(query, 50)]

    monkeypatch.setattr(semantic, "SPLIT_ROWS", 64)
    monkeypatch.setattr(semantic, "_usable_cpus", lambda: cpus)
    assert np.array_equal(semantic.cosine_scores(vectors, query), whole), "no row is left unscored or scored twice"
    assert [(h.address, h.score) for h in matrix.top(query, 50)] == one_slice
    assert [h.address for h in matrix.top(query, 6)] == ["n0000", "n0250", "n0333", "n0500", "n0667", "n1000"]


def test_a_slice_that_fails_on_its_own_thread_fails_the_scan_instead_of_leaving_rows_unscored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    vectors = np.ones((1000, 4), dtype=np.float32) / 2
    monkeypatch.setattr(semantic, "SPLIT_ROWS", 64)
    monkeypatch.setattr(semantic, "_usable_cpus", lambda: 2)
    einsum = np.einsum
    caller = threading.get_ident()

    def failing_off_the_callers_thread(*args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() != caller:
            raise MemoryError("no room for this slice")
        return einsum(*args, **kwargs)

    monkeypatch.setattr(semantic.np, "einsum", failing_off_the_callers_thread)
    with pytest.raises(MemoryError, match="no room"):
        semantic.cosine_scores(vectors, vectors[0])
