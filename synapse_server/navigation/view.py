"""The turn's evidence in view: an immutable value the loop replaces, never mutates.

Refs are assigned at admission and never reused, so ``n3`` keeps meaning the
same node after ``n2`` is pruned. ``graph`` is every node the turn may reach
(the substrate the adapters produced); ``order`` is what is admitted now.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from adapters.base import Edge, Node
from synapse_server.navigation.epistemics import NodeEpistemics

MAX_JOIN_PATH = 3
"""``join`` admits the nodes on a shortest path of at most this many edges."""


@dataclass(frozen=True, slots=True)
class MissingGap:
    """An absent relation or source the envelope must show rather than drop."""

    address: str
    detail: str


@dataclass(frozen=True, slots=True)
class Graph:
    """Every reachable node and its edges, indexed both ways."""

    nodes: Mapping[str, Node]
    out_edges: Mapping[str, tuple[Edge, ...]]
    in_edges: Mapping[str, tuple[Edge, ...]]
    own_edges: bool = True
    """Every edge starts at the node that carries it (what :meth:`updated` needs to re-index a node alone)."""

    @classmethod
    def build(cls, nodes: Mapping[str, Node]) -> Graph:
        out: dict[str, list[Edge]] = {}
        inc: dict[str, list[Edge]] = {}
        own = True
        for address, node in nodes.items():
            for edge in node.edges:
                out.setdefault(edge.src, []).append(edge)
                inc.setdefault(edge.dst, []).append(edge)
                own = own and edge.src == address
        return cls(
            nodes,
            {k: tuple(sorted(set(v), key=_edge_key)) for k, v in out.items()},
            {k: tuple(sorted(set(v), key=_edge_key)) for k, v in inc.items()},
            own,
        )

    @classmethod
    def updated(cls, earlier: Graph, nodes: Mapping[str, Node]) -> Graph:
        """:meth:`build` of ``nodes``, re-indexing only the nodes that are not the earlier graph's objects.

        After one edited file a reload keeps every other node object, so this costs the edit, not the
        workspace. It needs every edge to start at the node carrying it (then a node's old edges are exactly
        what to take out); otherwise, or when much changed, it builds from nothing.
        """
        old = earlier.nodes
        changed = [a for a, n in nodes.items() if old.get(a) is not n]
        changed += [a for a in old if a not in nodes]
        return cls._reindexed(earlier, nodes, changed)

    @classmethod
    def swapped(cls, earlier: Graph, nodes: Mapping[str, Node], moved: Iterable[str]) -> Graph:
        """:meth:`updated` where the caller knows what changed: ``earlier`` with the node at each ``moved``
        address it holds replaced by ``nodes``'s, every other node and address as it was.

        For a reload that kept every address in place (``Stores.moved``): neither node map is walked.
        """
        scoped = dict(earlier.nodes)
        changed = [a for a in moved if a in scoped]
        for address in changed:
            scoped[address] = nodes[address]
        return cls._reindexed(earlier, scoped, changed)

    @classmethod
    def _reindexed(cls, earlier: Graph, nodes: Mapping[str, Node], changed: list[str]) -> Graph:
        """``nodes``'s graph from ``earlier``'s, re-indexing the edges of the ``changed`` addresses only."""
        old = earlier.nodes
        if not earlier.own_edges or len(changed) > _UPDATE_MAX:
            return cls.build(nodes)
        out, inc = dict(earlier.out_edges), dict(earlier.in_edges)
        for address in changed:
            before = old[address].edges if address in old else ()
            after = nodes[address].edges if address in nodes else ()
            if any(edge.src != address for edge in after):
                return cls.build(nodes)
            _put(out, address, set(after))
            for dst in {edge.dst for edge in (*before, *after)}:
                kept = set(inc.get(dst, ())).difference(e for e in before if e.dst == dst)
                _put(inc, dst, kept.union(e for e in after if e.dst == dst))
        return cls(nodes, out, inc, True)

    def neighbours(self, address: str) -> tuple[str, ...]:
        """Addresses one edge away (either direction) that exist in the graph, deterministic order."""
        found = {e.dst for e in self.out_edges.get(address, ())} | {e.src for e in self.in_edges.get(address, ())}
        found.discard(address)
        return tuple(sorted(a for a in found if a in self.nodes))

    def paths_from(self, start: str, max_edges: int) -> dict[str, tuple[str, ...]]:
        """The shortest path from ``start`` to every node within ``max_edges`` (breadth-first, address order)."""
        paths: dict[str, tuple[str, ...]] = {start: (start,)}
        frontier = [start]
        for _ in range(max_edges):
            following: list[str] = []
            for current in frontier:
                for neighbour in self.neighbours(current):
                    if neighbour not in paths:
                        paths[neighbour] = (*paths[current], neighbour)
                        following.append(neighbour)
            frontier = following
        return paths

    def dangling(self, address: str) -> tuple[Edge, ...]:
        """Outgoing edges whose target does not exist: absent relations."""
        return tuple(e for e in self.out_edges.get(address, ()) if e.dst not in self.nodes)


def _edge_key(edge: Edge) -> tuple[str, str, str]:
    return (edge.src, edge.rel, edge.dst)


def _put(index: dict[str, tuple[Edge, ...]], key: str, edges: set[Edge]) -> None:
    if edges:
        index[key] = tuple(sorted(edges, key=_edge_key))
    else:
        index.pop(key, None)


_UPDATE_MAX = 1000
"""Above this many changed nodes :meth:`Graph.updated` builds from nothing (it would save little)."""


@dataclass(frozen=True, slots=True)
class View:
    graph: Graph
    epistemics: Mapping[str, NodeEpistemics]
    refs: Mapping[str, str]  # address -> ref, every ref ever assigned this turn
    order: tuple[str, ...]  # admitted addresses, in ref order
    focus: tuple[str, ...] = ()
    unelided: frozenset[str] = frozenset()
    missing: tuple[MissingGap, ...] = ()
    depth: int = 0  # breadth-first depth reached so far (pre-loop hops + in-loop expansions)
    alias_duplicates: bool = True  # render a body shared by several admitted nodes once (see envelope.py)

    def ref_of(self, address: str) -> str:
        return self.refs[address]

    def address_of(self, ref: str) -> str | None:
        for address, known in self.refs.items():
            if known == ref and address in self.order:
                return address
        return None

    def admitted(self, address: str) -> bool:
        return address in self.order

    def admit(self, addresses: list[str]) -> View:
        """Admit new addresses (in the given order) with fresh refs."""
        refs = dict(self.refs)
        order = list(self.order)
        next_n = len(refs) + 1
        for address in addresses:
            if address in order:
                continue
            if address not in refs:
                refs[address] = f"n{next_n}"
                next_n += 1
            order.append(address)
        return replace(self, refs=refs, order=tuple(order))

    def prune(self, address: str) -> View:
        return replace(
            self,
            order=tuple(a for a in self.order if a != address),
            focus=tuple(a for a in self.focus if a != address),
        )
