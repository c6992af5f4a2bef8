"""The encoders: the torch-free ONNX default, the sentence-transformers reference, and how a config names one."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from adapters.index import (
    Embedder,
    EncoderSpecError,
    HybridIndex,
    IndexDoc,
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    encoder_for,
)
from adapters.index.onnx_encoder import ONNX_MODEL_ID, TOKENIZER_JSON, packaged_onnx_model
from adapters.index.torch_encoder import TORCH_MODEL_ID, torch_extra_missing
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.stores import Stores

REPO = Path(__file__).resolve().parents[2]


def test_the_default_encoder_embeds_without_importing_torch() -> None:
    code = (
        "import sys, json; from adapters.index import Embedder; v = Embedder().encode(['transaction costs', 'x']);"
        " heavy = sorted(m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules);"
        " print(json.dumps([list(v.shape), [round(float(n), 5) for n in (v * v).sum(1)], heavy]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    shape, norms, heavy = json.loads(done.stdout)
    assert shape == [2, 384] and norms == [1.0, 1.0] and heavy == []


def test_the_default_encoder_is_onnx_with_its_own_identity(embedder: Embedder) -> None:
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.model_id == ONNX_MODEL_ID != TORCH_MODEL_ID
    assert embedder.dimension == 384


def test_bulk_encoding_batched_by_length_equals_one_at_a_time(embedder: Embedder) -> None:
    """Length-sorted, multi-threaded batches must put every vector back in its text's row."""
    texts = [("word " * n).strip() + f" {n}" for n in (3, 200, 1, 57, 9, 120, 2, 33, 4, 80, 15, 6)] * 4
    bulk = OnnxEmbedder(batch_size=5, bulk_threads=2).encode(texts)
    single = np.vstack([embedder.encode([t]) for t in texts])
    assert bulk.shape == (48, 384)
    assert float(np.abs(bulk - single).max()) < 1e-4


def test_a_long_text_is_truncated_at_256_word_pieces(embedder: Embedder) -> None:
    """Words past the model's limit cannot change the vector (sentence-transformers truncates there too)."""
    head = " ".join(f"alpha{i}" for i in range(300))
    a, b = embedder.encode([head + " momentum returns", head + " a completely different ending about revenue"])
    assert float(a @ b) > 0.99999


def test_similar_sentences_are_closer_than_unrelated_ones(embedder: Embedder) -> None:
    cat, feline, revenue = embedder.encode(
        ["The cat sits on the mat", "A feline rests on a rug", "Quarterly revenue grew by eight percent"]
    )
    assert float(cat @ feline) > 0.45 > float(cat @ revenue)


def _demo_texts(tmp: Path) -> list[str]:
    root = make_demo(tmp / "demo")
    stores = Stores.load(load_workspace(root), ("memory", "zk"))
    return [IndexDoc.from_node(n).embed_text() for n in stores.nodes.values()]


def test_onnx_and_sentence_transformers_agree_on_the_demo_texts(embedder: Embedder, tmp_path: Path) -> None:
    missing = torch_extra_missing()
    if missing is not None:
        pytest.skip(f"the torch extra is not installed, so the reference encoder cannot run: {missing}")
    texts = _demo_texts(tmp_path)
    reference = SentenceTransformerEmbedder()
    a, b = embedder.encode(texts), reference.encode(texts)
    cosines = (a * b).sum(axis=1)
    worst = int(np.argmin(cosines))
    assert len(texts) >= 30
    assert float(cosines.min()) >= 0.999, f"cosine {cosines[worst]:.5f} on {texts[worst][:80]!r}"
    # The same neighbours, too: each text's nearest other text is the same under both encoders.
    na, nb = a @ a.T, b @ b.T
    np.fill_diagonal(na, -1)
    np.fill_diagonal(nb, -1)
    assert float(np.mean(na.argmax(1) == nb.argmax(1))) >= 0.9


def _docs() -> list[IndexDoc]:
    return [
        IndexDoc("mem:tree:a", "memory", None, "decision", "Costs", "Transaction costs rose to 8 bps."),
        IndexDoc("mem:tree:b", "memory", None, "note", "Cats", "The cat sits on the mat."),
        IndexDoc("zk:research:c", "zk", "research", "claim", "Momentum", "Momentum returns persist for months."),
    ]


