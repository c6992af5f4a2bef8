"""The grounding router: it re-derives every claim's standing from the envelope and decides answer or abstain.

Each test routes a real, strictly parsed OUTPUT artifact against a real view
built from real nodes and a resolver table (see ``engine_builders``).
"""

from __future__ import annotations

import re

import pytest

from memdsl import Abstention, Claim, parse_output
from synapse_server.navigation.claims import REASON_ORDER, Decision, ordered_reasons
from synapse_server.navigation.projector import trace_surface
from synapse_server.navigation.router import judge_claim, model_abstention
from synapse_server.navigation.surfaces import Telemetry
from synapse_server.navigation.view import View
from tests.support.engine_builders import answer, artifact, cited, decide, node, world

COST = "mem:tree:cost"  # n1 grounded (git pin)
SHARPE = "mem:tree:sharpe"  # n2 measured (content hash)
PREMIUM = "zk:research:premium"  # n3 grounded (citation, quote verified)
BREAKEVEN = "zk:research:breakeven"  # n4 refuted (quote not in the source)
DARK = "zk:execution:dark-pool"  # n5 unresolved (no source record)
CARRY = "mem:tree:carry"  # n6 stale pin
PIN = "mem:tree:pin"  # n7 outdated pin (grounded + disclosure)
MOMENTUM = "mem:tree:momentum"  # n8 contested
GUESS = "mem:tree:guess"  # n9 no tether: inferred
FIRMS = "mem:tree:firms"  # n10 grounded, compound sentences
REBALANCE = "mem:tree:rebalance"  # n11 grounded, words only

SOURCE_TEXT = "Momentum earned 0.9% per month before costs. The breakeven round-trip cost is 50 bps."


@pytest.fixture(scope="module")
def view() -> View:
    return world(
        node(COST, "Transaction costs increased from 5 bps to 8 bps."),
        node(SHARPE, "Sharpe decreased from 1.4 to 1.1.", status="measured"),
        cited(PREMIUM, "Momentum earned 0.9% per month before costs.", "okafor", quote="earned 0.9% per month"),
        cited(BREAKEVEN, "The breakeven round-trip cost is 10 bps.", "okafor", quote="cost is 10 bps"),
        cited(DARK, "Dark-pool fills saved 1.2 bps per trade.", "hall"),
        node(CARRY, "The carry signal lost 3.5% over 2024."),
        node(PIN, "Costs were raised to 8 bps in May."),
        node(MOMENTUM, "Momentum works in every asset class.", contested=True),
        node(GUESS, "Costs will probably rise to 9 bps.", status="inferred"),
        node(
            FIRMS,
            "Revenue rose to $5M and costs fell to $3M in the same quarter. "
            "Revenue was $4.2M in 2025. Orders totalled 1,200 in May. Fees came to 2.5% of turnover.",
        ),
        node(REBALANCE, "The backtest rebalances the portfolio on the last trading day of each month."),
        states={CARRY: "stale", PIN: "outdated"},
        sources={"okafor": SOURCE_TEXT},
    )


def restate(ref: str, text: str) -> str:
    return answer(f"claim c1 [restatement] cites {ref} :: {text}")


# --- verbatim versus paraphrase ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ref", "text", "status"),
    [
        pytest.param("n1", "Transaction costs increased from 5 bps to 8 bps.", "grounded", id="git-pin-grounded"),
        pytest.param("n1", "transaction COSTS increased, from 5 bps to 8 bps", "grounded", id="case-and-punctuation"),
        pytest.param("n2", "Sharpe decreased from 1.4 to 1.1.", "measured", id="content-hash-measured"),
        pytest.param("n3", "Momentum earned 0.9% per month before costs.", "grounded", id="verified-citation"),
        pytest.param("mem:tree:cost", "Transaction costs increased from 5 bps to 8 bps.", "grounded", id="by-address"),
        pytest.param("n10", "Orders totalled 1200 in May.", "grounded", id="thousands-separator-is-formatting"),
    ],
)
def test_verbatim_restatement_of_a_verified_node_answers_with_its_status(
    view: View, ref: str, text: str, status: str
) -> None:
    decision = decide(restate(ref, text), view)
    assert (decision.verdict, decision.status, decision.reasons) == ("answer", status, ())
    assert decision.claims["c1"].extrapolation is False


