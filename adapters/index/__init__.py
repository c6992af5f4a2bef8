"""Hybrid retrieval shared by every action: SQLite FTS5 keywords + MiniLM meaning, fused by RRF.

Public API::

    from adapters.index import Embedder, HybridIndex, IndexDoc

    embedder = Embedder()                       # the int8 ONNX MiniLM; lazy: nothing loads until a text is embedded
    embedder = encoder_for(config_value, root)  # what ``embedding_model`` names (EncoderSpecError if nothing)
    index = HybridIndex.open(workspace / ".angelo", embedder)
    stats = index.sync(IndexDoc.from_node(n) for n in nodes)   # SyncStats(added, updated, removed, reembedded, reused)
    hits = index.search("why did net returns drop", limit=10, families={"memory", "zk"}, projects=["research"])
    index.lexical(query, limit) / index.semantic(query, limit) / index.similar(address, limit)  # one channel each
    index.close()

- ``IndexDoc(address, family, project, type, title, text)``; ``IndexDoc.from_node(node)``.
- ``Hit(address, score, lexical_rank, semantic_rank, relaxed, family, type, project, title, snippet, similarity)``.
  ``score`` is the RRF score (k = 60): it orders hits and is never evidence that a question is covered.
- ``ChannelHit(address, rank, score, relaxed, snippet)`` from one channel: bm25 (lower is better) or cosine.
- Filters (``families``, ``projects``, ``types``) apply inside both channels; ``projects`` narrows zk docs only.
- The cache (``<cache_dir>/index-<name>.sqlite3``) is derived and disposable: content-hash keyed, safe for
  concurrent processes, rebuilt when missing or corrupt; an unusable cache directory means an in-memory index,
  and a symlinked cache folder, file, sibling or lock raises ``adapters.cache_files.CacheLinkRefused``.

Importing this package never imports torch, sentence-transformers or onnxruntime; only embedding does, and
the default encoder never imports torch at all. ``embedder.model_id`` is the encoder's identity: the index
records it with every vector and re-embeds when it changes, so two encoders' vectors are never mixed.
"""

from adapters.index.documents import ChannelHit, Hit, IndexDoc, SyncStats
from adapters.index.embedder import (
    DEFAULT_MODEL_ID,
    Embedder,
    EncoderSpecError,
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    TextEncoder,
    encoder_for,
)
from adapters.index.fusion import RRF_K
from adapters.index.hybrid import HybridIndex

__all__ = [
    "DEFAULT_MODEL_ID",
    "RRF_K",
    "ChannelHit",
    "Embedder",
    "EncoderSpecError",
    "Hit",
    "HybridIndex",
    "IndexDoc",
    "OnnxEmbedder",
    "SentenceTransformerEmbedder",
    "SyncStats",
    "TextEncoder",
    "encoder_for",
]
