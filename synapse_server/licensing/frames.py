"""A unit's frame: the context its words are read in, and the polarity that context carries.

Built once per unit from the node's title, the unit's heading path, the
lead-in of the list it belongs to and a table row's header. A claim may
insert the frame's words to name its subject or scope ("The Hunter Green
account earns …", "For the Beige account, …"), and a frame that says a rule
applies ("ensure all of the following are true", "requirements") lets it say
``must``. A frame carries its own polarity: an item under "Not Eligible" or
"Non-Qualifying" is negated, so a claim that uses the frame must say so. A
frame from another unit, section or node never frames this one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from synapse_server.language.words import stem, tokens

__all__ = ["EMPTY_FRAME", "FRAME_MODALS", "FRAME_NOUNS", "Frame", "frame_of"]

_NEGATIVE_WORDS = frozenset(
    stem(w)
    for w in "ineligible excluded exclusion exclusions excludes disqualified disqualifying unqualified "
    "prohibited forbidden unsupported unavailable".split()
)
_REQUIREMENT_WORDS = frozenset(
    stem(w)
    for w in "ensure ensures required requirement requirements must mandatory prerequisites criteria qualify eligibility "
    "conditions".split()
)
FRAME_MODALS = frozenset({"must", "required", "require", "need"})
FRAME_NOUNS = frozenset(stem(w) for w in "account accounts plan plans tier tiers product products card cards".split())
"""Generic nouns a frame phrase may add beside the frame's own words ("For entry-tier accounts, …")."""
"""What a requirement frame lets a claim add: the item is something that must hold."""


@dataclass(frozen=True, slots=True)
class Frame:
    """The words a claim may add from its unit's context, and whether that context negates or requires."""

    texts: tuple[str, ...] = ()
    terms: frozenset[str] = frozenset()
    negated: bool = False
    requirement: bool = False


EMPTY_FRAME = Frame()


def frame_of(texts: Iterable[str]) -> Frame:
    """The frame of one unit from its own context texts (title, headings, list lead-in, table header)."""
    kept = tuple(t for t in texts if t and t.strip())
    if not kept:
        return EMPTY_FRAME
    found = [tok for text in kept for tok in tokens(text)]
    terms = frozenset(tok.term for tok in found if tok.cls not in ("figure", "negation"))
    negated = any(tok.cls == "negation" or tok.term in _NEGATIVE_WORDS for tok in found)
    requirement = any(tok.term in _REQUIREMENT_WORDS for tok in found)
    return Frame(kept, terms, negated, requirement)