def test_paraphrase_of_a_verified_node_is_a_hedged_inferred_answer(view: View) -> None:
    decision = decide(
        restate("n11", "The backtest rebalanced the portfolio on the last trading day of each month."), view
    )
    assert (decision.verdict, decision.status, decision.reasons) == ("answer", "inferred", ())
    assert decision.claims["c1"].extrapolation is True


def test_a_percentage_restated_in_basis_points_is_an_inferred_answer(view: View) -> None:
    decision = decide(restate("n10", "Fees came to 250 bps of turnover."), view)
    assert (decision.verdict, decision.status) == ("answer", "inferred"), decision.problem_lines


def test_a_percentage_restated_as_a_hundred_times_itself_abstains(view: View) -> None:
    decision = decide(restate("n10", "Fees came to 250% of turnover."), view)
    assert (decision.verdict, decision.reasons) == ("abstain", ("low-coverage",))


def test_restating_an_unverified_node_is_not_an_answer(view: View) -> None:
    decision = decide(restate("n9", "Costs will probably rise to 9 bps."), view)
    assert (decision.verdict, decision.reasons) == ("abstain", ("low-coverage",))


# --- numeric traps -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ref", "text"),
    [
        pytest.param("n1", "Transaction costs increased from 5 bps to 9 bps.", id="changed-digit"),
        pytest.param("n1", "Transaction costs increased from -5 bps to 8 bps.", id="sign-flip"),
        pytest.param("n1", "Transaction costs increased from 8 bps to 5 bps.", id="reversed-order"),
        pytest.param("n1", "Transaction costs increased from 5% to 8%.", id="unit-swap"),
        pytest.param("n10", "Revenue rose to $3M.", id="carved-clause-number-from-the-other-clause"),
        pytest.param("n10", "Costs fell to $5M.", id="carved-clause-label-from-the-other-clause"),
        pytest.param("n10", "Orders totalled 12,00 in May.", id="thousands-separator-moved"),
        pytest.param("n10", "Net income was $4.2M in 2025.", id="label-swap-revenue-for-net-income"),
        pytest.param("n2", "Sharpe decreased from 1.4 to 1.0.", id="changed-digit-measured"),
    ],
)
def test_each_numeric_trap_abstains_low_coverage(view: View, ref: str, text: str) -> None:
    decision = decide(restate(ref, text), view)
    assert (decision.verdict, decision.reasons) == ("abstain", ("low-coverage",))
    assert decision.claims["c1"].licensed is False


CALC_PREMISE = "claim c1 [restatement] cites n1 :: Transaction costs increased from 5 bps to 8 bps."


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        pytest.param(
            'claim c2 [calculation] from c1 derive "(8 - 5) / 5 * 100" :: Transaction costs increased by 60%.',
            "answer",
            id="correct-percentage-from-premise",
        ),
        pytest.param(
            'claim c2 [calculation] from c1 derive "8 - 5" :: Transaction costs increased by 3 bps.',
            "answer",
            id="correct-difference-from-premise",
        ),
        pytest.param(
            'claim c2 [calculation] from c1 derive "(8 - 5) / 5 * 100" :: Transaction costs increased by 70%.',
            "abstain",
            id="wrong-derived-percentage",
        ),
        pytest.param(
            'claim c2 [calculation] from c1 derive "(9 - 5) / 5 * 100" :: Transaction costs increased by 80%.',
            "abstain",
            id="operand-not-in-the-evidence",
        ),
        pytest.param(
            "claim c2 [deduction] from c1 :: Transaction costs increased by 60%.",
            "abstain",
            id="derived-figure-without-derive",
        ),
    ],
)
def test_a_derived_figure_is_licensed_only_by_an_evaluated_derivation(view: View, claim: str, verdict: str) -> None:
    decision = decide(answer(CALC_PREMISE, claim, conclude="c2"), view)
    assert decision.verdict == verdict
    if verdict == "answer":
        assert decision.status == "grounded"
    else:
        assert decision.reasons == ("low-coverage",)


