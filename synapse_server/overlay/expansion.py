"""1-hop connection expansion: search hits plus their typed neighbours across the overlay.

Search finds what the query's words and meaning reach; the overlay knows what
the project itself linked across stores. Expansion follows one overlay edge
from each hit so a practice hit brings the canon it applies or contradicts (and
the reverse), each marked ``expansion: true`` with the relation and the hit it
came from, so no reader mistakes a neighbour for a search result.

Order is a ranked list: each hit, then the neighbours it contributes that no
earlier entry holds (highest confidence first, then address). A neighbour
outside the project scope is not added; a hit's own order is never changed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from synapse_server.overlay.model import Link, Overlay, Relation

__all__ = ["Expansion", "expand_hits", "neighbours"]


class HasAddress(Protocol):
    @property
    def address(self) -> str: ...


H = TypeVar("H", bound=HasAddress)


class Expansion(BaseModel):
    """A neighbour reached over one overlay edge from a search hit; never a search result itself."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    address: str
    store: Literal["memory", "zk"]
    tier: Literal["practice", "canon"]
    title: str | None = None
    expansion: Literal[True] = True
    relation: Relation = Field(description="the overlay edge's relation, read practice -> canon")
    direction: Literal["to-canon", "to-practice"] = Field(
        description="to-canon: the hit is the practice end of the edge; to-practice: the hit is the canon end"
    )
    confidence: float
    via: str = Field(description="the address of the hit this neighbour was reached from")
    overlay: Literal["generic", "claim"]


def neighbours(overlay: Overlay, address: str) -> list[tuple[str, Link]]:
    """The other end of every edge touching ``address``: (neighbour, link), highest confidence first."""
    found = [(link.canon, link) for link in overlay.links if link.practice == address]
    found += [(link.practice, link) for link in overlay.links if link.canon == address]
    return sorted(found, key=lambda pair: (-pair[1].confidence, pair[0]))


def expand_hits(
    hits: Sequence[H],
    overlay: Overlay | None,
    *,
    projects: Collection[str] | None = None,
    titles: Mapping[str, str] | None = None,
    per_hit: int | None = None,
) -> list[H | Expansion]:
    """``hits`` with each hit's 1-hop overlay neighbours after it, marked as expansions.

    ``projects`` limits canon neighbours to those zk projects (None = no limit);
    ``titles`` names neighbours; ``per_hit`` caps the neighbours one hit adds.
    With no overlay the hits come back unchanged.
    """
    result: list[H | Expansion] = []
    seen = {hit.address for hit in hits}
    for hit in hits:
        result.append(hit)
        if overlay is None:
            continue
        added = 0
        for address, link in neighbours(overlay, hit.address):
            if per_hit is not None and added >= per_hit:
                break
            if address in seen or not _in_scope(address, projects):
                continue
            seen.add(address)
            added += 1
            result.append(_expansion(address, link, hit.address, overlay, titles))
    return result


def _expansion(address: str, link: Link, via: str, overlay: Overlay, titles: Mapping[str, str] | None) -> Expansion:
    practice = address == link.practice
    return Expansion(
        address=address,
        store="memory" if practice else "zk",
        tier="practice" if practice else "canon",
        title=(titles or {}).get(address),
        relation=link.relation,
        direction="to-practice" if practice else "to-canon",
        confidence=link.confidence,
        via=via,
        overlay=overlay.kind,
    )


def _in_scope(address: str, projects: Collection[str] | None) -> bool:
    if projects is None or not address.startswith("zk:"):
        return True
    return address.split(":", 2)[1] in projects
