"""Engine-owned status: derived from tether checks only, weakest tier wins, taints floor, outdated discloses."""

from __future__ import annotations

import pytest

from adapters.base import Node, Tether, TetherCheck, TetherKind
from synapse_server.navigation.epistemics import derive, weakest

NODE = Node(address="mem:tree:x", type="decision", title="x", body="Costs rose.", family="memory")
PIN = Tether(TetherKind.GIT_PIN, "models/costs.py", "abc")
HASH = Tether(TetherKind.CONTENT_HASH, "runs/r1/out.csv", "0" * 64)
RUN = Tether(TetherKind.RUN, "run-001")
CITE = Tether(TetherKind.CITATION, "okafor-2019")


def check(tether: Tether, state: str) -> TetherCheck:
    return TetherCheck(tether, state, state)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("checks", "status"),
    [
        pytest.param([check(PIN, "ok")], "grounded", id="git-pin"),
        pytest.param([check(CITE, "ok")], "grounded", id="citation"),
        pytest.param([check(HASH, "ok")], "measured", id="content-hash"),
        pytest.param([check(RUN, "ok")], "measured", id="run"),
        pytest.param([check(PIN, "ok"), check(HASH, "ok")], "measured", id="weakest-tier-wins"),
        pytest.param([check(PIN, "ok"), check(CITE, "unverifiable")], "inferred", id="an-unverifiable-tether"),
        pytest.param([], "inferred", id="no-tether"),
    ],
)
def test_status_is_the_weakest_tier_the_verified_tethers_support(checks: list[TetherCheck], status: str) -> None:
    facts = derive(NODE, checks)
    assert (facts.status, facts.taints, facts.outdated) == (status, frozenset(), False)


@pytest.mark.parametrize(("state", "taint"), [("stale", "stale"), ("unresolved", "unresolved"), ("failed", "refuted")])
def test_a_taint_floors_the_status_to_inferred(state: str, taint: str) -> None:
    facts = derive(NODE, [check(PIN, "ok"), check(CITE, state)])
    assert (facts.status, facts.tether_status, facts.taints, facts.verified) == (
        "inferred",
        "inferred",
        frozenset({taint}),
        False,
    )


def test_contested_floors_the_status_but_keeps_what_the_tethers_support() -> None:
    facts = derive(NODE, [check(PIN, "ok")], contested=True)
    assert (facts.status, facts.tether_status, facts.taints) == ("inferred", "grounded", frozenset({"contested"}))
    assert facts.verified is False


def test_outdated_keeps_the_status_and_obliges_the_disclosure() -> None:
    facts = derive(NODE, [check(PIN, "outdated")])
    assert (facts.status, facts.outdated, facts.verified) == ("grounded", True, True)


def test_a_stale_tether_beside_an_outdated_one_is_stale_not_outdated() -> None:
    facts = derive(NODE, [check(PIN, "outdated"), check(HASH, "stale")])
    assert (facts.status, facts.outdated, facts.taints) == ("inferred", False, frozenset({"stale"}))


def test_weakest_of_nothing_is_inferred_and_order_does_not_matter() -> None:
    assert weakest([]) == "inferred"
    assert weakest(["grounded", "measured"]) == weakest(["measured", "grounded"]) == "measured"
    assert weakest(["grounded", "inferred", "measured"]) == "inferred"