def test_a_calculation_citing_a_verified_node_directly_is_licensed(view: View) -> None:
    text = answer('claim c1 [calculation] cites n1 derive "(8 - 5) / 5 * 100" :: Transaction costs increased by 60%.')
    decision = decide(text, view)
    assert (decision.verdict, decision.status) == ("answer", "grounded")


# --- pooling -------------------------------------------------------------------------------------


def test_one_claim_citing_two_nodes_for_its_two_numbers_is_not_licensed(view: View) -> None:
    text = answer(
        "claim c1 [deduction] cites n1, n2 :: Transaction costs increased to 8 bps as Sharpe decreased to 1.1."
    )
    decision = decide(text, view)
    assert (decision.verdict, decision.reasons) == ("abstain", ("low-coverage",))


def test_a_premise_only_claim_pooling_numbers_from_two_premises_is_not_licensed(view: View) -> None:
    text = answer(
        CALC_PREMISE,
        "claim c2 [restatement] cites n2 :: Sharpe decreased from 1.4 to 1.1.",
        "claim c3 [deduction] from c1, c2 :: Transaction costs increased to 8 bps and Sharpe decreased to 1.1.",
        conclude="c3",
    )
    decision = decide(text, view)
    assert decision.claims["c1"].licensed and decision.claims["c2"].licensed
    assert decision.claims["c3"].licensed is False
    assert (decision.verdict, decision.reasons) == ("abstain", ("low-coverage",))


def test_a_premise_only_claim_whose_numbers_one_premise_covers_is_licensed(view: View) -> None:
    text = answer(
        CALC_PREMISE,
        "claim c2 [restatement] cites n2 :: Sharpe decreased from 1.4 to 1.1.",
        "claim c3 [deduction] from c1, c2 :: Sharpe decreased from 1.4 to 1.1.",
        conclude="c3",
    )
    assert decide(text, view).verdict == "answer"


# --- unbound prose -------------------------------------------------------------------------------


def test_a_cite_line_whose_assertion_is_not_the_bound_claims_text_abstains_low_coverage(view: View) -> None:
    prose = "Transaction costs increased from 5 bps to 8 bps, which doubled profits."
    decision = decide(answer(CALC_PREMISE, prose=prose, cites=[("c1", prose)]), view)
    assert (decision.verdict, decision.reasons) == ("abstain", ("low-coverage",))
    assert decision.claims["c1"].licensed is True
    assert decision.detail == "a prose assertion does not restate the claim it is bound to"


@pytest.mark.parametrize(
    "wrapped",
    [
        pytest.param("Transaction costs increased from 5 bps to [8 bps](https://pay.example/now).", id="link"),
        pytest.param("Transaction costs increased from 5 bps to 8 bps. <img src=x onerror=alert(1)>", id="html"),
        pytest.param("![](https://pixel.example/p.png) Transaction costs increased from 5 bps to 8 bps.", id="image"),
    ],
)
def test_markup_smuggled_into_a_verbatim_answer_abstains_low_coverage(view: View, wrapped: str) -> None:
    claim = f"claim c1 [restatement] cites n1 :: {wrapped}"
    decision = decide(answer(claim, prose=wrapped, cites=[("c1", wrapped)]), view)
    assert (decision.verdict, decision.reasons, decision.answer_text) == ("abstain", ("low-coverage",), None)
    assert "markup" in decision.detail


