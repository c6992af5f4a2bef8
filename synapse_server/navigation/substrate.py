"""Bounded substrate assembly: hybrid-ranked seeds, breadth-first hops, hard ceilings.

Seeds come from each source family, at most a per-source share each (so one
noisy store cannot crowd the others out), de-duplicated by address and
ordered by relevance: the fused (RRF) score, best first, ties by family order
then rank. A seed whose score falls below :data:`RELEVANCE_FLOOR` times the
best seed's score is not admitted: a hit that only one retrieval channel found
is weak beside one both channels ranked at the top. ``hops`` then admits
neighbours breadth-first in frontier (relevance) order until the node ceiling.
A store that failed to load is a ``missing`` gap in the envelope, not a failed
turn. ``lean=False`` restores the earlier assembly (round-robin by rank, no
floor) so a benchmark can measure both in one run.

Before any of that, the top :data:`SEARCH_SEEDS` of the one fused ranking
``synapse search`` returns for the question (memory and zettelkasten ranked
together) are seeds whatever their score: a document search ranks first or
second must be in the envelope the navigator reads, or navigate answers (or
abstains) without what a person searching would see first.

Seeds are folded the way search folds its hits (:func:`~synapse_server.navigation.twins.fold_twins`): a note
and the one source record it cites are one document and take one seed, the first of them to rank, so the
envelope does not spend two of its few seeds on one text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from adapters.base import Node, TetherCheck
from synapse_server.navigation.budgets import Budgets
from synapse_server.navigation.epistemics import NodeEpistemics, derive
from synapse_server.navigation.timing import Timings, maybe
from synapse_server.navigation.twins import fold_twins
from synapse_server.navigation.view import Graph, MissingGap, View

if TYPE_CHECKING:  # the engine is handed resolvers; it never builds them (that loads GitPython)
    from adapters.resolvers import Resolvers

SEED_FAMILIES = ("memory", "zk", "data", "code")
SEARCH_FAMILIES = ("memory", "zk")
"""The families ``synapse search`` ranks together: one fused ranking across them."""
SEARCH_SEEDS = 3
"""Seeds taken from the top of the fused search ranking before the per-family, relevance-floor seeds."""
RELEVANCE_FLOOR = 0.95
"""A seed is admitted only when its fused score is at least this share of the best seed's.

