"""The values and vocabularies RENDER and ACTION-RESPONSE share: nodes, gaps, affordances.

Both directions carry the same node and gap blocks, so the value types and
the closed vocabularies live here once; ``memdsl.render`` re-exports them as
the public names. Values are plain frozen data: the rules are enforced when a
value is serialized (and when text is parsed), never half-way in between.
Cross-references (``aff`` refs, and the RENDER ``focus``) are collected as
:class:`RefUse` while reading or writing and resolved once every node is
known, earliest use first, by both the parser and the serializer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memdsl.address import Address
from memdsl.errors import fail

STATUSES = ("grounded", "measured", "inferred")
"""Engine-owned node status, strongest first; the only tiers there are."""
GAP_TOKENS = ("stale", "unresolved", "missing", "elided", "outdated")
"""How an absence is named; ``outdated`` is a disclosure, not a tier."""
AFFORDANCE_VERBS = ("expand", "join", "ground", "prune")
"""The read actions a node may advertise; terminals are never affordances."""

REF_PATTERN = re.compile(r"n[1-9][0-9]*")
"""A local ref: ``n`` + a positive ASCII integer without leading zero (refs count from n1)."""
TYPE_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
"""A node type: an ASCII identifier; unknown types are legal and use the text body codec."""


@dataclass(frozen=True, order=True, slots=True)
class Affordance:
    """A read action the engine offers on a rendered node, e.g. ``expand:n1``."""

    verb: str
    ref: str


@dataclass(frozen=True, order=True, slots=True)
class Gap:
    """A represented absence: what is missing (``token``), where, and why in words."""

    token: str
    address: Address
    detail: str


@dataclass(frozen=True, slots=True)
class RenderNode:
    """One rendered node: local ref, canonical address, type, engine-owned status, and its fields."""

    ref: str
    address: Address
    type: str
    status: str
    elided: bool = False
    title: str | None = None
    prov: tuple[str, ...] = ()
    aff: tuple[Affordance, ...] = ()
    body: str | None = None


@dataclass(frozen=True, slots=True)
class RefUse:
    """A reference to a local ref that must name a node of the same artifact."""

    ref: str
    line: int
    column: int
    code: str
    what: str


def resolve_refs(uses: Sequence[RefUse], nodes: Sequence[RenderNode]) -> None:
    """Fail on the earliest use of a ref that names no node of the artifact."""
    known = {node.ref for node in nodes}
    for use in sorted(uses, key=lambda u: (u.line, u.column)):
        if use.ref not in known:
            raise fail(use.code, f"{use.what} {use.ref} names no node in this text", use.line, use.column)