# --- abstention reasons and their order ----------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "reason"),
    [
        pytest.param(
            "claim c1 [restatement] cites n99 :: Costs rose to 8 bps.", "missing-hop", id="ref-not-in-envelope"
        ),
        pytest.param(
            "claim c1 [restatement] cites mem:tree:absent :: Costs rose to 8 bps.", "missing-hop", id="unknown-address"
        ),
        pytest.param(
            "claim c1 [restatement] cites n5 :: Dark-pool fills saved 1.2 bps per trade.",
            "missing-hop",
            id="unresolved-citation",
        ),
        pytest.param("claim c1 [restatement] cites n6 :: The carry signal lost 3.5% over 2024.", "stale", id="stale"),
        pytest.param(
            "claim c1 [restatement] cites n4 :: The breakeven round-trip cost is 10 bps.",
            "false-premise",
            id="refuted-quote",
        ),
        pytest.param(
            "claim c1 [restatement] cites n9 :: Costs will probably rise to 9 bps.", "low-coverage", id="unverified"
        ),
    ],
)
def test_each_defect_abstains_with_its_reason(view: View, claim: str, reason: str) -> None:
    decision = decide(answer(claim), view)
    assert (decision.verdict, decision.status, decision.reasons) == ("abstain", None, (reason,))
    assert decision.answer_text is None


CLAIMS_BY_REASON = {
    "missing-hop": "claim c{i} [restatement] cites n99 :: Costs rose to 8 bps.",
    "stale": "claim c{i} [restatement] cites n6 :: The carry signal lost 3.5% over 2024.",
    "false-premise": "claim c{i} [restatement] cites n4 :: The breakeven round-trip cost is 10 bps.",
    "low-coverage": "claim c{i} [restatement] cites n9 :: Costs will probably rise to 9 bps.",
}


@pytest.mark.parametrize(
    "present",
    [
        pytest.param(("low-coverage", "missing-hop"), id="missing-hop-over-low-coverage"),
        pytest.param(("false-premise", "stale"), id="stale-over-false-premise"),
        pytest.param(("low-coverage", "false-premise"), id="false-premise-over-low-coverage"),
        pytest.param(("low-coverage", "stale", "missing-hop"), id="missing-hop-over-stale"),
        pytest.param(("low-coverage", "false-premise", "stale", "missing-hop"), id="all-four"),
    ],
)
def test_several_reasons_in_the_closure_come_most_specific_first(view: View, present: tuple[str, ...]) -> None:
    premises = [CLAIMS_BY_REASON[r].format(i=i) for i, r in enumerate(present, start=1)]
    conclusion = f"claim c{len(present) + 1} [deduction] from {', '.join(f'c{i}' for i in range(1, len(present) + 1))}"
    text = answer(*premises, f"{conclusion} :: Costs rose.", conclude=f"c{len(present) + 1}")
    decision = decide(text, view)
    assert decision.verdict == "abstain"
    assert decision.reasons == tuple(r for r in REASON_ORDER if r in present)


def test_a_claim_citing_a_stale_node_beside_a_licensing_one_still_abstains_stale(view: View) -> None:
    decision = decide(restate("n6, n1", "Transaction costs increased from 5 bps to 8 bps."), view)
    assert (decision.verdict, decision.reasons) == ("abstain", ("stale",))


def test_unbound_prose_adds_low_coverage_after_the_specific_reason(view: View) -> None:
    prose = "The carry signal lost 3.5% over 2024, so carry is dead."
    text = answer(
        "claim c1 [restatement] cites n6 :: The carry signal lost 3.5% over 2024.", prose=prose, cites=[("c1", prose)]
    )
    assert decide(text, view).reasons == ("stale", "low-coverage")


def test_ordered_reasons_keeps_the_canonical_order_whatever_the_input_order() -> None:
    assert ordered_reasons(("low-coverage", "false-premise", "stale", "missing-hop")) == REASON_ORDER