With RRF (k = 60) a document both channels rank first scores 2/61; one ranked
first by a single channel scores half of that, and one ranked 4th by both
channels (or 1st by one and 7th by the other) scores 0.95 of it. The floor
keeps what both channels rank near the top and drops the long tail, above all
what only one channel found (the semantic channel ranks every document). It is
relative, so a question no document matches lexically still gets its few best
semantic hits."""
NEIGHBOURS_PER_SEED = 1
"""Before the loop, ``hops`` admits at most this many neighbours per admitted seed (within the cap):
the context around the evidence never outgrows the evidence; ``expand`` and ``join`` reach further."""


@dataclass(frozen=True, slots=True)
class SeedHit:
    """One retrieval hit offered as a seed: its address and fused score (ordering only, never evidence)."""

    address: str
    score: float


class Search(Protocol):
    """(question, limit, families) -> hits in rank order, the families fused into one ranking.

    ``as_search`` asks for the ranking ``synapse search`` returns (its own fusion constant), which the
    first seeds follow; without it, the ranking the relevance floor is calibrated on.
    """

    def __call__(
        self, question: str, limit: int, families: Sequence[str], *, as_search: bool = False
    ) -> Sequence[SeedHit]: ...


@dataclass
class Substrate:
    """Everything one turn may reach, plus memoised tether checks (resolvers are deterministic)."""

    graph: Graph
    resolvers: Resolvers
    overrides: dict[str, tuple[TetherCheck, ...]] = field(default_factory=dict)
    timings: Timings | None = None
    _cache: dict[str, NodeEpistemics] = field(default_factory=dict)

    @classmethod
    def build(cls, nodes: Mapping[str, Node], resolvers: Resolvers, timings: Timings | None = None) -> Substrate:
        return cls(Graph.build(nodes), resolvers, timings=timings)

    def epistemics(self, address: str) -> NodeEpistemics:
        cached = self._cache.get(address)
        if cached is None:
            with maybe(self.timings, "epistemics"):
                node = self.graph.nodes[address]
                checks = tuple(self.resolvers.resolve(t) for t in node.tethers) + self.overrides.get(address, ())
                cached = derive(node, checks, contested=bool(node.meta.get("contested")))
            self._cache[address] = cached
        return cached

    def add_check(self, address: str, check: TetherCheck) -> NodeEpistemics:
        """Record a verifier finding made during the turn (it can only weaken a node)."""
        self.overrides[address] = (*self.overrides.get(address, ()), check)
        self._cache.pop(address, None)
        return self.epistemics(address)


def admit(view: View, substrate: Substrate, addresses: Sequence[str]) -> View:
    """Admit addresses with fresh refs and their engine-owned status."""
    admitted = view.admit(list(addresses))
    facts = dict(admitted.epistemics)
    for address in admitted.order:
        if address not in facts:
            facts[address] = substrate.epistemics(address)
    return replace(admitted, epistemics=facts)


def seed_addresses(
    question: str,
    search: Search,
    budgets: Budgets,
    families: Sequence[str] = SEED_FAMILIES,
    *,
    lean: bool = True,
    nodes: Mapping[str, Node] | None = None,
) -> list[str]:
    """Seeds by relevance above the floor (``lean``) or round-robin by rank, within the ceilings; with ``nodes``
    (``lean`` only), each document once: a later twin of a seed is no seed of its own."""
    total = budgets.assembly_cap if budgets.hops == 0 else max(1, (budgets.assembly_cap + 1) // 2)
    per_source = max(1, min(total, (total + 1) // 2 + 1))
    ranked = [list(search(question, per_source, (family,)))[:per_source] for family in families]
    searched: list[str] = []
    if lean:
        # Folding asks for twice the seeds, as search asks for twice its page: each folded twin frees a place.
        depth = SEARCH_SEEDS if nodes is None else 2 * SEARCH_SEEDS
        ranking = [hit.address for hit in search(question, depth, SEARCH_FAMILIES, as_search=True)]
        groups = fold_twins(ranking, nodes) if nodes is not None else [[a] for a in ranking]
        searched = [group[0] for group in groups][:SEARCH_SEEDS]
    if lean:
        ordered = sorted(
            ((hit, f, r) for f, hits in enumerate(ranked) for r, hit in enumerate(hits)),
            key=lambda entry: (-entry[0].score, entry[1], entry[2]),
        )
        best = ordered[0][0].score if ordered else 0.0
        candidates = searched + [hit.address for hit, _, _ in ordered if hit.score >= RELEVANCE_FLOOR * best]
    else:
        candidates = [hits[p].address for p in range(per_source) for hits in ranked if p < len(hits)]
    seeds: list[str] = []
    for address in candidates:
        if address not in seeds:
            seeds.append(address)
    if lean and nodes is not None:
        seeds = [group[0] for group in fold_twins(seeds, nodes)]
    return seeds[:total]


def assemble(
    question: str,
    substrate: Substrate,
    search: Search,
    budgets: Budgets,
    failures: Sequence[MissingGap] = (),
    *,
    lean: bool = True,
) -> View:
    """The pre-loop view: seeds plus ``budgets.hops`` breadth-first rings, at most ``assembly_cap`` nodes."""
    nodes = substrate.graph.nodes
    seeds = [a for a in seed_addresses(question, search, budgets, lean=lean, nodes=nodes) if a in nodes]
    if lean:
        seeds = with_successors(seeds, substrate)
    view = View(graph=substrate.graph, epistemics={}, refs={}, order=(), missing=tuple(failures), alias_duplicates=lean)
    view = admit(view, substrate, seeds[: budgets.assembly_cap])
    view = replace(view, focus=tuple(view.order[:3]))
    frontier = list(view.order)
    ceiling = budgets.assembly_cap
    if lean:
        ceiling = min(ceiling, (1 + NEIGHBOURS_PER_SEED) * len(view.order))
    for _ in range(budgets.hops):
        room = ceiling - len(view.order)
        if room <= 0 or not frontier:
            break
        ring = ring_of(view, frontier)[:room]
        if not ring:
            break
        view = replace(admit(view, substrate, ring), depth=view.depth + 1)
        frontier = ring
    return view


def with_successors(seeds: Sequence[str], substrate: Substrate) -> list[str]:
    """Each seed followed by the records that supersede it: a navigator shown a superseded record must also be
    shown what replaced it, or it can only answer from the old one (the node cap still bounds the whole)."""
    ordered: list[str] = []
    for address in seeds:
        for candidate in (address, *substrate.epistemics(address).superseded_by):
            if candidate in substrate.graph.nodes and candidate not in ordered:
                ordered.append(candidate)
    return ordered


def ring_of(view: View, frontier: Sequence[str]) -> list[str]:
    """Unadmitted neighbours of the frontier, in frontier order then address order."""
    ring: list[str] = []
    for address in frontier:
        for neighbour in view.graph.neighbours(address):
            if not view.admitted(neighbour) and neighbour not in ring:
                ring.append(neighbour)
    return ring
