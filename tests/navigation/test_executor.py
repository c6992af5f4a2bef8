"""The executor runs the model's actions against the substrate, bounded by the node cap and the hop budget."""

from __future__ import annotations

import itertools

import pytest

from memdsl import ActionCall, parse_response, serialize_response
from synapse_server.navigation.executor import Execution, execute, ordered
from synapse_server.navigation.substrate import Substrate
from synapse_server.navigation.view import View
from tests.support.engine_builders import cited, node, substrate, view_of

HUB = "mem:tree:hub"  # n1: linked to a, b, c
A, B, C = "mem:tree:a", "mem:tree:b", "mem:tree:c"
FAR = "mem:tree:far"  # c -> d -> far: three edges from hub
D = "mem:tree:d"
ISLAND = "mem:tree:island"  # no edges at all
NOTE = "zk:research:note"  # cited note; its source holds a sentence the body does not
LONG_BODY = "Costs rose to 8 bps in May. " + "The cost model was re-estimated on the April fills. " * 10
SOURCE = "The breakeven cost is 50 bps. Costs rose to 8 bps in May."


@pytest.fixture
def sub() -> Substrate:
    return substrate(
        [
            node(HUB, "Hub.", links=[A, B, C]),
            node(A, "a"),
            node(B, "b"),
            node(C, "c", links=[D]),
            node(D, "d", links=[FAR]),
            node(FAR, "far"),
            node(ISLAND, LONG_BODY),
            cited(NOTE, "Costs rose to 8 bps.", "tca"),
            node("mem:tree:guess", "Costs rose to 8 bps.", status="inferred"),
        ],
        sources={"tca": SOURCE},
    )


def call(verb: str, *args: str, **kwargs: str) -> ActionCall:
    return ActionCall(verb, args, tuple(kwargs.items()))


def run(
    view: View, sub: Substrate, *actions: ActionCall, loop_cap: int | None = 40, hops_left: int = 2, chars: int = 100
) -> Execution:
    return execute(view, sub, actions, loop_cap=loop_cap, hops_left=hops_left, max_body_chars=chars)


def test_actions_are_ordered_expand_and_join_then_ground_then_prune_stably() -> None:
    actions = [call("prune", "n1"), call("ground", "n2"), call("join", "n1", "n2"), call("expand", "n3")]
    assert [a.verb for a in ordered(actions)] == ["join", "expand", "ground", "prune"]


def test_expand_admits_every_unadmitted_neighbour_in_address_order(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB, B]), sub, call("expand", "n1"))
    assert done.view.order == (HUB, B, A, C)
    assert [n.ref for n in done.response.nodes] == ["n3", "n4"]
    assert (done.response.status, done.topologic, done.view.depth) == ("ok", True, 1)


def test_expand_respects_the_loop_cap_and_says_so(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB]), sub, call("expand", "n1"), loop_cap=2)
    assert done.view.order == (HUB, A)
    assert done.response.status == "partial"
    assert tuple(map(str, done.refused)) == ("expand: node cap reached, 2 node(s) not admitted",)


def test_no_loop_cap_means_expand_admits_everything(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB]), sub, call("expand", "n1"), loop_cap=None)
    assert done.view.order == (HUB, A, B, C)


def test_expand_and_join_are_refused_once_the_hop_budget_is_spent(sub: Substrate) -> None:
    view = view_of(sub, [HUB, FAR])
    done = run(view, sub, call("expand", "n1"), call("join", "n1", "n2"), hops_left=0)
    assert done.view.order == view.order
    assert tuple(map(str, done.refused)) == ("expand: hop budget exhausted", "join: hop budget exhausted")
    assert (done.topologic, done.response.status) == (False, "partial")


def test_join_admits_the_shortest_path_between_two_nodes(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB, FAR]), sub, call("join", "n1", "n2"))
    assert done.view.order == (HUB, FAR, C, D)
    assert done.response.status == "ok"


def test_join_to_a_node_without_relations_names_that_node_as_the_reason(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB, ISLAND]), sub, call("join", "n1", "n2"))
    assert done.view.order == (HUB, ISLAND)
    assert reasons(done) == [
        ("missing", ISLAND, "join(n1, n2): n2 is a decision node with no relations, so no path reaches it")
    ]
    assert done.response.status == "partial"


# --- an expand or join that adds nothing says why -------------------------------------------


