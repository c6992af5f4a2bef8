"""Bounded substrate assembly: seeds round-robin across stores, breadth-first hops, hard ceilings, gaps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from adapters.base import Tether, TetherCheck, TetherKind
from adapters.resolvers import Resolvers
from memdsl import parse_render, serialize_render
from synapse_server.navigation.budgets import BudgetRequest, resolve_budgets
from synapse_server.navigation.envelope import render_envelope
from synapse_server.navigation.substrate import (
    RELEVANCE_FLOOR,
    SEARCH_SEEDS,
    SeedHit,
    Substrate,
    assemble,
    seed_addresses,
)
from synapse_server.navigation.view import MissingGap
from synapse_server.workspace.config import NavigateConfig
from tests.support.engine_builders import budgets, node, substrate

M1, M2, M3 = "mem:tree:m1", "mem:tree:m2", "mem:tree:m3"
Z1, Z2 = "zk:research:z1", "zk:research:z2"
# breadth-first rings around m1: m1 -> (a, b), a -> (c), b -> (d), c -> (e)
A, B, C, D, E = (f"mem:tree:{x}" for x in "abcde")


class RankedSearch:
    """Search results per family in a fixed rank order, scored like one RRF channel; records the limits asked for."""

    def __init__(self, ranked: Mapping[str, Sequence[str]]) -> None:
        self.ranked = ranked
        self.limits: list[tuple[str, int]] = []

    def __call__(self, question: str, limit: int, families: Sequence[str], *, as_search: bool = False) -> list[SeedHit]:
        family = families[0] if len(families) == 1 else "fused"  # the ranking `synapse search` returns
        self.limits.append((family, limit))
        hits = list(self.ranked.get(family, ()))[:limit]
        return [SeedHit(address, 1 / (60 + rank)) for rank, address in enumerate(hits, start=1)]


@pytest.fixture
def sub() -> Substrate:
    return substrate(
        [
            node(M1, "Costs rose.", links=[B, A]),
            node(M2, "Sharpe fell."),
            node(M3, "Turnover was 38%."),
            node(Z1, "Momentum works.", type="claim"),
            node(Z2, "Momentum fades.", type="claim"),
            node(A, "a", links=[C]),
            node(B, "b", links=[D]),
            node(C, "c", links=[E]),
            node(D, "d"),
            node(E, "e"),
        ]
    )


SEARCH = {"memory": [M1, M2, M3], "zk": [Z1, Z2, M1]}


def test_without_lean_seeds_alternate_between_stores_by_rank_and_drop_duplicates() -> None:
    seeds = seed_addresses("q", RankedSearch(SEARCH), budgets(assembly_cap=10, hops=0), lean=False)
    assert seeds == [M1, Z1, M2, Z2, M3]


class ScoredSearch:
    """Search results per family with explicit fused scores."""

    def __init__(self, scored: Mapping[str, Sequence[tuple[str, float]]]) -> None:
        self.scored = scored

    def __call__(self, question: str, limit: int, families: Sequence[str], *, as_search: bool = False) -> list[SeedHit]:
        family = families[0] if len(families) == 1 else "fused"  # no fused ranking unless a test gives one
        return [SeedHit(a, s) for a, s in self.scored.get(family, ())][:limit]


def test_seeds_are_ordered_by_fused_score_across_stores_ties_by_store_order() -> None:
    search = ScoredSearch({"memory": [(M1, 0.0320), (M2, 0.0319)], "zk": [(Z1, 0.0321), (Z2, 0.0319)]})
    assert seed_addresses("q", search, budgets(assembly_cap=10, hops=0)) == [Z1, M1, M2, Z2]


def test_a_seed_under_the_relevance_floor_of_the_best_seed_is_not_admitted() -> None:
    best = 2 / 61
    search = ScoredSearch(
        {
            "memory": [(M1, best), (M2, best * RELEVANCE_FLOOR), (M3, best * RELEVANCE_FLOOR * 0.99)],
            "zk": [(Z1, 1 / 61)],
        }
    )
    assert seed_addresses("q", search, budgets(assembly_cap=10, hops=0)) == [M1, M2]
    assert seed_addresses("q", search, budgets(assembly_cap=10, hops=0), lean=False) == [M1, Z1, M2, M3]


def test_the_floor_is_relative_so_weak_matches_still_give_their_best_seeds() -> None:
    search = ScoredSearch({"memory": [(M1, 1 / 61), (M2, 1 / 62)], "zk": [(Z1, 1 / 61), (Z2, 1 / 90)]})
    assert seed_addresses("q", search, budgets(assembly_cap=10, hops=0)) == [M1, Z1, M2]


def test_before_the_loop_hops_admit_at_most_one_neighbour_per_seed(sub: Substrate) -> None:
    view = assemble("q", sub, RankedSearch({"memory": [M1]}), budgets(hops=3))
    assert view.order == (M1, A)
    two_seeds = assemble("q", sub, RankedSearch({"memory": [M1, M2]}), budgets(hops=3))
    assert two_seeds.order == (M1, M2, A, B)


def test_seeds_respect_the_total_and_per_source_ceilings() -> None:
    search = RankedSearch(SEARCH)
    assert seed_addresses("q", search, budgets(assembly_cap=3, hops=0)) == [M1, Z1, M2]
    assert {limit for _, limit in search.limits} == {3}


def test_with_hops_half_the_assembly_cap_goes_to_seeds() -> None:
    assert seed_addresses("q", RankedSearch(SEARCH), budgets(assembly_cap=4, hops=1)) == [M1, Z1]


def test_hops_zero_keeps_only_the_seeds(sub: Substrate) -> None:
    view = assemble("q", sub, RankedSearch({"memory": [M1]}), budgets(hops=0))
    assert view.order == (M1,) and view.depth == 0


def test_without_lean_breadth_first_rings_are_admitted_in_frontier_then_address_order(sub: Substrate) -> None:
    view = assemble("q", sub, RankedSearch({"memory": [M1]}), budgets(hops=3), lean=False)
    assert view.order == (M1, A, B, C, D, E)
    assert [view.ref_of(a) for a in view.order] == ["n1", "n2", "n3", "n4", "n5", "n6"]
    assert view.depth == 3


@pytest.mark.parametrize(("hops", "order"), [(1, (M1, A, B)), (2, (M1, A, B, C, D))])
def test_each_hop_adds_exactly_one_ring(sub: Substrate, hops: int, order: tuple[str, ...]) -> None:
    assert assemble("q", sub, RankedSearch({"memory": [M1]}), budgets(hops=hops), lean=False).order == order


def test_assembly_is_deterministic(sub: Substrate) -> None:
    first = assemble("q", sub, RankedSearch(SEARCH), budgets(hops=2))
    again = assemble("q", sub, RankedSearch(SEARCH), budgets(hops=2))
    assert (first.order, dict(first.refs)) == (again.order, dict(again.refs))


def test_the_assembly_cap_bounds_seeds_and_rings(sub: Substrate) -> None:
    view = assemble("q", sub, RankedSearch({"memory": [M1]}), budgets(assembly_cap=2, hops=3), lean=False)
    assert view.order == (M1, A)


@pytest.mark.parametrize(
    ("max_nodes", "token_budget", "admitted"),
    [
        pytest.param(-1, 24_000, 6, id="default-cap-40"),
        pytest.param(3, 24_000, 3, id="hard-cap"),
        pytest.param(0, 24_000, 6, id="zero-token-derived-ceiling-80"),
        pytest.param(0, 900, 3, id="zero-small-budget-ceiling-3"),
    ],
)
def test_max_nodes_regimes_bound_assembly(sub: Substrate, max_nodes: int, token_budget: int, admitted: int) -> None:
    limits = resolve_budgets(
        BudgetRequest(max_nodes=max_nodes, token_budget=token_budget, hops=4), NavigateConfig(max_nodes=40)
    )
    assert len(assemble("q", sub, RankedSearch({"memory": [M1]}), limits, lean=False).order) == admitted


def test_search_hits_outside_the_substrate_are_ignored(sub: Substrate) -> None:
    view = assemble("q", sub, RankedSearch({"memory": ["mem:tree:gone", M2]}), budgets(hops=0))
    assert view.order == (M2,)


def test_a_failed_store_becomes_a_missing_gap_in_the_envelope(sub: Substrate) -> None:
    failure = MissingGap("zk:all:*", "zk store failed to load: OSError")
    view = assemble("q", sub, RankedSearch({"memory": [M2]}), budgets(hops=0), failures=[failure])
    envelope = serialize_render(render_envelope(view, 1200))
    assert "gap missing zk:all:* zk store failed to load: OSError" in envelope.splitlines()
    gaps = parse_render(envelope).gaps
    assert [(g.token, str(g.address)) for g in gaps] == [("missing", "zk:all:*")]


def test_the_first_seeds_are_in_focus(sub: Substrate) -> None:
    view = assemble("q", sub, RankedSearch(SEARCH), budgets(hops=0))
    assert view.focus == (M1, Z1, M2)


def test_epistemics_are_memoised_and_a_verifier_finding_can_only_weaken() -> None:
    calls: list[str] = []

    class Counting:
        def check(self, tether: Tether) -> TetherCheck:
            calls.append(tether.target)
            return TetherCheck(tether, "ok", "ok")

    sub = Substrate.build({M1: node(M1, "Costs rose.")}, Resolvers({TetherKind.GIT_PIN: Counting()}))
    assert sub.epistemics(M1).status == "grounded"
    assert sub.epistemics(M1).status == "grounded"
    assert calls == [M1]
    weakened = sub.add_check(M1, TetherCheck(Tether(TetherKind.CITATION, M1), "failed", "quote refuted"))
    assert (weakened.status, weakened.taints) == ("inferred", frozenset({"refuted"}))
    assert sub.add_check(M1, TetherCheck(Tether(TetherKind.CITATION, M1), "ok", "fine")).status == "inferred"


def test_what_search_ranks_first_is_seeded_even_below_the_relevance_floor() -> None:
    # per family, m3 is 3rd of the memory ranking and z2 only 2nd of zk: both below the floor of the best
    ranked = {"memory": [M1, M2, M3], "zk": [Z1, Z2], "fused": [M1, M3, Z2, M2]}
    seeds = seed_addresses("q", RankedSearch(ranked), budgets(assembly_cap=10, hops=0))
    assert seeds[:SEARCH_SEEDS] == [M1, M3, Z2], "the top of the fused ranking comes first, in its order"
    assert set(seeds) >= {M1, M3, Z2, Z1}


def test_fused_search_seeds_stay_within_the_node_cap() -> None:
    ranked = {"memory": [M1, M2, M3], "zk": [Z1, Z2], "fused": [M3, Z2, M2]}
    assert seed_addresses("q", RankedSearch(ranked), budgets(assembly_cap=2, hops=0)) == [M3, Z2]


def test_the_earlier_assembly_does_not_consult_the_fused_ranking() -> None:
    search = RankedSearch({"memory": [M1], "fused": [M2]})
    assert seed_addresses("q", search, budgets(assembly_cap=10, hops=0), lean=False) == [M1]


def test_a_superseded_seed_brings_the_record_that_replaces_it_into_the_envelope() -> None:
    from synapse_server.navigation.supersession import SUPERSEDED_BY

    old, new = "mem:adr:0001-mysql", "mem:adr:0002-postgres"
    world = substrate(
        [
            node(old, "We will use MySQL.", links=[new], rel=SUPERSEDED_BY),
            node(new, "We will use Postgres."),
            node(M2, "x"),
        ]
    )
    view = assemble("q", world, RankedSearch({"memory": [old, M2]}), budgets(assembly_cap=10, hops=0))
    assert view.order[:2] == (old, new), "the successor follows the record it replaces"
    capped = assemble("q", world, RankedSearch({"memory": [old, M2]}), budgets(assembly_cap=1, hops=0))
    assert capped.order == (old,), "the node cap still bounds the envelope"


def test_a_note_and_its_own_source_take_one_seed_and_the_freed_seed_goes_to_the_next_document() -> None:
    note, source, other = "zk:research:note", "zk:research:src", "zk:research:other"
    world = substrate(
        [
            node(note, "Momentum works.", type="claim", links=[source], rel="cites"),
            node(source, "Momentum works, the paper says.", type="source"),
            node(other, "Momentum fades.", type="claim"),
            node(M1, "Costs rose."),
        ]
    )
    ranked = {"zk": [note, source], "fused": [note, source, other, M1]}
    folded = seed_addresses("q", RankedSearch(ranked), budgets(assembly_cap=10, hops=0), nodes=world.graph.nodes)
    assert folded[:SEARCH_SEEDS] == [note, other, M1], "the source folds into the note that cites only it"
    assert source not in folded, "nor does it come back as a per-family seed"
    unfolded = seed_addresses("q", RankedSearch(ranked), budgets(assembly_cap=10, hops=0))
    assert unfolded[:SEARCH_SEEDS] == [note, source, other], "without the nodes nothing is folded"