@pytest.mark.parametrize(
    ("label", "reason"),
    [("stale", "stale"), ("missing-hop", "missing-hop"), ("i-am-sure", "low-coverage")],
)
def test_a_model_abstention_keeps_a_canonical_label_and_maps_others_to_low_coverage(label: str, reason: str) -> None:
    decision = model_abstention(Abstention(label, "whatever the model says"))
    assert (decision.verdict, decision.reasons) == ("abstain", (reason,))
    assert "whatever the model says" not in decision.detail


# --- status: contested, inference-form caps, weakest link, outdated ------------------------------


def test_contested_ground_gives_a_hedged_inferred_answer(view: View) -> None:
    decision = decide(restate("n8", "Momentum works in every asset class."), view)
    assert (decision.verdict, decision.status) == ("answer", "inferred")
    assert decision.claims["c1"].contested is True


@pytest.mark.parametrize(
    ("form", "status", "extrapolation"),
    [
        ("induction", "inferred", True),
        ("abduction", "inferred", True),
        ("causal", "inferred", True),
        ("analogy", "inferred", True),
        ("assumption", "inferred", True),
        ("deduction", "grounded", False),
        ("comparison", "grounded", False),
    ],
)
def test_inference_form_caps_extrapolations_and_deduction_keeps_the_minimum(
    view: View, form: str, status: str, extrapolation: bool
) -> None:
    text = answer(
        CALC_PREMISE, f"claim c2 [{form}] from c1 :: Transaction costs increased from 5 bps to 8 bps.", conclude="c2"
    )
    decision = decide(text, view)
    assert (decision.verdict, decision.status) == ("answer", status)
    assert decision.claims["c2"].extrapolation is extrapolation


def test_weakest_link_across_premises_grounded_and_measured_is_measured(view: View) -> None:
    text = answer(
        CALC_PREMISE,
        "claim c2 [restatement] cites n2 :: Sharpe decreased from 1.4 to 1.1.",
        "claim c3 [deduction] from c1, c2 :: Sharpe decreased from 1.4 to 1.1.",
        conclude="c3",
    )
    decision = decide(text, view)
    assert [decision.claims[c].status for c in ("c1", "c2", "c3")] == ["grounded", "measured", "measured"]
    assert (decision.verdict, decision.status) == ("answer", "measured")


@pytest.mark.parametrize("form", ["deduction", "comparison"])
def test_number_free_deduction_in_new_words_abstains_low_coverage(view: View, form: str) -> None:
    cited = answer(f"claim c1 [{form}] cites n1 :: The moon is made of cheese.")
    from_premise = answer(
        CALC_PREMISE, f"claim c2 [{form}] from c1 :: Transaction costs increased and Sharpe decreased.", conclude="c2"
    )
    for text, conclusion in ((cited, "c1"), (from_premise, "c2")):
        decision = decide(text, view)
        assert (decision.verdict, decision.reasons) == ("abstain", ("low-coverage",))
        assert decision.claims[conclusion].licensed is False
        assert any(f"{conclusion}: words" in line for line in decision.problem_lines), decision.problem_lines


def test_a_licensing_outdated_node_keeps_its_status_and_flags_the_decision(view: View) -> None:
    decision = decide(restate("n7", "Costs were raised to 8 bps in May."), view)
    assert (decision.verdict, decision.status, decision.outdated) == ("answer", "grounded", True)
    assert decision.claims["c1"].outdated is True


def test_an_outdated_premise_carries_the_flag_to_the_conclusion(view: View) -> None:
    text = answer(
        "claim c1 [restatement] cites n7 :: Costs were raised to 8 bps in May.",
        "claim c2 [deduction] from c1 :: Costs were raised to 8 bps in May.",
        conclude="c2",
    )
    decision = decide(text, view)
    assert decision.outdated is True and decision.claims["c2"].outdated is True


def test_a_fresh_answer_is_not_flagged_outdated(view: View) -> None:
    assert decide(restate("n1", "Transaction costs increased from 5 bps to 8 bps."), view).outdated is False


