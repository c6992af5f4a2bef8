"""Joins that assert nothing new: a conjunct from another node keeps its own subject explicit.

Two claims grounded in different nodes may be joined (a conjunction, or two
spans of the prose) only when the later one names its own subject: opening
with an anaphor (``this``, ``its``, ``they`` …) or with no subject at all
(``Earns 1.0% APY …``, whose subject is the other note's title) would bind it
to the earlier claim's subject and assert something neither node says.
"""

from __future__ import annotations

from synapse_server.language.atoms import names_a_subject
from synapse_server.language.text import normalise_words

__all__ = ["JOIN_ANAPHORS", "dangling_subject"]

JOIN_ANAPHORS = frozenset("this that these those it its they them their such he she his her".split())
"""Words that stand for a subject named elsewhere when they open a conjunct."""


def dangling_subject(text: str) -> str | None:
    """Why a conjunct from another node would bind to the wrong subject, or None when it names its own."""
    words = normalise_words(text)
    if not words:
        return None
    if words[0] in JOIN_ANAPHORS:
        return f'opens with "{words[0]}"'
    if not names_a_subject(text):
        return "names no subject of its own"
    return None
