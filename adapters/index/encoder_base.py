"""What every sentence encoder of the index shares: the protocol, lazy loading, timed release.

An encoder satisfies KGLite's ``EmbeddingModel`` protocol (``dimension``,
``model_id``, ``embed``, optional ``load`` / ``unload``) so a KGLite graph view
stays possible, and adds :meth:`LazyEncoder.encode` returning an L2-normalised
float32 matrix for our own numpy search.

``model_id`` is the encoder's identity, not only the model's: the int8 ONNX
export and the sentence-transformers reference produce vectors that agree to
a cosine of about 0.999 but are not equal, so each has its own id. The id is
part of every vector's cache key and every stored vector row, which is how the
index re-embeds on a switch and never mixes the vectors of two encoders.

Loading is lazy (nothing heavy is imported until the first text is embedded)
and guarded by a lock, so a server can share one encoder between threads.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["DEFAULT_DIMENSION", "DEFAULT_MODEL_ID", "MAX_TOKENS", "QUERY_BATCH", "LazyEncoder", "TextEncoder"]

DEFAULT_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
"""The model every packaged encoder runs (the sentence-transformers reference keeps this id as its own)."""
DEFAULT_DIMENSION = 384
MAX_TOKENS = 256
"""MiniLM's own input limit in word pieces; longer texts are truncated, as sentence-transformers does."""
QUERY_BATCH = 8
"""Batches up to this size are treated as queries: encoded on one thread, in one batch."""


@runtime_checkable
class TextEncoder(Protocol):
    """What the index needs from an embedder: a stable identity (part of every cache key) and unit vectors."""

    model_id: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class LazyEncoder:
    """Lazy load, timed release and input cleaning; subclasses say how to load and how to run a batch."""

    model_id: str

    def __init__(self, *, dimension: int | None, batch_size: int, bulk_threads: int) -> None:
        self._dimension = dimension
        self.batch_size = max(1, batch_size)
        self.bulk_threads = max(1, bulk_threads)
        self._model: Any = None
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None

    @property
    def dimension(self) -> int:
        """Vector width; a configured model of unknown width is loaded once to find out."""
        if self._dimension is None:
            self._dimension = int(self.encode(["dimension probe"]).shape[1])
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
        # Tokenizers reject lone surrogates (e.g. a broken paste); replace them rather than fail the query.
        items = [str(t).encode("utf-8", "replace").decode("utf-8") for t in texts]
        if not items:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self.load()
        vectors = np.ascontiguousarray(self._encode_loaded(model, items), dtype=np.float32)
        if self._dimension is None:
            self._dimension = int(vectors.shape[1])
        return vectors

    def embed(self, texts: list[str]) -> list[list[float]]:
        """KGLite's protocol method: plain lists of floats."""
        result: list[list[float]] = self.encode(texts).tolist()
        return result

    def _load_model(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _encode_loaded(self, model: Any, items: list[str]) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _release_if_idle(self) -> None:
        with self._lock:
            self._timer = None
            self._model = None

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero), as sentence-transformers' Normalize does."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)
