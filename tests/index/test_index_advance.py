"""An index advanced from an earlier sync writes only what differs, and ends exactly where a full sync would.

:meth:`HybridIndex.advance` trusts that the store still holds the earlier docs while the generation has not
moved; each test below pins the result against a full sync of the same docs, and the hostile twins pin the
cases where that trust would be wrong (another writer first, another encoder) and must fall back.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from adapters.index import HybridIndex, IndexDoc, SyncStats, semantic
from adapters.index.semantic import VectorMatrix
from tests.support.index_corpus import CountingEncoder, HashEncoder, generated_docs


def _synced(cache: Path, docs: list[IndexDoc]) -> tuple[HybridIndex, object | None]:
    index = HybridIndex.open(cache, HashEncoder())
    index.sync(docs)
    return index, index.warm_state()


def _earlier(cache: Path, docs: list[IndexDoc]) -> tuple[SyncStats | None, object | None]:
    """What a closed earlier handle leaves for the next: its last sync and its read state."""
    index, state = _synced(cache, docs)
    index.close()
    return index.last_sync, state


def _rows(index: HybridIndex) -> dict[str, tuple[str, str]]:
    return index.store.snapshot(index.embedder.model_id).rows


def _edited(docs: list[IndexDoc]) -> list[IndexDoc]:
    """One doc retitled, one removed, one added (sorting between existing addresses), the rest the same objects."""
    out = [replace(docs[3], text=docs[3].text + " retuned"), *docs[:3], *docs[4:-1]]
    out.append(IndexDoc("mem:tree:gen-00004a", "memory", None, "note", "A new note", "uniqnew carry value"))
    return out


def _same_matrix(patched: VectorMatrix, loaded: VectorMatrix) -> None:
    assert patched.addresses == loaded.addresses
    assert np.array_equal(patched.vectors, loaded.vectors)
    for families in (["memory"], ["zk"]):
        got, want = patched.mask(families), loaded.mask(families)
        assert got is not None and want is not None and np.array_equal(got, want)


def test_an_advance_after_one_edit_embeds_only_the_edited_texts_and_equals_a_full_sync(tmp_path: Path) -> None:
    docs = generated_docs(40)
    synced, state = _earlier(tmp_path / "a", docs)
    encoder = CountingEncoder(HashEncoder())
    index = HybridIndex.open(tmp_path / "a", encoder)
    stats = index.advance(_edited(docs), docs, synced, state)
    assert len(encoder.texts) == 2 and (stats.added, stats.updated, stats.removed) == (1, 1, 1)
    full = HybridIndex.open(tmp_path / "b", HashEncoder())
    full.sync(_edited(docs))
    assert _rows(index) == _rows(full)
    assert stats.reembedded + stats.reused == len(_edited(docs))
    patched = index.warm_state()
    assert isinstance(patched, tuple) and patched[1] is not state[1]  # type: ignore[index]
    _same_matrix(patched[1], full.store.load_matrix(full.embedder.model_id)[1])  # type: ignore[union-attr]
    assert [h.address for h in index.search("uniqnew", 3)] == [h.address for h in full.search("uniqnew", 3)]
    index.close()
    full.close()


def test_an_advance_after_another_writer_committed_diffs_everything_and_is_still_exact(tmp_path: Path) -> None:
    docs = generated_docs(30)
    synced, state = _earlier(tmp_path / "a", docs)
    other = HybridIndex.open(tmp_path / "a", HashEncoder())
    other.sync(generated_docs(30, salt="from another process"))  # the store no longer holds ``docs``
    other.close()
    index = HybridIndex.open(tmp_path / "a", HashEncoder())
    index.advance(_edited(docs), docs, synced, state)
    full = HybridIndex.open(tmp_path / "b", HashEncoder())
    full.sync(_edited(docs))
    assert _rows(index) == _rows(full)
    patched = index.warm_state()
    _same_matrix(patched[1], full.store.load_matrix(full.embedder.model_id)[1])  # type: ignore[index]
    index.close()
    full.close()


def test_an_advance_under_another_encoder_syncs_everything_with_it(tmp_path: Path) -> None:
    from tests.support.index_corpus import WideHashEncoder

    docs = generated_docs(20)
    synced, state = _earlier(tmp_path / "a", docs)
    encoder = CountingEncoder(WideHashEncoder())
    index = HybridIndex.open(tmp_path / "a", encoder)
    index.advance(_edited(docs), docs, synced, state)
    assert len(encoder.texts) == len(_edited(docs))  # nothing of the other model's is reused
    matrix = index.warm_state()[1]  # type: ignore[index]
    assert matrix.dimension == WideHashEncoder.dimension and len(matrix) == len(_edited(docs))
    index.close()


def test_an_advance_with_nothing_changed_writes_nothing(tmp_path: Path) -> None:
    docs = generated_docs(10)
    synced, state = _earlier(tmp_path / "a", docs)
    index = HybridIndex.open(tmp_path / "a", HashEncoder())
    generation = index.store.generation()
    stats = index.advance(list(docs), docs, synced, state)
    assert stats.reused == len(docs) and not stats.changed and index.store.generation() == generation
    index.close()


def test_a_patched_matrix_equals_a_fresh_one_wherever_rows_land() -> None:
    rng = np.random.default_rng(7)
    addresses = [f"mem:tree:{c}" for c in "bdfhjl"]
    vectors = rng.normal(size=(6, 4)).astype(np.float32)
    families = ["memory", "zk", "memory", "zk", "memory", "zk"]
    projects = [None, "p", None, "q", None, "p"]
    types = ["note"] * 6
    matrix = VectorMatrix(addresses, vectors, families, projects, types)
    new = {a: rng.normal(size=4).astype(np.float32) for a in ("mem:tree:a", "mem:tree:c", "mem:tree:d", "mem:tree:m")}
    rows = [(a, v, "zk", "r", "claim") for a, v in new.items()]
    patched = matrix.patched(["mem:tree:h", "mem:tree:l"], rows)
    kept = {a: (v, f, p, t) for a, v, f, p, t in zip(addresses, vectors, families, projects, types, strict=True)}
    for gone in ("mem:tree:h", "mem:tree:l", "mem:tree:d"):
        kept.pop(gone)
    kept.update({a: (v, "zk", "r", "claim") for a, v in new.items()})
    order = sorted(kept)
    fresh = VectorMatrix(
        order,
        np.stack([kept[a][0] for a in order]),
        [kept[a][1] for a in order],
        [kept[a][2] for a in order],
        [kept[a][3] for a in order],
    )
    _same_matrix(patched, fresh)
    for projects_wanted in (["r"], ["p"], []):
        got, want = patched.mask(projects=projects_wanted), fresh.mask(projects=projects_wanted)
        assert got is not None and want is not None and np.array_equal(got, want)


def test_a_matrix_patched_in_place_for_edited_rows_equals_a_fresh_one_and_leaves_the_earlier_intact() -> None:
    rng = np.random.default_rng(11)
    addresses = [f"mem:tree:{c}" for c in "bdfh"]
    vectors = rng.normal(size=(4, 4)).astype(np.float32)
    families, projects, types = ["memory", "zk", "memory", "zk"], [None, "p", None, "q"], ["note"] * 4
    matrix = VectorMatrix(addresses, vectors, families, projects, types)
    before = matrix.vectors.copy()
    edited = rng.normal(size=4).astype(np.float32)
    patched = matrix.patched([], [("mem:tree:d", edited, "zk", "r", "claim")])  # an edit: no row moves
    fresh = VectorMatrix(
        addresses,
        np.stack([vectors[0], edited, vectors[2], vectors[3]]),
        ["memory", "zk", "memory", "zk"],
        [None, "r", None, "q"],
        ["note", "claim", "note", "note"],
    )
    _same_matrix(patched, fresh)
    for projects_wanted in (["r"], ["p"], []):
        got, want = patched.mask(projects=projects_wanted), fresh.mask(projects=projects_wanted)
        assert got is not None and want is not None and np.array_equal(got, want)
    assert np.array_equal(matrix.vectors, before) and matrix.mask(projects=["p"]) is not None
    assert np.array_equal(matrix.mask(projects=["p"]), np.array([True, True, True, False]))  # type: ignore[arg-type]


@pytest.mark.parametrize("edits", [3, semantic.EDITS_HELD + 5])
def test_a_chain_of_edited_rows_searches_like_a_fresh_matrix_and_never_changes_an_earlier_one(edits: int) -> None:
    rng = np.random.default_rng(5)
    addresses = [f"mem:tree:{i:04d}" for i in range(40)]
    truth = rng.normal(size=(40, 8)).astype(np.float32)
    truth /= np.linalg.norm(truth, axis=1, keepdims=True)
    chain = [VectorMatrix(addresses, truth.copy(), ["memory"] * 40, [None] * 40, ["note"] * 40)]
    seen = [truth.copy()]  # what each matrix of the chain held when it was made
    for _ in range(edits):  # each edit rewrites one row of the matrix the last edit left
        row = int(rng.integers(40))
        truth[row] = rng.normal(size=8).astype(np.float32)
        truth[row] /= np.linalg.norm(truth[row])
        chain.append(chain[-1].patched([], [(addresses[row], truth[row].copy(), "memory", None, "note")]))
        seen.append(truth.copy())
    assert all(np.array_equal(matrix.vectors, held) for matrix, held in zip(chain, seen, strict=True))
    fresh, latest = VectorMatrix(addresses, truth, ["memory"] * 40, [None] * 40, ["note"] * 40), chain[-1]
    for query in rng.normal(size=(5, 8)).astype(np.float32):
        query /= np.linalg.norm(query)
        got, want = latest.top(query, 7), fresh.top(query, 7)
        assert [h.address for h in got] == [h.address for h in want]
        assert np.allclose([h.score for h in got], [h.score for h in want], atol=1e-6)
    row = latest.row_of(addresses[3])
    assert row is not None and np.array_equal(latest.vector(row), truth[3])


def test_a_rewritten_doc_drops_its_old_vector_but_not_one_another_doc_still_uses(tmp_path: Path) -> None:
    shared = IndexDoc("mem:tree:b", "memory", None, "note", "Same", "same text")
    docs = [IndexDoc("mem:tree:a", "memory", None, "note", "Same", "same text"), shared]
    index, _ = _synced(tmp_path / "a", docs)
    model = index.embedder.model_id
    old_key = docs[0].vector_key(model)
    assert index.store.snapshot(model).vector_keys == {old_key}  # one text, one vector, two rows
    index.sync([replace(docs[0], text="new text"), shared])
    assert old_key in index.store.snapshot(model).vector_keys  # b still uses it
    index.sync([replace(docs[0], text="new text")])
    keys = index.store.snapshot(model).vector_keys
    assert old_key not in keys and keys == {replace(docs[0], text="new text").vector_key(model)}
    index.close()
