"""What a claim may say beyond a copied sentence: word support, conjunctions, calculations, paraphrase.

Each test routes a real OUTPUT artifact against a real view. The evidence
bodies mirror the demo's, so the same sentences a capable model wrote in the
replay corpus are exercised here at the unit level.
"""

from __future__ import annotations

import pytest

from synapse_server.navigation.view import View
from tests.support.engine_builders import answer, decide, node, world

README = "repo:momentum:README.md"  # n1 grounded
VOL = "mem:tree:vol"  # n2 grounded, negated sentences
RANK = "mem:tree:rank"  # n3 grounded, two sentences
DRAWDOWN = "mem:tree:drawdown"  # n4 measured
COSTS = "mem:tree:costs"  # n5 grounded
SHARPE = "mem:tree:sharpe"  # n6 measured
FEES = "mem:tree:fees"  # n7 grounded, headed sections


@pytest.fixture(scope="module")
def view() -> View:
    return world(
        node(README, "Momentum research. Backtests of a cross-sectional momentum strategy on monthly prices."),
        node(
            VOL, "Volatility scaling did not raise the Sharpe ratio above 1.3. The carry overlay was never profitable."
        ),
        node(
            RANK,
            "The momentum signal ranks tickers on their 12-month return excluding the most recent month.\n\n"
            "Skipping the latest month keeps the signal clear of short-term reversals.",
        ),
        node(DRAWDOWN, "Volatility scaling reduced the maximum drawdown from 21% to 14%.", status="measured"),
        node(COSTS, "Transaction costs increased from 5 bps to 8 bps."),
        node(SHARPE, "Sharpe increased from 1.1 to 1.4 after the signal fix.", status="measured"),
        node(FEES, "# Fees\n\n## Entry tier\n\nThe monthly fee is $5.\n\n## Premium tier\n\nThe monthly fee is $12."),
    )


def routed(view: View, *claims: str, conclude: str = "c1", prose: str | None = None, cites=()):  # type: ignore[no-untyped-def]
    return decide(answer(*claims, conclude=conclude, prose=prose, cites=cites), view)


# --- item 1 of the hardening: a claim without figures is not "covered" by any unit ----------------------------


@pytest.mark.parametrize(
    ("ref", "text"),
    [
        pytest.param("n1", "Momentum is a risk-free strategy that never loses money.", id="unsupported-words"),
        pytest.param("n2", "Volatility scaling did raise the Sharpe ratio above 1.3.", id="dropped-not"),
        pytest.param("n2", "The carry overlay was profitable.", id="dropped-never"),
        pytest.param("n2", "The carry overlay was only rarely profitable.", id="changed-quantifier"),
        pytest.param("n3", "The momentum signal may rank tickers on their 12-month return.", id="added-modality"),
    ],
)
@pytest.mark.parametrize("form", ["restatement", "comparison", "deduction"])
def test_a_claim_its_cited_clause_does_not_support_abstains_low_coverage(
    view: View, ref: str, text: str, form: str
) -> None:
    decision = routed(view, f"claim c1 [{form}] cites {ref} :: {text}")
    assert (decision.verdict, decision.reasons) == ("abstain", ("low-coverage",))
    assert decision.problem_lines and decision.problem_lines[0].startswith("c1: ")


def test_a_faithful_reordering_of_a_cited_clause_is_an_inferred_answer(view: View) -> None:
    text = "On their 12-month return excluding the most recent month the momentum signal ranks tickers."
    decision = routed(view, f"claim c1 [restatement] cites n3 :: {text}")
    assert (decision.verdict, decision.status) == ("answer", "inferred")


def test_a_subject_object_swap_abstains_on_word_order(view: View) -> None:
    decision = routed(view, "claim c1 [restatement] cites n3 :: Reversals keep the signal clear of skipping.")
    assert decision.verdict == "abstain"


# --- conjunctions ------------------------------------------------------------------------------------------------

C1 = "claim c1 [restatement] cites n3 :: The momentum signal ranks tickers on their 12-month return excluding the most recent month."
C2 = "claim c2 [restatement] cites n3 :: Skipping the latest month keeps the signal clear of short-term reversals."
S1 = "The momentum signal ranks tickers on their 12-month return excluding the most recent month."
S2 = "Skipping the latest month keeps the signal clear of short-term reversals."


