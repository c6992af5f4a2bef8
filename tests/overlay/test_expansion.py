"""1-hop connection expansion of search hits over an overlay."""

from __future__ import annotations

from dataclasses import dataclass

from synapse_server.overlay.expansion import Expansion, expand_hits, neighbours
from synapse_server.overlay.model import Link, Overlay, Relation


@dataclass(frozen=True)
class Hit:
    address: str


def _link(practice: str, canon: str, relation: Relation = "related", confidence: float = 0.6) -> Link:
    return Link(
        practice=f"mem:tree:{practice}",
        canon=f"zk:{canon}",
        relation=relation,
        confidence=confidence,
        rationale="test",
        typer="test",
        channels=["semantic"],
    )


OVERLAY = Overlay(
    kind="claim",
    signature="sha256:test",
    typer="test",
    projects=["research", "execution"],
    min_confidence=0.5,
    links=[
        _link("deci-1", "research:costs", "corroborates", 0.9),
        _link("deci-1", "execution:impact", "applies", 0.7),
        _link("expe-2", "research:costs", "contradicts", 0.8),
        _link("expe-3", "research:scaling", "related", 0.55),
    ],
)


def test_each_hit_is_followed_by_its_neighbours_marked_as_expansions() -> None:
    expanded = expand_hits([Hit("mem:tree:deci-1")], OVERLAY)
    assert expanded[0] == Hit("mem:tree:deci-1")
    rest = [e for e in expanded[1:] if isinstance(e, Expansion)]
    assert len(rest) == len(expanded) - 1
    assert [(e.address, e.relation, e.via, e.expansion) for e in rest] == [
        ("zk:research:costs", "corroborates", "mem:tree:deci-1", True),
        ("zk:execution:impact", "applies", "mem:tree:deci-1", True),
    ]
    assert {(e.store, e.tier, e.direction, e.overlay) for e in rest} == {("zk", "canon", "to-canon", "claim")}


def test_a_canon_hit_expands_to_the_practice_that_links_to_it() -> None:
    expanded = expand_hits([Hit("zk:research:costs")], OVERLAY, titles={"mem:tree:expe-2": "Cost sensitivity"})
    practice = [e for e in expanded if isinstance(e, Expansion)]
    assert [(e.address, e.relation, e.store, e.tier, e.direction) for e in practice] == [
        ("mem:tree:deci-1", "corroborates", "memory", "practice", "to-practice"),
        ("mem:tree:expe-2", "contradicts", "memory", "practice", "to-practice"),
    ]
    assert practice[1].title == "Cost sensitivity"


def test_an_address_already_present_is_never_added_twice() -> None:
    hits = [Hit("mem:tree:deci-1"), Hit("zk:research:costs"), Hit("mem:tree:expe-2")]
    expanded = expand_hits(hits, OVERLAY)
    addresses = [e.address for e in expanded]
    assert len(addresses) == len(set(addresses))
    assert [e.address for e in expanded if not isinstance(e, Expansion)] == [h.address for h in hits]
    assert addresses == ["mem:tree:deci-1", "zk:execution:impact", "zk:research:costs", "mem:tree:expe-2"]


def test_canon_outside_the_project_scope_is_not_added() -> None:
    expanded = expand_hits([Hit("mem:tree:deci-1")], OVERLAY, projects=["research"])
    assert [e.address for e in expanded] == ["mem:tree:deci-1", "zk:research:costs"]


def test_per_hit_caps_the_neighbours_one_hit_contributes() -> None:
    expanded = expand_hits([Hit("mem:tree:deci-1")], OVERLAY, per_hit=1)
    assert [e.address for e in expanded] == ["mem:tree:deci-1", "zk:research:costs"]


def test_without_an_overlay_the_hits_come_back_unchanged() -> None:
    hits = [Hit("mem:tree:deci-1"), Hit("zk:research:costs")]
    assert expand_hits(hits, None) == hits


def test_neighbours_are_ordered_by_confidence_then_address() -> None:
    assert [a for a, _ in neighbours(OVERLAY, "zk:research:costs")] == ["mem:tree:deci-1", "mem:tree:expe-2"]
    assert neighbours(OVERLAY, "mem:tree:nobody") == []


def test_an_expansion_serialises_with_expansion_true() -> None:
    expansion = next(e for e in expand_hits([Hit("mem:tree:expe-3")], OVERLAY) if isinstance(e, Expansion))
    data = expansion.model_dump(mode="json")
    assert data["expansion"] is True
    assert data["via"] == "mem:tree:expe-3"
    assert data["relation"] == "related"