def reasons(done: Execution) -> list[tuple[str, str, str]]:
    """The gaps the action itself produced (not the per-node gaps of what it showed)."""
    return [(g.token, str(g.address), g.detail) for g in done.response.gaps if g.detail.split("(", 1)[0] in VERBS]


VERBS = {"expand", "join", "ground", "prune"}


def test_expand_of_a_node_without_relations_says_it_cannot_be_expanded(sub: Substrate) -> None:
    done = run(view_of(sub, [ISLAND]), sub, call("expand", "n1"))
    assert done.view.order == (ISLAND,)
    assert reasons(done) == [
        ("missing", ISLAND, "expand(n1) added nothing: this decision node has no relations and cannot be expanded")
    ]
    assert (done.response.status, done.topologic) == ("partial", True)


def test_expand_whose_neighbours_are_all_shown_names_them(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB, A, B, C]), sub, call("expand", "n1"))
    assert done.view.order == (HUB, A, B, C)
    assert reasons(done) == [
        ("missing", HUB, "expand(n1) added nothing: every neighbour is already shown (n2, n3, n4)")
    ]


def test_expand_whose_relations_all_point_outside_the_workspace_says_none_reaches_a_node() -> None:
    fresh = substrate([node(HUB, "Hub.", links=["mem:tree:gone", "mem:tree:lost"])])
    done = run(view_of(fresh), fresh, call("expand", "n1"))
    assert reasons(done) == [("missing", HUB, "expand(n1) added nothing: none of its 2 relation(s) reaches a node")]


def test_an_expand_that_admits_nodes_adds_no_reason(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB, A]), sub, call("expand", "n1"))
    assert done.view.order == (HUB, A, B, C)
    assert (reasons(done), done.response.status) == ([], "ok")


def test_join_beyond_the_path_limit_says_no_short_path_links_the_pair() -> None:
    chain = [f"mem:tree:c{i}" for i in range(6)]
    fresh = substrate([node(a, a, links=[b]) for a, b in itertools.pairwise(chain)] + [node(chain[-1], "end")])
    done = run(view_of(fresh, [chain[0], chain[-1]]), fresh, call("join", "n1", "n2"))
    assert done.view.order == (chain[0], chain[-1])
    assert reasons(done) == [("missing", chain[0], "join(n1, n2): no path of at most 3 relations links them")]


def test_join_of_directly_related_nodes_says_nothing_lies_between_them(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB, A]), sub, call("join", "n1", "n2"))
    assert reasons(done) == [("missing", HUB, "join(n1, n2) added nothing: they are directly related")]


def test_join_whose_path_is_already_shown_names_the_nodes_between(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB, FAR, C, D]), sub, call("join", "n1", "n2"))
    assert done.view.order == (HUB, FAR, C, D)
    assert reasons(done) == [
        ("missing", HUB, "join(n1, n2) added nothing: every node between them is already shown (n3, n4)")
    ]


def test_a_join_that_admits_some_nodes_still_names_the_pair_no_path_links(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB, FAR, ISLAND]), sub, call("join", "n1", "n2", "n3"))
    assert done.view.order == (HUB, FAR, ISLAND, C, D)
    assert reasons(done) == [
        ("missing", ISLAND, "join(n2, n3): n3 is a decision node with no relations, so no path reaches it")
    ]


def test_a_refused_expand_says_why_in_the_response_and_keeps_its_refusal(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB]), sub, call("expand", "n1"), hops_left=0)
    assert tuple(map(str, done.refused)) == ("expand: hop budget exhausted",)
    assert reasons(done) == [("missing", HUB, "expand(n1) not run: no expand/join round is left")]


def test_a_node_cap_that_admits_part_of_an_expand_says_how_much(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB]), sub, call("expand", "n1"), loop_cap=2)
    assert reasons(done) == [("missing", HUB, "expand(n1): the node cap admitted 1 of 3 new node(s)")]


def test_an_action_on_a_pruned_ref_an_unshown_node_or_no_node_says_which(sub: Substrate) -> None:
    view = view_of(sub, [HUB, A]).prune(A)
    done = run(
        view, sub, call("expand", "n2"), call("ground", B), call("expand", "mem:tree:nowhere"), call("ground", "n9")
    )
    assert reasons(done) == [
        ("missing", A, "expand(n2) not run: n2 was pruned from the envelope"),
        ("unresolved", "mem:tree:nowhere", "expand(mem:tree:nowhere) not run: no node has this address"),
        ("missing", B, f"ground({B}) not run: the node is not shown; expand or join a shown node that relates to it"),
    ]
    assert len(done.refused) == 4


