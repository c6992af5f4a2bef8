"""What an ADR's status says: the words teams write, each mapped onto one canonical state and a memory status.

Real records state their status in many words: adr-tools writes ``Accepted``
and ``Superseded by [3. …](…)``; GOV.UK's records say ``Pending``, ``Approved``
and ``Partly superseded``; MADR 3 and 4 records say ``on hold``; Log4brains
writes ``draft``; others write ``✅ **Adopted**`` or ``Proposed. This ADR did not
reach consensus …``. Every known phrase maps onto one canonical state
(:data:`STATES`) and the state onto the memory vocabulary, while the record's
own words are kept: an answer citing a ``Pending`` record says ``pending``.

Reading is by phrase, not by first word: ``on hold`` is one phrase (never
``on``), ``partly superseded`` another (never ``partly``), and a link's text in
``Superseded by [DNS Infrastructure](0015-….md)`` is not part of the status.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from adapters.links import MARKDOWN_LINK

__all__ = ["MEMORY_STATUS", "PHRASES", "STATES", "AdrStatus", "read_status"]

STATES: tuple[str, ...] = (
    "proposed",
    "accepted",
    "on hold",
    "amended",
    "partly superseded",
    "superseded",
    "deprecated",
    "rejected",
    "reverted",
)
"""The canonical states an ADR can be in, whatever words its team used."""

MEMORY_STATUS: Mapping[str, str] = MappingProxyType(
    {
        "proposed": "active",
        "accepted": "active",
        "on hold": "active",
        "amended": "active",
        "partly superseded": "active",  # still partly in force; the disclosure names what replaces the rest
        "superseded": "superseded",
        "deprecated": "superseded",
        "rejected": "abandoned",
        "reverted": "abandoned",
    }
)
"""Canonical state -> the memory status (active, superseded, abandoned) the engine reads."""

_ALIASES: dict[str, tuple[str, ...]] = {
    "proposed": (
        "proposed",
        "proposal",
        "pending",
        "draft",
        "drafted",
        "in review",
        "under review",
        "in discussion",
        "under discussion",
        "under consideration",
        "in progress",
        "work in progress",
        "wip",
        "rfc",
        "request for comments",
        "suggested",
        "to be decided",
        "tbd",
        "not yet accepted",
    ),
    "accepted": (
        "accepted",
        "approved",
        "adopted",
        "agreed",
        "decided",
        "confirmed",
        "implemented",
        "in effect",
        "in force",
        "final",
        "finalised",
        "finalized",
        "active",
        "done",
    ),
    "on hold": ("on hold", "hold", "paused", "postponed", "deferred", "parked", "suspended", "blocked", "on ice"),
    "amended": ("amended", "amended by", "revised"),
    "partly superseded": (
        "partly superseded",
        "partially superseded",
        "in part superseded",
        "partly replaced",
        "partially replaced",
    ),
    "superseded": ("superseded", "superseded by", "superceded", "replaced", "replaced by", "obsoleted by"),
    "deprecated": ("deprecated", "obsolete", "retired", "outdated", "archived"),
    "rejected": (
        "rejected",
        "declined",
        "refused",
        "dismissed",
        "not accepted",
        "abandoned",
        "dropped",
        "cancelled",
        "canceled",
        "withdrawn",
        "discarded",
    ),
    "reverted": ("reverted", "rolled back", "revoked", "undone"),
}

PHRASES: Mapping[str, str] = MappingProxyType(
    {phrase: state for state, phrases in _ALIASES.items() for phrase in phrases}
)
"""Every status phrase Synapse knows (lower case, single spaces) -> its canonical state."""

_LONGEST = max(len(phrase.split()) for phrase in PHRASES)
_LOOK_AHEAD = 6
"""How many leading words may stand before the status phrase (``✅``, ``Status:``, ``This ADR is``)."""
_WORDS = re.compile(r"[a-z]+")


@dataclass(frozen=True, slots=True)
class AdrStatus:
    """A record's status: its own words (``pending``), the canonical state and the memory status (None: unknown)."""

    word: str
    state: str | None
    memory: str | None


def read_status(text: str | None) -> AdrStatus | None:
    """The status stated by ``text`` (a status line, section line or front matter value); None when empty.

    The earliest known phrase among the first few words wins, longest first, so ``Superseded by [5. X](…)``
    reads ``superseded by`` → superseded and ``not accepted`` is never read as ``accepted``. Text with no
    known phrase keeps its first word, with no state.
    """
    if not text:
        return None
    words = _WORDS.findall(MARKDOWN_LINK.sub(" ", text.lower()))
    if words[:1] == ["status"]:
        words = words[1:]
    if not words:
        return None
    for start in range(min(_LOOK_AHEAD, len(words))):
        for size in range(min(_LONGEST, len(words) - start), 0, -1):
            phrase = " ".join(words[start : start + size])
            state = PHRASES.get(phrase)
            if state is not None:
                word = phrase.removesuffix(" by") if phrase.endswith(" by") else phrase
                return AdrStatus(word, state, MEMORY_STATUS[state])
    return AdrStatus(words[0], None, None)
