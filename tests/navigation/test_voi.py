"""Advisory value-of-information: a bounded set of focus handles that never acts and never changes a verdict."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapse_server.navigation.loop import run_loop
from synapse_server.navigation.substrate import Substrate
from synapse_server.navigation.voi import MAX_HANDLES, POLICIES, candidates, minimal, resolvability, resolvability_cost
from tests.support.engine_builders import answer, budgets, node, substrate, view_of
from tests.support.fake_model import FakeModel

unit = st.floats(min_value=-2.0, max_value=3.0, allow_nan=False)
cost = st.floats(min_value=-10.0, max_value=200_000.0, allow_nan=False)
gap = st.sampled_from([0.0, 0.25, 0.5, 1.0])


@pytest.mark.parametrize(
    ("relevance", "status_gap", "token_cost", "score"),
    [
        pytest.param(1.0, 1.0, 10.0, 0.1, id="plain"),
        pytest.param(0.5, 0.5, 1.0, 0.25, id="half-and-half"),
        pytest.param(2.0, 1.0, 10.0, 0.1, id="relevance-clamped-to-one"),
        pytest.param(-1.0, 1.0, 10.0, 0.0, id="relevance-clamped-to-zero"),
        pytest.param(1.0, 1.0, 0.0, 1.0, id="cost-clamped-to-one"),
        pytest.param(1.0, 1.0, 1e9, 1e-5, id="cost-clamped-to-100000"),
        pytest.param(1.0, 0.0, 10.0, 0.0, id="no-status-gap"),
    ],
)
def test_resolvability_cost_is_clamped_relevance_times_gap_over_clamped_cost(
    relevance: float, status_gap: float, token_cost: float, score: float
) -> None:
    assert resolvability_cost(relevance, status_gap, token_cost) == pytest.approx(score)


@given(relevance=unit, more=st.floats(min_value=0.0, max_value=2.0), status_gap=gap, token_cost=cost)
def test_raising_relevance_never_lowers_a_non_zero_score(
    relevance: float, more: float, status_gap: float, token_cost: float
) -> None:
    before = resolvability_cost(relevance, status_gap, token_cost)
    if before > 0:
        assert resolvability_cost(relevance + more, status_gap, token_cost) >= before


@given(relevance=unit, status_gap=gap, token_cost=cost, less=st.floats(min_value=0.0, max_value=200_000.0))
def test_lowering_cost_never_lowers_a_non_zero_score(
    relevance: float, status_gap: float, token_cost: float, less: float
) -> None:
    before = resolvability_cost(relevance, status_gap, token_cost)
    if before > 0:
        assert resolvability_cost(relevance, status_gap, token_cost - less) >= before


@pytest.fixture
def sub() -> Substrate:
    nodes = [node(f"mem:tree:v{i}", f"Costs rose to {i} bps.") for i in range(4)]
    nodes += [node(f"mem:tree:u{i}", f"Costs may rise to {i} bps.", status="inferred") for i in range(8)]
    nodes[4] = node("mem:tree:u0", "Costs may rise to 0 bps. " + "Nobody knows. " * 300, status="inferred")
    nodes.append(node("mem:tree:stale", "Carry lost 3.5%.", links=[]))
    return substrate(nodes, states={"mem:tree:stale": "stale"})


def test_verified_clean_nodes_score_zero_and_are_never_suggested(sub: Substrate) -> None:
    view = view_of(sub)
    verified = {view.ref_of(a) for a in view.order if view.epistemics[a].verified}
    scores = {c.ref: c.status_gap for c in candidates(view)}
    assert verified == {"n1", "n2", "n3", "n4"}
    assert all(scores[ref] == 0.0 for ref in verified)
    assert not verified & set(resolvability(view))
    assert not verified & set(minimal(view))


@pytest.mark.parametrize("policy", list(POLICIES))
def test_a_policy_suggests_at_most_max_handles(sub: Substrate, policy: str) -> None:
    handles = POLICIES[policy](view_of(sub))
    assert 0 < len(handles) <= MAX_HANDLES
    assert len(set(handles)) == len(handles)


def test_the_status_gap_is_zero_verified_half_tainted_quarter_untethered(sub: Substrate) -> None:
    view = view_of(sub, ["mem:tree:v0", "mem:tree:stale", "mem:tree:u1"])
    assert [c.status_gap for c in candidates(view)] == [0.0, 0.5, 0.25]


def test_an_expensive_body_lowers_the_resolvability_rank_but_not_the_minimal_one(sub: Substrate) -> None:
    view = view_of(sub)
    assert "n5" in minimal(view)
    assert "n5" not in resolvability(view)


REPLIES = {
    "licensed": answer("claim c1 [restatement] cites n1 :: Costs rose to 0 bps."),
    "paraphrase": answer("claim c1 [restatement] cites n1 :: Costs went up to 0 bps."),
    "unverified": answer("claim c1 [restatement] cites n5 :: Costs may rise to 0 bps."),
}


@pytest.mark.parametrize("reply", list(REPLIES))
def test_the_chosen_handles_never_change_the_router_decision(sub: Substrate, reply: str) -> None:
    outcomes = []
    prompts = []
    for policy in POLICIES:
        model = FakeModel(REPLIES[reply], REPLIES[reply])
        outcomes.append(run_loop("How much did costs rise?", view_of(sub), sub, model, budgets(), voi=policy))
        prompts.append(model.history[0].text)
    first, second = outcomes
    assert first.decision == second.decision
    assert (first.halted_reason, first.view.order) == (second.halted_reason, second.view.order)
    assert prompts[0] != prompts[1]  # the policies did suggest different handles