@pytest.mark.parametrize(
    "joined",
    [
        f"{S1[:-1]}, and {S2[0].lower()}{S2[1:]}",
        f"{S1[:-1]}; {S2}",
        f"{S1[:-1]} and also {S2[0].lower()}{S2[1:]}",
    ],
)
def test_a_conjunction_of_verbatim_premises_keeps_the_weakest_status(view: View, joined: str) -> None:
    decision = routed(view, C1, C2, f"claim c3 [deduction] from c1, c2 :: {joined}", conclude="c3")
    assert (decision.verdict, decision.status) == ("answer", "grounded")
    assert decision.claims["c3"].joined == "strict"


def test_prose_of_two_bound_sentences_concluded_by_a_which_join_answers(view: View) -> None:
    c3 = f"claim c3 [deduction] from c1, c2 :: {S1[:-1]}, which keeps the signal clear of short-term reversals."
    decision = routed(view, C1, C2, c3, conclude="c3", prose=f"{S1} {S2}", cites=[("c1", S1), ("c2", S2)])
    assert (decision.verdict, decision.status) == ("answer", "grounded")


def test_a_which_join_cited_in_the_prose_abstains(view: View) -> None:
    text = f"{S1[:-1]}, which keeps the signal clear of short-term reversals."
    decision = routed(view, C1, C2, f"claim c3 [deduction] from c1, c2 :: {text}", conclude="c3")
    assert decision.verdict == "abstain"
    assert any("which-join" in line for line in decision.problem_lines)


def test_a_conjunction_smuggling_an_unbound_clause_abstains(view: View) -> None:
    smuggled = f"{S1[:-1]}, and momentum never loses money."
    decision = routed(view, C1, C2, f"claim c3 [deduction] from c1, c2 :: {smuggled}", conclude="c3")
    assert (decision.verdict, decision.reasons) == ("abstain", ("low-coverage",))


def test_a_conjunction_of_premises_in_another_order_is_still_a_join(view: View) -> None:
    swapped = f"{S2[:-1]}, and {S1[0].lower()}{S1[1:]}"
    decision = routed(view, C1, C2, f"claim c3 [deduction] from c1, c2 :: {swapped}", conclude="c3")
    assert decision.claims["c3"].joined == "strict"
    assert (decision.verdict, decision.status) == ("answer", "grounded"), decision.problem_lines


# --- calculations --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ref", "derive", "text", "status"),
    [
        pytest.param(
            "n4",
            "21 - 14",
            "Volatility scaling reduced the maximum drawdown from 21% to 14%, a reduction of 7 percentage points.",
            "measured",
            id="pp-difference",
        ),
        pytest.param(
            "n5",
            "8 - 5",
            "Transaction costs increased from 5 bps to 8 bps, an increase of 3 bps.",
            "grounded",
            id="bps",
        ),
        pytest.param(
            "n4",
            "21 - 14",
            "Volatility scaling reduced the maximum drawdown by 7 points.",
            "measured",
            id="points-alone",
        ),
        pytest.param(
            "n5", "(8 - 5) / 5 * 100", "Transaction costs increased by 60% from 5 bps to 8 bps.", "grounded", id="pct"
        ),
        pytest.param(
            "n6",
            "1.4 / 1.1",
            "Sharpe increased from 1.1 to 1.4 after the signal fix, a ratio of 1.27x.",
            "measured",
            id="ratio",
        ),
    ],
)
def test_a_correct_calculation_over_one_cited_clause_answers(
    view: View, ref: str, derive: str, text: str, status: str
) -> None:
    decision = routed(view, f'claim c1 [calculation] cites {ref} derive "{derive}" :: {text}')
    assert (decision.verdict, decision.status) == ("answer", status), decision.problem_lines