# --- the legacy OUTPUT v1 path -------------------------------------------------------------------


def test_v1_answer_text_is_the_conclusion_claim_text(view: View) -> None:
    text = artifact(
        "@answer",
        "claim c1 [restatement] cites n1 :: Transaction costs increased from 5 bps to 8 bps.",
        "claim c2 [deduction] from c1 :: Transaction costs increased from 5 bps to 8 bps.",
        "conclude c2",
        version=1,
    )
    decision = decide(text, view)
    assert (decision.verdict, decision.version, decision.status) == ("answer", 1, "grounded")
    assert decision.answer_text == "Transaction costs increased from 5 bps to 8 bps."
    assert decision.assertions == (("Transaction costs increased from 5 bps to 8 bps.", "c2"),)


def test_v1_unlicensed_conclusion_abstains(view: View) -> None:
    text = artifact(
        "@answer", "claim c1 [restatement] cites n1 :: Transaction costs increased to 9 bps.", "conclude c1", version=1
    )
    assert decide(text, view).reasons == ("low-coverage",)


# --- whole sentences -----------------------------------------------------------------------------


def test_verbatim_restatement_of_a_whole_compound_sentence_is_grounded(view: View) -> None:
    decision = decide(restate("n10", "Revenue rose to $5M and costs fell to $3M in the same quarter."), view)
    assert (decision.verdict, decision.status, decision.reasons) == ("answer", "grounded", ())


@pytest.mark.parametrize(
    "claim",
    [
        pytest.param("claim c2 [deduction] from c1 :: Revenue rose to $3M.", id="carved-number"),
        pytest.param(
            'claim c2 [calculation] from c1 derive "5 - 3" :: Revenue exceeded costs by $2M.',
            id="derived-across-clauses",
        ),
    ],
)
def test_a_premise_restating_a_compound_sentence_cannot_lend_numbers_across_its_clauses(view: View, claim: str) -> None:
    text = answer(
        "claim c1 [restatement] cites n10 :: Revenue rose to $5M and costs fell to $3M in the same quarter.",
        claim,
        conclude="c2",
    )
    decision = decide(text, view)
    assert decision.claims["c1"].licensed is True
    assert (decision.verdict, decision.reasons) == ("abstain", ("low-coverage",))


def test_a_refuted_citation_says_which_node_and_what_its_verifier_found_without_a_redundant_line(view: View) -> None:
    decision = decide(restate("n4", "The breakeven round-trip cost for momentum is 10 bps."), view)
    assert decision.reasons == ("false-premise",)
    lines = [line for line in decision.problem_lines if line.startswith("c1: false-premise: ")]
    assert lines and lines[0].startswith(f"c1: false-premise: {BREAKEVEN}: ")
    assert not any(": unverified:" in line for line in decision.problem_lines), decision.problem_lines


def test_a_false_premise_headline_names_the_refuted_note_its_title_and_what_was_not_found(view: View) -> None:
    decision = decide(restate("n4", "The breakeven round-trip cost for momentum is 10 bps."), view)
    assert decision.detail.startswith(f"the cited breakeven ({BREAKEVEN}) is refuted by its verifier: quote not found")
    assert not re.search(r"\bn\d+\b", decision.detail)


def test_a_low_coverage_headline_says_what_failed_with_addresses_not_envelope_refs(view: View) -> None:
    decision = decide(restate("n1", "Transaction costs increased from 5 bps to 8 bps for retail clients."), view)
    assert decision.detail.startswith("no verified clause says what the answer claims (words: ")
    assert COST in decision.detail and not re.search(r"\bn\d+\b", decision.detail)


def test_a_navigators_low_coverage_abstention_names_the_closest_evidence_read_never_its_words(view: View) -> None:
    decision = model_abstention(Abstention("low-coverage", "the answer is 42"), view)
    first = view.order[0]
    assert decision.detail == (
        "the navigator abstained (low-coverage): nothing it read answers the question; "
        f"the closest evidence was {view.graph.nodes[first].title} ({first})"
    )
    assert "42" not in decision.detail


