"""The claim DAG as a tree: conclusion first, shared premises once, nothing in the trace dropped."""

from __future__ import annotations

from synapse_server.navigation.surfaces import TraceSurface
from synapse_server.present.trace_tree import claim_tree
from tests.support.nav_results import abstention, answer, claim


def trace_with(claims: list[dict], conclusion: str | None) -> TraceSurface:
    base = answer().trace_surface
    assert base is not None
    return base.model_copy(update={"claims": TraceSurface.model_validate(
        {**base.model_dump(), "claims": claims}).claims, "conclusion_claim_id": conclusion})  # fmt: skip


def test_the_conclusion_is_the_root_with_its_premises_beneath_it() -> None:
    trace = answer().trace_surface
    assert trace is not None
    (root,) = claim_tree(trace)
    assert root.id == "c1" and [p.id for p in root.premises] == ["c2", "c3"]
    assert root.premises[1].flags == ["stale"]


def test_a_premise_shared_by_two_claims_is_shown_once_then_referenced() -> None:
    claims = [
        claim("c1", "top", premises=("c2", "c3")),
        claim("c2", "left", premises=("c4",)),
        claim("c3", "right", premises=("c4",)),
        claim("c4", "shared"),
    ]
    (root,) = claim_tree(trace_with(claims, "c1"))
    left, right = root.premises
    assert not left.premises[0].repeat and right.premises[0].repeat


def test_a_premise_missing_from_the_trace_is_named_not_dropped() -> None:
    (root,) = claim_tree(trace_with([claim("c1", "top", premises=("c9",))], "c1"))
    assert root.premises[0].id == "c9" and root.premises[0].claim is None


def test_claims_on_a_cycle_still_get_a_root_each_once() -> None:
    claims = [claim("c1", "a", premises=("c2",)), claim("c2", "b", premises=("c1",))]
    roots = claim_tree(trace_with(claims, None))
    assert [r.id for r in roots] == ["c1"] and roots[0].premises[0].premises[0].repeat


def test_an_abstention_trace_carries_the_citation_flags_on_each_cited_address() -> None:
    trace = abstention().trace_surface
    assert trace is not None
    (root,) = claim_tree(trace)
    assert [(c.address, c.flags) for c in root.cites] == [("zk:research:breakeven", ["refuted"])]
