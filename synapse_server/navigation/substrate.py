"""Bounded substrate assembly: hybrid-ranked seeds, breadth-first hops, hard ceilings.

Seeds come from each source family in rank order (round-robin, so one noisy
store cannot crowd the others out), de-duplicated by address, capped per
source and overall. ``hops`` then admits neighbours breadth-first in a
deterministic order until the node ceiling. A store that failed to load is a
``missing`` gap in the envelope, not a failed turn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from adapters.base import Node, TetherCheck
from adapters.resolvers import Resolvers
from synapse_server.navigation.budgets import Budgets
from synapse_server.navigation.epistemics import NodeEpistemics, derive
from synapse_server.navigation.timing import Timings, maybe
from synapse_server.navigation.view import Graph, MissingGap, View

SEED_FAMILIES = ("memory", "zk", "data", "code")
Search = Callable[[str, int, str], Sequence[str]]
"""(question, limit, family) -> addresses in rank order."""


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
    question: str, search: Search, budgets: Budgets, families: Sequence[str] = SEED_FAMILIES
) -> list[str]:
    """Round-robin by rank across families, de-duplicated, within the per-source and total ceilings."""
    total = budgets.assembly_cap if budgets.hops == 0 else max(1, (budgets.assembly_cap + 1) // 2)
    per_source = max(1, min(total, (total + 1) // 2 + 1))
    ranked = [list(search(question, per_source, family))[:per_source] for family in families]
    seeds: list[str] = []
    for position in range(per_source):
        for hits in ranked:
            if position < len(hits) and hits[position] not in seeds:
                seeds.append(hits[position])
    return seeds[:total]


def assemble(
    question: str,
    substrate: Substrate,
    search: Search,
    budgets: Budgets,
    failures: Sequence[MissingGap] = (),
) -> View:
    """The pre-loop view: seeds plus ``budgets.hops`` breadth-first rings, at most ``assembly_cap`` nodes."""
    seeds = [a for a in seed_addresses(question, search, budgets) if a in substrate.graph.nodes]
    view = View(graph=substrate.graph, epistemics={}, refs={}, order=(), missing=tuple(failures))
    view = admit(view, substrate, seeds[: budgets.assembly_cap])
    view = replace(view, focus=tuple(view.order[:3]))
    frontier = list(view.order)
    for _ in range(budgets.hops):
        room = budgets.assembly_cap - len(view.order)
        if room <= 0 or not frontier:
            break
        ring = ring_of(view, frontier)[:room]
        if not ring:
            break
        view = replace(admit(view, substrate, ring), depth=view.depth + 1)
        frontier = ring
    return view


def ring_of(view: View, frontier: Sequence[str]) -> list[str]:
    """Unadmitted neighbours of the frontier, in frontier order then address order."""
    ring: list[str] = []
    for address in frontier:
        for neighbour in view.graph.neighbours(address):
            if not view.admitted(neighbour) and neighbour not in ring:
                ring.append(neighbour)
    return ring