# --- a false-premise abstention says what the evidence says instead --------------------------------

ABSTAINED = "the navigator abstained (false-premise)"
REASON = "the question assumes costs fell; the answer is 3 bps"


def false_premise(view: View, *claims: str, label: str = "false-premise") -> Decision:
    """Parse ``@abstain <label> :: REASON`` with its claim lines strictly, then decide it against ``view``."""
    output = parse_output(artifact(f"@abstain {label} :: {REASON}", *claims))
    assert isinstance(output.terminal, Abstention)
    return model_abstention(output.terminal, view)


def test_a_false_premise_abstention_quotes_its_licensed_claim_with_the_address(view: View) -> None:
    decision = false_premise(
        view, "claim c1 [restatement] cites n1 :: Transaction costs increased from 5 bps to 8 bps."
    )
    assert (
        decision.detail
        == f'{ABSTAINED}: the evidence says: "Transaction costs increased from 5 bps to 8 bps." ({COST})'
    )
    assert (decision.verdict, decision.reasons, decision.conclusion) == ("abstain", ("false-premise",), None)
    assert list(decision.claims) == ["c1"] and decision.claims["c1"].licensed


def test_a_conjunction_of_two_nodes_is_quoted_once_with_both_addresses(view: View) -> None:
    decision = false_premise(
        view,
        "claim c1 [restatement] cites n1 :: Transaction costs increased from 5 bps to 8 bps.",
        "claim c2 [restatement] cites n2 :: Sharpe decreased from 1.4 to 1.1.",
        "claim c3 [deduction] from c1, c2 :: Transaction costs increased from 5 bps to 8 bps, and Sharpe decreased from 1.4 to 1.1.",
    )
    said = "Transaction costs increased from 5 bps to 8 bps, and Sharpe decreased from 1.4 to 1.1."
    assert decision.detail == f'{ABSTAINED}: the evidence says: "{said}" ({COST}, {SHARPE})'
    assert sorted(decision.claims) == ["c1", "c2", "c3"]


def test_the_first_licensed_claim_is_quoted_when_a_later_one_is_not(view: View) -> None:
    decision = false_premise(
        view,
        "claim c1 [restatement] cites n9 :: Costs will probably rise to 9 bps.",
        "claim c2 [restatement] cites n2 :: Sharpe decreased from 1.4 to 1.1.",
        "claim c3 [restatement] cites n1 :: Transaction costs increased from 5 bps to 8 bps.",
    )
    assert decision.detail == f'{ABSTAINED}: the evidence says: "Sharpe decreased from 1.4 to 1.1." ({SHARPE})'
    assert list(decision.claims) == ["c2"]


@pytest.mark.parametrize(
    "claim",
    [
        pytest.param(
            "claim c1 [restatement] cites n1 :: Transaction costs increased from 5 bps to 9 bps.", id="changed-figure"
        ),
        pytest.param(
            "claim c1 [restatement] cites n1 :: Transaction costs fell from 8 bps to 3 bps.", id="unsupported"
        ),
        pytest.param(
            "claim c1 [restatement] cites n99 :: Transaction costs increased from 5 bps to 8 bps.", id="unknown-ref"
        ),
        pytest.param(
            "claim c1 [restatement] cites zk:research:gone :: The breakeven cost is 3 bps.", id="unknown-address"
        ),
        pytest.param("claim c1 [restatement] cites n4 :: The breakeven round-trip cost is 10 bps.", id="refuted-node"),
        pytest.param("claim c1 [restatement] cites n6 :: The carry signal lost 3.5% over 2024.", id="stale-node"),
        pytest.param("claim c1 [restatement] cites n9 :: Costs will probably rise to 9 bps.", id="inferred-node"),
        pytest.param("claim c1 [assumption] :: Transaction costs increased from 5 bps to 8 bps.", id="uncited"),
        pytest.param(
            "claim c1 [restatement] cites n1 :: [Transaction costs](https://evil.example) increased from 5 bps to 8 bps.",
            id="markdown-link",
        ),
        pytest.param(
            "claim c1 [restatement] cites n1 :: Transaction costs increased from 5 bps to <b>8 bps</b>.", id="html"
        ),
    ],
)
def test_a_false_premise_claim_that_would_not_be_licensed_is_never_shown(view: View, claim: str) -> None:
    decision = false_premise(view, claim)
    assert (decision.detail, dict(decision.claims)) == (ABSTAINED, {})
    assert claim.split(" :: ", 1)[1] not in decision.detail


