"""Licensing by alignment through the real router: each misreading a careful reviewer would reject abstains with
its rule, and each honest twin answers at the status an honest reading gives."""

from __future__ import annotations

import pytest

from synapse_server.navigation.view import View
from tests.support.engine_builders import answer, decide, node, world

HUNTER = "mem:tree:hunter"  # n1
BEIGE = "mem:tree:beige"  # n2
CHECKING = "mem:tree:checking"  # n3
ELIGIBLE = "mem:tree:eligible"  # n4
RULES = "mem:tree:rules"  # n5
PRICES = "mem:tree:prices"  # n6
FORMATS = "mem:tree:formats"  # n7
RUNON = "mem:tree:runon"  # n8
TIERS = "mem:tree:tiers"  # n9
STUDENTS = "mem:tree:students"  # n10


@pytest.fixture(scope="module")
def view() -> View:
    return world(
        node(HUNTER, "Earns 1.0% APY on all balances.", title="Hunter Green Account"),
        node(BEIGE, "The monthly fee is $5.", title="Beige Account"),
        node(
            CHECKING,
            "To open a personal checking account, ensure all of the following are true:\n\n"
            "1. The customer is at least 18 years old.\n2. The customer has a valid ID.\n",
            title="Checking rules",
        ),
        node(
            ELIGIBLE,
            "## Accounts Not Eligible\n\n- Savings accounts\n- Trust accounts\n\n## Eligible Accounts\n\n"
            "- Checking accounts\n",
            title="Eligibility",
        ),
        node(
            RULES,
            "Transfers are free until you reach the monthly cap of 10 transfers. Withdrawals of up to $500 a day "
            "are free. Non-certified advisers may not sell the fund. The grace period is 14 days. The fee is 2.5% "
            "of the balance.",
            title="Rules",
        ),
        node(
            PRICES,
            "The price was discounted from $80 to $60. Sharpe fell from 1.4 to 1.1 after costs rose to 8 bps. "
            "The fee rose from $5 to $8. Commission is 3 bps per side.",
            title="Prices",
        ),
        node(FORMATS, "Dates use `yyyy-mm-dd` in every export.", title="Formats"),
        node(
            RUNON,
            "Requirements: (1) the customer is at least 18 years old; (2) the customer must not hold another "
            "account; (3) the customer has a valid ID.",
            title="Run-on requirements",
        ),
        node(
            TIERS,
            "| Tier | Fee | Minimum |\n|---|---|---|\n| Gold | $25 | $5 |\n| Silver | $10 | $0 |\n",
            title="Tiers",
        ),
        node(STUDENTS, "This fee is waived for students.", title="Student waiver"),
    )


def restate(ref: str, text: str) -> str:
    return answer(f"claim c1 [restatement] cites {ref} :: {text}")


def calculate(ref: str, derive: str, text: str) -> str:
    return answer(f'claim c1 [calculation] cites {ref} derive "{derive}" :: {text}')


HOSTILE = [
    pytest.param(
        restate("n6", "Sharpe increased from 1.4 to 1.1 after costs rose to 8 bps."),
        "direction",
        id="flipped-direction-matching-the-other-direction-word",
    ),
    pytest.param(restate("n5", "Withdrawals of more than $500 a day are free."), "bound", id="more-than-for-up-to"),
    pytest.param(restate("n5", "Certified advisers may not sell the fund."), "negation", id="non-dropped"),
    pytest.param(restate("n5", "Transfers are free."), "condition", id="cap-dropped"),
    pytest.param(
        restate("n5", "Transfers are free during the monthly cap of 10 transfers."), "condition", id="temporal-shift"
    ),
    pytest.param(restate("n4", "Savings accounts are eligible."), "frame-polarity", id="negated-heading-lost"),
    pytest.param(restate("n2", "For the non-Beige account, the monthly fee is $5."), "negation", id="frame-with-a-non"),
    pytest.param(
        restate("n2", "For the Hunter Beige account, the monthly fee is $5."), "words", id="frame-with-another-name"
    ),
    pytest.param(restate("n9", "The Gold tier minimum is $25."), "words", id="table-label-swap"),
    pytest.param(restate("n1", "Earns 1.0% APY on some balances."), "quantifier", id="quantifier-changed"),
    pytest.param(
        restate("n4", "Checking accounts are not eligible."), "negation", id="negation-under-a-positive-heading"
    ),
    pytest.param(
        restate("n2", "For the Beige account, the monthly fee is $5 for students."), "words", id="frame-plus-new-scope"
    ),
    pytest.param(
        calculate("n6", "(80 - 60) / 60 * 100", "The price was discounted from $80 to $60, a reduction of 33%."),
        "rounding",
        id="percent-base-is-the-new-value",
    ),
    pytest.param(
        calculate("n6", "60 / 80 * 100", "The price was discounted from $80 to $60, a reduction of 75%."),
        "rounding",
        id="ratio-as-a-reduction",
    ),
    pytest.param(
        calculate("n6", "(80 - 60) / 80 * 100", "The price was discounted from $80 to $60, an increase of 25%."),
        "calc-direction",
        id="discount-reported-as-increase",
    ),
    pytest.param(
        calculate("n6", "5 + 8", "The fee rose from $5 to $8, a total of $13."), "parts", id="old-plus-new-as-a-total"
    ),
    pytest.param(
        calculate("n6", "3 * 100", "Commission is 3 bps per side, a total of 300 bps."), "constant", id="free-times-100"
    ),
    pytest.param(
        calculate("n6", "1.4 - 1.1", "Sharpe fell from 1.4 to 1.1 after costs rose to 8 bps, a drop of 0."),
        "zero",
        id="non-zero-change-rounded-to-zero",
    ),
    pytest.param(
        calculate("n6", "8 - 5", "The fee rose from $5 to $8, an increase of $3k."),
        "rounding",
        id="magnitude-suffix-on-derived-figure",
    ),
    pytest.param(
        calculate("n6", "8 / 5", "The fee rose from $5 to $8, 0.625 times."), "rounding", id="ratio-the-wrong-way-round"
    ),
]