def test_switching_encoders_reembeds_every_doc_and_never_mixes_vectors(embedder: Embedder, tmp_path: Path) -> None:
    other = OnnxEmbedder(max_tokens=128)  # the same network, another identity: its vectors must not be reused
    assert other.model_id != embedder.model_id
    with HybridIndex.open(tmp_path, embedder) as index:
        first = index.sync(_docs())
        assert (first.reembedded, index.encoder_id) == (3, embedder.model_id)
    with HybridIndex.open(tmp_path, other) as index:
        assert index.semantic("cat on a mat", 3) == []  # nothing of this encoder's yet: no foreign vectors
        second = index.sync(_docs())
        assert (second.reembedded, second.reused, index.encoder_id) == (3, 0, other.model_id)
        assert index.semantic("cat on a mat", 1)[0].address == "mem:tree:b"
        assert index.path is not None
    conn = __import__("sqlite3").connect(index.path)
    try:
        owners = {row[0] for row in conn.execute("SELECT DISTINCT model_id FROM vectors")}
    finally:
        conn.close()
    assert owners == {other.model_id}
    with HybridIndex.open(tmp_path, embedder) as index:
        assert index.sync(_docs()).reembedded == 3  # and back again: re-embedded, not mixed


def test_an_onnx_model_folder_runs_under_its_own_identity(embedder: Embedder, tmp_path: Path) -> None:
    folder = tmp_path / "models" / "minilm"
    folder.mkdir(parents=True)
    shutil.copy(packaged_onnx_model(), folder / "model.onnx")
    shutil.copy(TOKENIZER_JSON, folder / "tokenizer.json")
    custom = encoder_for("models/minilm", tmp_path)
    assert isinstance(custom, OnnxEmbedder) and custom.model_id != embedder.model_id
    assert float(custom.encode(["momentum"])[0] @ embedder.encode(["momentum"])[0]) > 0.99999


@pytest.mark.parametrize(
    ("layout", "reason"),
    [
        ({}, "not a model folder"),
        ({"model.onnx": "x"}, "no tokenizer.json"),
        ({"model.onnx": "x", "tokenizer.json": "{not json"}, "not readable JSON"),
        ({"modules.json": "[]"}, "without weights"),
        ({"notes.txt": "hello"}, "not a model folder"),
    ],
)
def test_a_folder_that_holds_no_model_is_refused_with_the_reason(
    tmp_path: Path, layout: dict[str, str], reason: str
) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    for name, text in layout.items():
        (folder / name).write_text(text, encoding="utf-8")
    with pytest.raises(EncoderSpecError, match=reason) as caught:
        encoder_for("m", tmp_path)
    assert str(tmp_path) not in str(caught.value)


def test_a_name_that_is_neither_an_encoder_nor_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EncoderSpecError, match="neither an encoder name"):
        encoder_for("all-MiniLM-L12-v2", tmp_path)


def test_the_torch_encoder_without_the_extra_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    with pytest.raises(EncoderSpecError, match=r"torch==2\.13\.0 first, then -e '\.\[torch\]'"):
        encoder_for("minilm-torch", Path("."))


def test_named_encoders_resolve_without_loading_anything(tmp_path: Path) -> None:
    default = encoder_for(None, tmp_path)
    assert isinstance(default, OnnxEmbedder) and not default.is_loaded
    assert encoder_for("minilm-onnx", tmp_path).model_id == ONNX_MODEL_ID
    if torch_extra_missing() is None:
        reference = encoder_for("minilm-torch", tmp_path)
        assert isinstance(reference, SentenceTransformerEmbedder) and not reference.is_loaded
        assert reference.model_id == TORCH_MODEL_ID


def test_bulk_batches_group_similar_lengths_within_the_text_and_token_caps() -> None:
    encoder = OnnxEmbedder(batch_size=4, batch_tokens=40)
    lengths = [3, 30, 5, 12, 12, 2, 9, 30, 7, 1, 11]
    batches = encoder._batches(lengths)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for batch in batches:
        widths = [lengths[i] for i in batch]
        assert len(batch) <= 4 and (len(batch) == 1 or len(batch) * max(widths) <= 40)
        assert widths == sorted(widths, reverse=True)
    assert [lengths[b[0]] for b in batches] == sorted((lengths[b[0]] for b in batches), reverse=True)