def test_the_markup_twin_would_be_licensed_so_only_the_publishing_rule_keeps_it_out(view: View) -> None:
    text = "[Transaction costs](https://evil.example) increased from 5 bps to 8 bps."
    assert judge_claim(Claim("c1", "restatement", ("n1",), (), None, text), view, {}).licensed
    assert false_premise(view, f"claim c1 [restatement] cites n1 :: {text}").detail == ABSTAINED


@pytest.mark.parametrize("smuggled", ["\n", "\u2028", "\r", "\t", "\u202e", "\u00a0"])
def test_a_licensed_claim_text_smuggling_a_line_break_or_control_is_never_shown(view: View, smuggled: str) -> None:
    text = f"Transaction costs increased{smuggled}from 5 bps to 8 bps."
    claim = Claim("c1", "restatement", ("n1",), (), None, text)
    assert judge_claim(claim, view, {}).licensed  # only the publishing rule keeps it out
    decision = model_abstention(Abstention("false-premise", REASON, (claim,)), view)
    assert (decision.detail, dict(decision.claims)) == (ABSTAINED, {})


def test_the_models_reason_is_never_shown_even_beside_a_licensed_claim(view: View) -> None:
    decision = false_premise(
        view, "claim c1 [restatement] cites n1 :: Transaction costs increased from 5 bps to 8 bps."
    )
    assert "3 bps" not in decision.detail and "assumes" not in decision.detail


def test_a_premise_cycle_built_by_hand_shows_nothing_and_raises_nothing(view: View) -> None:
    claims = (
        Claim("c1", "deduction", ("n1",), ("c2",), None, "Transaction costs increased from 5 bps to 8 bps."),
        Claim("c2", "deduction", ("n1",), ("c1",), None, "Transaction costs increased from 5 bps to 8 bps."),
    )
    assert model_abstention(Abstention("false-premise", REASON, claims), view).detail == ABSTAINED


@pytest.mark.parametrize("label", ["low-coverage", "stale", "missing-hop"])
def test_claims_on_another_label_are_never_read(view: View, label: str) -> None:
    claim = Claim("c1", "restatement", ("n1",), (), None, "Transaction costs increased from 5 bps to 8 bps.")
    decision = model_abstention(Abstention(label, REASON, (claim,)), view)
    assert "Transaction costs" not in decision.detail and dict(decision.claims) == {}


def test_the_trace_of_a_false_premise_abstention_shows_the_quoted_claim_and_its_citation(view: View) -> None:
    decision = false_premise(
        view, "claim c1 [restatement] cites n1 :: Transaction costs increased from 5 bps to 8 bps."
    )
    trace = trace_surface(
        decision, view, Telemetry(hops=0, renavigations=0, parse_repairs=0, tokens_spent=0, loop_break="")
    )
    assert [(c.id, c.status, c.citation_addresses) for c in trace.claims] == [("c1", "grounded", [COST])]
    assert [c.address for c in trace.citations] == [COST]
    assert trace.abstention is not None and trace.abstention.detail == decision.detail
    assert (trace.verdict, trace.conclusion_claim_id, trace.assertions) == ("abstain", None, [])
