"""A graph updated after an edit re-indexes only the changed nodes and equals a graph built from nothing."""

from __future__ import annotations

from dataclasses import replace

from adapters.base import Edge, Node
from synapse_server.navigation.view import Graph


def _node(address: str, *targets: str, rel: str = "related") -> Node:
    edges = tuple(Edge(address, dst, rel) for dst in targets)
    return Node(address=address, type="note", title=address, body="", family="memory", edges=edges)


def _nodes() -> dict[str, Node]:
    return {
        "mem:tree:a": _node("mem:tree:a", "mem:tree:b", "mem:tree:c"),
        "mem:tree:b": _node("mem:tree:b", "mem:tree:c"),
        "mem:tree:c": _node("mem:tree:c", "mem:tree:gone"),
        "mem:tree:d": _node("mem:tree:d", "mem:tree:a"),
    }


def _same(updated: Graph, built: Graph) -> None:
    assert updated.nodes == built.nodes
    assert dict(updated.out_edges) == dict(built.out_edges)
    assert dict(updated.in_edges) == dict(built.in_edges)
    for address in built.nodes:
        assert updated.neighbours(address) == built.neighbours(address)
        assert updated.dangling(address) == built.dangling(address)


def test_an_edited_a_removed_and_an_added_node_update_to_what_a_build_gives() -> None:
    earlier = Graph.build(_nodes())
    nodes = dict(_nodes())
    nodes["mem:tree:a"] = _node("mem:tree:a", "mem:tree:d")  # b and c lose an in-edge, d gains one
    del nodes["mem:tree:b"]
    nodes["mem:tree:e"] = _node("mem:tree:e", "mem:tree:c", "mem:tree:a")
    _same(Graph.updated(earlier, nodes), Graph.build(nodes))


def test_unchanged_node_objects_keep_their_edge_tuples() -> None:
    nodes = _nodes()
    earlier = Graph.build(nodes)
    edited = dict(nodes)
    edited["mem:tree:d"] = replace(nodes["mem:tree:d"], title="retitled")
    updated = Graph.updated(earlier, edited)
    _same(updated, Graph.build(edited))
    assert updated.out_edges["mem:tree:b"] is earlier.out_edges["mem:tree:b"]


def test_an_edge_carried_by_a_node_it_does_not_start_at_forces_a_full_build() -> None:
    nodes = _nodes()
    earlier = Graph.build(nodes)
    edited = dict(nodes)
    # b now carries an edge that starts at c: taking out c's old edges alone would lose it
    edited["mem:tree:b"] = replace(nodes["mem:tree:b"], edges=(Edge("mem:tree:c", "mem:tree:d", "related"),))
    updated = Graph.updated(earlier, edited)
    _same(updated, Graph.build(edited))
    assert not updated.own_edges
    again = dict(edited)
    again["mem:tree:c"] = _node("mem:tree:c")  # a later update from that graph must not trust it either
    _same(Graph.updated(updated, again), Graph.build(again))
