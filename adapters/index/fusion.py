"""Reciprocal Rank Fusion of the keyword and meaning channels.

RRF adds ``1 / (k + rank)`` over the channels that ranked a doc. It needs no
score calibration (bm25 is unbounded, cosine is not) and a doc that both
channels like rises above one only a single channel likes. The fused score is
an ordering device only: it is never evidence that the evidence covers a
question. Ties are broken by address so the order is deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from adapters.index.documents import ChannelHit

RRF_K = 60
"""The classic constant: navigate's relevance floor (``substrate.RELEVANCE_FLOOR``) is calibrated on it."""
SEARCH_RRF_K = 5
"""The constant the search action fuses with: a small k lets a document one channel ranks first stay above
one both channels rank middling. Measured with ``python -m dev.synapse_bench quality`` (k = 3 to 8 all
raised the demo's recall@5 and MRR@10 and the synthetic set's recall@1 and MRR@10, none lowered a figure;
5 is the middle of that plateau; k = 1 or 2 lowered the demo's recall@10)."""


@dataclass(frozen=True, slots=True)
class Fused:
    """One doc after fusion, with what each channel said about it (None where it was absent)."""

    address: str
    score: float
    lexical: ChannelHit | None
    semantic: ChannelHit | None


def rrf(channels: Mapping[str, Sequence[ChannelHit]], k: int = RRF_K) -> list[Fused]:
    """Fuse ranked lists (keys ``lexical`` / ``semantic``) into one list, best first."""
    ranks: dict[str, list[int]] = {}
    by_channel: dict[str, dict[str, ChannelHit]] = {}
    for name, hits in channels.items():
        seen = by_channel.setdefault(name, {})
        for hit in hits:
            if hit.address in seen:
                continue
            seen[hit.address] = hit
            ranks.setdefault(hit.address, []).append(hit.rank)
    # Summing in rank order makes (1, 3) and (3, 1) bit-identical, so they tie and the address decides.
    scores = {a: sum(1.0 / (k + r) for r in sorted(rs)) for a, rs in ranks.items()}
    lexical = by_channel.get("lexical", {})
    semantic = by_channel.get("semantic", {})
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [Fused(a, s, lexical.get(a), semantic.get(a)) for a, s in ordered]
