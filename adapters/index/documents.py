"""The values the index takes in and hands back.

An :class:`IndexDoc` is the flattened, searchable view of a node: the index
never sees tethers or edges, only what it ranks and filters on. A :class:`Hit`
is one fused result. Its ``score`` is a Reciprocal Rank Fusion score: it orders
hits and says nothing about whether the evidence covers a question, so no
caller may treat it (or ``similarity``) as evidence of coverage.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from adapters.base import Family, Node

Channel = Literal["lexical", "semantic"]
CHANNELS: tuple[Channel, ...] = ("lexical", "semantic")

EMBED_CHARS = 2000
"""MiniLM reads at most 256 word pieces (~1000-1300 characters); embedding more only costs tokenizer time."""


@dataclass(frozen=True, slots=True)
class IndexDoc:
    """One searchable node: ``project`` is the zk project (``alias.project`` when federated), else None."""

    address: str
    family: Family
    project: str | None
    type: str
    title: str
    text: str

    @classmethod
    def from_node(cls, node: Node) -> IndexDoc:
        """Flatten a node; tags join the text because users search by them."""
        project = node.address.split(":", 2)[1] if node.family == "zk" and node.address.count(":") >= 2 else None
        text = node.body
        tags = node.meta.get("tags") if node.meta else None
        if isinstance(tags, list | tuple) and tags:
            text = f"{text}\n\ntags: {' '.join(str(t) for t in tags)}"
        return cls(node.address, node.family, project, node.type, node.title, text)

    def embed_text(self) -> str:
        """The exact text the semantic channel embeds (title first: it is the densest summary)."""
        return f"{self.title}\n{self.text}"[:EMBED_CHARS]

    def vector_key(self, model_id: str) -> str:
        """Content key of this doc's vector: unchanged text under the same model is never re-embedded."""
        return text_vector_key(model_id, self.embed_text())

    def row_hash(self, model_id: str) -> str:
        """Hash of every stored field, so a retitled or re-typed doc is rewritten even if its vector is reused.

        It covers everything :meth:`vector_key` depends on (model id, text, the embedding cut), so an unchanged
        row hash proves the stored vector key is still current and a warm sync need not recompute it.
        """
        return _digest(
            model_id, str(EMBED_CHARS), self.address, self.family, self.project or "", self.type, self.title, self.text
        )


def text_vector_key(model_id: str, embedded_text: str) -> str:
    """The content key of ``model_id``'s vector of ``embedded_text`` (what :meth:`IndexDoc.vector_key` uses)."""
    return _digest(model_id, embedded_text)


def _digest(*parts: str) -> str:
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


@dataclass(frozen=True, slots=True)
class ChannelHit:
    """One channel's hit: 1-based ``rank``; ``score`` is bm25 (lower is better) or cosine (higher is better)."""

    address: str
    rank: int
    score: float
    relaxed: bool = False
    snippet: str | None = None


@dataclass(frozen=True, slots=True)
class Hit:
    """A fused result.

    ``score`` is the RRF score (sum of 1/(k + rank) over channels): ordering only,
    never evidence of coverage. ``lexical_rank`` / ``semantic_rank`` are 1-based and
    None when the hit is absent from that channel; ``relaxed`` marks a lexical match
    found only by the OR fallback; ``similarity`` is the cosine of the query and the
    doc when the semantic channel ranked it.
    """

    address: str
    score: float
    lexical_rank: int | None
    semantic_rank: int | None
    relaxed: bool
    family: str
    type: str
    project: str | None
    title: str
    snippet: str
    similarity: float | None = None


@dataclass(frozen=True, slots=True)
class SyncStats:
    """What a sync changed. ``reembedded + reused == len(docs)`` (after de-duplicating addresses).

    ``generation`` and ``encoder`` say where the sync ended: the store's generation at which it was seen to
    hold exactly the synced docs, embedded by that encoder. While the generation has not moved, nothing has
    been committed since, so a process holding the same docs may skip the diff (:meth:`HybridIndex.resume`).
    """

    added: int = 0
    updated: int = 0
    removed: int = 0
    reembedded: int = 0
    reused: int = 0
    generation: int | None = None
    encoder: str | None = None

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)
