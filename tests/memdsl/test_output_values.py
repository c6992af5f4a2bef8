"""OUTPUT values: vocabularies, hashability, and the graph helpers the engine relies on."""

from __future__ import annotations

import pytest

from memdsl.output import (
    ACTION_VERBS,
    CANONICAL_REASONS,
    INFERENCE_FORMS,
    Abstention,
    ActionCall,
    Answer,
    Claim,
    Output,
    parse_output,
)


def claim(claim_id: str, *premises: str, cites: tuple[str, ...] = ("n1",)) -> Claim:
    return Claim(claim_id, "deduction", cites, premises, None, f"text of {claim_id}")


def test_vocabularies_are_exactly_the_specified_ones() -> None:
    assert INFERENCE_FORMS == (
        "restatement", "deduction", "induction", "abduction", "calculation",
        "comparison", "causal", "analogy", "assumption",
    )  # fmt: skip
    assert ACTION_VERBS == ("expand", "join", "ground", "prune")
    assert CANONICAL_REASONS == ("missing-hop", "stale", "false-premise", "low-coverage")


def test_values_are_hashable_and_compare_by_value() -> None:
    one = Output(2, (ActionCall("expand", ("n1",)),), Abstention("stale", "the pin drifted"))
    two = Output(2, (ActionCall("expand", ("n1",)),), Abstention("stale", "the pin drifted"))
    assert one == two and hash(one) == hash(two) and len({one, two}) == 1
    assert ActionCall("expand", ("n1",)) < ActionCall("prune", ("n1",))


def test_ordered_actions_run_expand_and_join_then_ground_then_prune_stably() -> None:
    prune, ground_a, ground_b = (
        ActionCall("prune", ("n4",)),
        ActionCall("ground", ("n2",)),
        ActionCall("ground", ("n1",)),
    )
    expand, join = ActionCall("expand", ("n3",)), ActionCall("join", ("n1", "n2"))
    value = Output(2, (prune, ground_a, expand, ground_b, join), Abstention("stale", "x"))
    assert value.ordered_actions() == (expand, join, ground_a, ground_b, prune)


def test_ordered_actions_come_from_the_parsed_text_not_its_line_order() -> None:
    text = "@memdsl.out/2\nprune(n2)\nground(n1)\njoin(n1, n2)\n@abstain stale :: drifted\n"
    assert [action.verb for action in parse_output(text).ordered_actions()] == ["join", "ground", "prune"]


def test_closure_is_the_claim_plus_its_transitive_premises() -> None:
    answer = Answer((claim("c1"), claim("c2", "c1"), claim("c3", "c2"), claim("c4", "c1")), None, (), "c3")
    assert answer.closure("c3") == frozenset({"c1", "c2", "c3"})
    assert answer.closure("c1") == frozenset({"c1"})


def test_closure_of_a_long_chain_does_not_recurse() -> None:
    chain = tuple(claim(f"c{k}", *([f"c{k - 1}"] if k > 1 else [])) for k in range(1, 5001))
    assert len(Answer(chain, None, (), "c5000").closure("c5000")) == 5000


def test_claim_lookup_and_closure_of_an_unknown_id_raise_key_error() -> None:
    answer = Answer((claim("c1"),), None, (), "c1")
    assert answer.claim("c1").id == "c1"
    with pytest.raises(KeyError):
        answer.claim("c2")
    with pytest.raises(KeyError):
        answer.closure("c2")


def test_answer_property_is_none_for_an_abstention() -> None:
    assert Output(2, (), Abstention("stale", "x")).answer is None
    answer = Answer((claim("c1"),), None, (), "c1")
    assert Output(1, (), answer).answer is answer
