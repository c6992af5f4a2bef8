"""Whether a record is still current: supersession read from the node, never from the model.

A decision that was superseded, deprecated, reverted or rejected is still a true
record of what was once decided, so its verified status stands; but an answer
that cites it must say so, the way an outdated pin must. The facts come from the
adapters: the record's own status word (an ADR's ``meta.adr_status``, a memdsl
declaration's ``mem_status``, a memory entry's ``status``) and ``superseded-by``
edges, which the adapters mirror from the superseding record's ``supersedes``.
An ADR also carries the canonical state of its words (``meta.adr_state``:
``declined`` is rejected, ``rolled back`` is reverted), which decides whether
it is current; the disclosure then shows the record's own words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from adapters.base import Node

NOT_CURRENT: frozenset[str] = frozenset(
    {"superseded", "partly superseded", "deprecated", "reverted", "rejected", "abandoned", "retracted", "obsolete"}
)
"""Status words (lower case) that mark a record as no longer the current one."""

SUPERSEDED_BY = "superseded-by"
_STATUS_KEYS = ("adr_status", "mem_status", "status")  # most specific first: an ADR's own word over its mapping


@dataclass(frozen=True, slots=True)
class Supersession:
    """Why a record is not current: its status word and the records that replace it (addresses, sorted)."""

    word: str
    by: tuple[str, ...] = ()


def supersession_of(node: Node) -> Supersession | None:
    """The node's supersession, or None for a current record.

    A ``superseded-by`` edge alone is enough (another record says it replaces this one); the word is then the
    record's own non-current status word when it has one, else ``superseded``.
    """
    by = tuple(sorted({edge.dst for edge in node.edges if edge.rel == SUPERSEDED_BY and edge.dst != node.address}))
    word = _status_word(node) if node.family == "memory" else None
    if word is None and not by:
        return None
    return Supersession(word or "superseded", by)


def _status_word(node: Node) -> str | None:
    state = node.meta.get("adr_state") if node.meta else None
    if isinstance(state, str) and state in NOT_CURRENT:  # an ADR's canonical state decides; its own words are shown
        own = node.meta.get("adr_status")
        return " ".join(own.lower().split()) if isinstance(own, str) and own.strip() else state
    for key in _STATUS_KEYS:
        value = node.meta.get(key) if node.meta else None
        if isinstance(value, str) and " ".join(value.lower().split()) in NOT_CURRENT:
            return " ".join(value.lower().split())
    return None


def disclosure(address: str, supersession: Supersession) -> str:
    """The canonical sentence an answer citing ``address`` must carry, e.g.
    ``mem:adr:0002-use-mysql is superseded by mem:adr:0005-use-postgres (status: superseded)``."""
    if supersession.by:
        verb = "is partly superseded by" if supersession.word == "partly superseded" else "is superseded by"
        return f"{address} {verb} {', '.join(supersession.by)} (status: {supersession.word})"
    return f"{address} is not current (status: {supersession.word})"


def current_first(addresses: Sequence[str], superseded_by: Callable[[str], Iterable[str]]) -> list[str]:
    """``addresses`` re-ordered so that every record listed with what it supersedes comes right before it.

    Only the order changes, never the membership: a superseding record found lower is lifted to the place of
    the highest record it replaces (a chain C → B → A reads C, B, A), and everything else keeps its rank.
    """
    present = set(addresses)
    placed: list[str] = []
    done: set[str] = set()

    def place(address: str, visiting: frozenset[str]) -> None:
        if address in done or address in visiting:
            return
        for newer in superseded_by(address):
            if newer in present:
                place(newer, visiting | {address})
        if address not in done:
            done.add(address)
            placed.append(address)

    for address in addresses:
        place(address, frozenset())
    return placed


__all__ = ["NOT_CURRENT", "SUPERSEDED_BY", "Supersession", "current_first", "disclosure", "supersession_of"]