@pytest.mark.parametrize(("text", "rule"), HOSTILE)
def test_a_misreading_of_its_clause_abstains_with_its_rule(view: View, text: str, rule: str) -> None:
    decision = decide(text, view)
    assert (decision.verdict, decision.reasons) == ("abstain", ("low-coverage",))
    assert any(line.startswith(f"c1: {rule}:") for line in decision.problem_lines), decision.problem_lines


HONEST = [
    pytest.param(
        restate("n1", "The Hunter Green account earns 1.0% APY on all balances."),
        "grounded",
        id="entity-named-only-in-the-title",
    ),
    pytest.param(
        restate("n3", "A customer must be at least 18 years old to open a personal checking account."),
        "inferred",
        id="list-lead-in-is-context",
    ),
    pytest.param(restate("n8", "The customer has a valid ID."), "grounded", id="item-after-a-must-not-item"),
    pytest.param(restate("n4", "Savings accounts are not eligible."), "grounded", id="negated-heading-kept"),
    pytest.param(
        restate("n7", "Dates use `yyyy-mm-dd` in every export."), "grounded", id="inline-code-copied-verbatim"
    ),
    pytest.param(restate("n5", "The grace period is two weeks."), "inferred", id="two-weeks-for-14-days"),
    pytest.param(restate("n5", "The fee is 250 bps of the balance."), "inferred", id="bps-for-percent"),
    pytest.param(restate("n9", "The Gold tier fee is $25."), "grounded", id="table-cell-with-its-headers"),
    pytest.param(
        calculate("n6", "(80 - 60) / 80 * 100", "The price was discounted from $80 to $60, a reduction of 25%."),
        "grounded",
        id="percent-reduction-on-the-old-value",
    ),
    pytest.param(
        calculate("n6", "1.4 - 1.1", "Sharpe fell from 1.4 to 1.1 after costs rose to 8 bps, a drop of 0.3."),
        "grounded",
        id="absolute-drop",
    ),
    pytest.param(
        calculate("n6", "8 / 5", "The fee rose from $5 to $8, 1.6 times."), "grounded", id="ratio-new-over-old"
    ),
]


@pytest.mark.parametrize(("text", "status"), HONEST)
def test_an_honest_reading_answers_at_its_status(view: View, text: str, status: str) -> None:
    decision = decide(text, view)
    assert (decision.verdict, decision.status) == ("answer", status), decision.problem_lines


def test_inline_code_is_published_without_its_marks(view: View) -> None:
    decision = decide(restate("n7", "Dates use `yyyy-mm-dd` in every export."), view)
    assert decision.answer_text == "Dates use yyyy-mm-dd in every export."


def test_a_link_is_refused_naming_the_exact_token_to_drop(view: View) -> None:
    decision = decide(restate("n7", "Dates use [yyyy-mm-dd](https://example.com/iso) in every export."), view)
    assert decision.verdict == "abstain"
    assert any('"[yyyy-mm-dd](https://example.com/iso)"' in line for line in decision.problem_lines), (
        decision.problem_lines
    )


def test_a_conjunct_from_another_node_may_not_open_with_an_anaphor(view: View) -> None:
    text = answer(
        "claim c1 [restatement] cites n2 :: The monthly fee is $5.",
        "claim c2 [restatement] cites n10 :: This fee is waived for students.",
        "claim c3 [deduction] from c1, c2 :: The monthly fee is $5, and this fee is waived for students.",
        conclude="c3",
    )
    decision = decide(text, view)
    assert decision.verdict == "abstain"
    assert any(line.startswith("c3: anaphor:") for line in decision.problem_lines), decision.problem_lines


def test_prose_spans_from_two_nodes_may_not_join_through_an_anaphor(view: View) -> None:
    prose = "The monthly fee is $5. This fee is waived for students."
    text = answer(
        "claim c1 [restatement] cites n2 :: The monthly fee is $5.",
        "claim c2 [restatement] cites n10 :: This fee is waived for students.",
        "claim c3 [deduction] from c1, c2 :: The monthly fee is $5, and this fee is waived for students.",
        prose=prose,
        cites=[("c1", "The monthly fee is $5."), ("c2", "This fee is waived for students.")],
        conclude="c3",
    )
    decision = decide(text, view)
    assert decision.verdict == "abstain"
    assert any(": anaphor:" in line for line in decision.problem_lines), decision.problem_lines


def test_a_refusal_lists_every_failing_rule_at_once(view: View) -> None:
    decision = decide(restate("n5", "Certified advisers must sell more than the fund."), view)
    rules = {line.split(": ")[1] for line in decision.problem_lines}
    assert {"negation", "modality"} <= rules, decision.problem_lines


def test_a_changed_tense_is_never_a_grounded_restatement() -> None:
    view = world(node("mem:tree:was", "The monthly fee was $5.", title="Old fee"))
    decision = decide(restate("n1", "The monthly fee is $5."), view)
    assert (decision.verdict, decision.status) == ("answer", "inferred"), decision.problem_lines
