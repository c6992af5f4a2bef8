"""Advisory value-of-information: which handles to suggest in the prompt. Never acts.

``minimal`` (the production default) suggests the top-ranked seeds that are not
yet verified-and-clean. ``resolvability_cost`` scores each admitted node as
``clamp(relevance, 0, 1) * status_gap / clamp(token_cost, 1, 100000)``:
relevance comes from the deterministic seed order, a verified clean node has a
zero status gap, and only the top bounded positive scores are kept. Raising
relevance or lowering cost can never lower a non-zero score.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from synapse_server.navigation.view import View

MAX_HANDLES = 5
Policy = Callable[[View], list[str]]


@dataclass(frozen=True, slots=True)
class Candidate:
    ref: str
    relevance: float
    status_gap: float
    token_cost: float


def resolvability_cost(relevance: float, status_gap: float, token_cost: float) -> float:
    return min(max(relevance, 0.0), 1.0) * status_gap / min(max(token_cost, 1.0), 100_000.0)


def candidates(view: View) -> list[Candidate]:
    found: list[Candidate] = []
    total = max(1, len(view.order))
    for position, address in enumerate(view.order):
        facts = view.epistemics[address]
        node = view.graph.nodes[address]
        if facts.verified:
            gap = 0.0
        elif facts.taints:
            gap = 0.5
        else:
            gap = 1.0 if node.tethers else 0.25
        relevance = 1.0 - position / total
        found.append(Candidate(view.ref_of(address), relevance, gap, len(node.body) / 4 + 20))
    return found


def minimal(view: View) -> list[str]:
    """The first admitted (best-ranked) nodes that are not verified and clean."""
    picked = [view.ref_of(a) for a in view.order if not view.epistemics[a].verified]
    return picked[:MAX_HANDLES]


def resolvability(view: View) -> list[str]:
    scored = [(resolvability_cost(c.relevance, c.status_gap, c.token_cost), c.ref) for c in candidates(view)]
    positive = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], int(s[1][1:])))
    return [ref for _, ref in positive[:MAX_HANDLES]]


POLICIES: dict[str, Policy] = {"minimal": minimal, "resolvability_cost": resolvability}