def test_every_reason_travels_in_a_response_that_parses_back(sub: Substrate) -> None:
    view = view_of(sub, [HUB, A, B, C, ISLAND])
    done = run(view, sub, call("expand", "n1"), call("join", "n1", "n5"), call("expand", "n5"))
    assert len(reasons(done)) == 3
    assert parse_response(serialize_response(done.response)) == done.response


def test_an_unknown_or_pruned_ref_is_refused_not_raised(sub: Substrate) -> None:
    view = view_of(sub, [HUB, A]).prune(A)
    done = run(view, sub, call("expand", "n9"), call("ground", "n2"))
    assert tuple(map(str, done.refused)) == ("expand: unknown ref n9", "ground: unknown ref n2")
    assert done.view.order == (HUB,)


def test_ground_lifts_the_elision_of_a_long_body(sub: Substrate) -> None:
    view = view_of(sub, [ISLAND])
    done = run(view, sub, call("ground", "n1"))
    assert ISLAND in done.view.unelided
    (shown,) = done.response.nodes
    assert (shown.elided, shown.body) == (False, LONG_BODY)
    assert not [g for g in done.response.gaps if g.token == "elided"]


def test_a_quote_verifier_without_a_quote_is_unverifiable_and_strengthens_nothing(sub: Substrate) -> None:
    view = view_of(sub, ["mem:tree:guess", HUB])
    done = run(view, sub, call("ground", "n1", verifier="quote"), call("ground", "n2", verifier="quote"))
    assert [(v.outcome, v.detail) for v in done.verifications] == [
        ("unverifiable", "quote verifier called without a quote"),
        ("unverifiable", "quote verifier called without a quote"),
    ]
    assert done.view.epistemics == view.epistemics


def test_a_quote_found_in_an_unverified_body_does_not_promote_it(sub: Substrate) -> None:
    view = view_of(sub, ["mem:tree:guess"])
    done = run(view, sub, call("ground", "n1", verifier="quote", quote="Costs rose to 8 bps."))
    assert [v.outcome for v in done.verifications] == ["ok"]
    assert done.view.epistemics["mem:tree:guess"].status == "inferred"


def test_a_quote_found_only_in_the_cited_source_verifies(sub: Substrate) -> None:
    done = run(view_of(sub, [NOTE]), sub, call("ground", "n1", verifier="quote", quote="The breakeven cost is 50 bps."))
    assert [(v.outcome, v.detail) for v in done.verifications] == [("ok", "quote found verbatim in a cited source")]
    assert done.view.epistemics[NOTE].status == "grounded"


def test_a_failed_quote_verification_taints_the_node(sub: Substrate) -> None:
    fresh = substrate([node(HUB, "Costs rose to 8 bps.")])
    done = run(view_of(fresh), fresh, call("ground", "n1", verifier="quote", quote="Costs fell to 2 bps."))
    assert [v.outcome for v in done.verifications] == ["failed"]
    facts = done.view.epistemics[HUB]
    assert (facts.status, facts.taints, facts.verified) == ("inferred", frozenset({"refuted"}), False)
    assert fresh.epistemics(HUB).taints == frozenset({"refuted"})
    assert ("unresolved", HUB) in [(g.token, str(g.address)) for g in done.response.gaps]


def test_an_unknown_verifier_is_unverifiable(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB]), sub, call("ground", "n1", verifier="oracle"))
    assert [v.outcome for v in done.verifications] == ["unverifiable"]
    assert done.view.epistemics[HUB].status == "grounded"


def test_prune_removes_a_node_but_its_ref_is_never_reused(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB, A]), sub, call("prune", "n2"), call("expand", "n1"))
    assert done.view.order == (HUB, B, C)
    assert [done.view.ref_of(a) for a in done.view.order] == ["n1", "n3", "n4"]


def test_the_action_response_parses_and_offers_actions_only_on_nodes_it_contains(sub: Substrate) -> None:
    done = run(view_of(sub, [HUB]), sub, call("expand", "n1"), call("ground", "n1"))
    text = serialize_response(done.response)
    assert parse_response(text) == done.response
    refs = {n.ref for n in done.response.nodes}
    assert all(a.ref in refs for n in done.response.nodes for a in n.aff)