@pytest.mark.parametrize(
    ("ref", "derive", "text", "rule"),
    [
        pytest.param(
            "n4",
            "21 - 14",
            "Volatility scaling reduced the maximum drawdown by 8 percentage points.",
            "rounding",
            id="off-by-one",
        ),
        pytest.param(
            "n4",
            "14 - 21",
            "Volatility scaling reduced the maximum drawdown by 7 percentage points.",
            "derive",
            id="sign",
        ),
        pytest.param(
            "n4", "21 - 14", "Volatility scaling reduced the maximum drawdown by 7%.", "rounding", id="pp-as-percent"
        ),
        pytest.param(
            "n4",
            "21 - 14",
            "Volatility scaling raised the maximum drawdown by 7 percentage points.",
            "calc-direction",
            id="direction",
        ),
        pytest.param(
            "n4",
            "22 - 14",
            "Volatility scaling reduced the maximum drawdown by 8 percentage points.",
            "operand",
            id="foreign-operand",
        ),
        pytest.param(
            "n6",
            "1.4 / 1.1",
            "Sharpe increased from 1.1 to 1.4 after the signal fix, a ratio of 1.28x.",
            "rounding",
            id="rounding",
        ),
        pytest.param(
            "n4",
            "21 - 14",
            "Volatility scaling reduced the maximum drawdown by 7 percentage points over the decade.",
            "words",
            id="stray-words",
        ),
    ],
)
def test_a_wrong_calculation_abstains_with_its_own_rule(
    view: View, ref: str, derive: str, text: str, rule: str
) -> None:
    decision = routed(view, f'claim c1 [calculation] cites {ref} derive "{derive}" :: {text}')
    assert (decision.verdict, decision.reasons) == ("abstain", ("low-coverage",))
    assert any(line.startswith(f"c1: {rule}:") for line in decision.problem_lines), decision.problem_lines


def test_a_percent_change_reported_as_percentage_points_abstains_unit(view: View) -> None:
    text = "Transaction costs increased by 60 percentage points from 5 bps to 8 bps."
    decision = routed(view, f'claim c1 [calculation] cites n5 derive "(8 - 5) / 5 * 100" :: {text}')
    assert decision.verdict == "abstain"
    assert any(line.startswith("c1: calc-unit:") for line in decision.problem_lines), decision.problem_lines


# --- paraphrase ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Sharpe went up from 1.1 to 1.4 after the signal fix.",
        "Sharpe rose from 1.1 to 1.4 after the signal fixes.",
    ],
)
def test_a_paraphrase_with_covered_figures_is_an_inferred_answer(view: View, text: str) -> None:
    decision = routed(view, f"claim c1 [restatement] cites n6 :: {text}")
    assert (decision.verdict, decision.status) == ("answer", "inferred"), decision.problem_lines


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Sharpe fell from 1.1 to 1.4 after the signal fix.", id="flipped-direction"),
        pytest.param("Revenue increased from 1.1 to 1.4 after the signal fix.", id="label-swap"),
        pytest.param("Sharpe did not increase from 1.1 to 1.4 after the signal fix.", id="negation"),
    ],
)
def test_a_paraphrase_changing_what_the_clause_says_abstains(view: View, text: str) -> None:
    decision = routed(view, f"claim c1 [restatement] cites n6 :: {text}")
    assert (decision.verdict, decision.reasons) == ("abstain", ("low-coverage",))


def test_a_heading_of_the_cited_section_is_context_for_its_units(view: View) -> None:
    decision = routed(view, "claim c1 [restatement] cites n7 :: For entry-tier accounts, the monthly fee is $5.")
    assert (decision.verdict, decision.status) == ("answer", "grounded"), decision.problem_lines


def test_a_heading_of_another_section_is_not_context(view: View) -> None:
    decision = routed(view, "claim c1 [restatement] cites n7 :: For premium-tier accounts, the monthly fee is $5.")
    assert decision.verdict == "abstain"


# --- feedback ------------------------------------------------------------------------------------------------------


def test_a_label_refusal_names_the_claim_the_figure_and_the_missing_words(view: View) -> None:
    decision = routed(view, "claim c1 [restatement] cites n5 :: Debit fees were reissued from 5 bps to 8 bps.")
    assert decision.verdict == "abstain"
    line = decision.problem_lines[0]
    assert line.startswith("c1: ") and "n5" in line and "reissued" in line
    assert "Transaction costs" not in line  # never the source body
