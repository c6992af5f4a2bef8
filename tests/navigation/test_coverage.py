from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapse_server.language.atoms import Unit, atomic_units, restatement_targets
from synapse_server.language.text import normalise_words
from synapse_server.language.words import tokens
from synapse_server.licensing.alignment import align
from synapse_server.navigation.coverage import (
    clause_coverage,
    number_coverage,
    restated_unit,
)

SOURCE = "Transaction costs increased from 5 bps to 8 bps."


@pytest.mark.parametrize(
    ("claim", "units", "expected"),
    [
        pytest.param(SOURCE, [SOURCE], True, id="verbatim-restatement-passes"),
        pytest.param("transaction COSTS increased from 5 bps to 8 bps", [SOURCE], True, id="case-and-final-stop"),
        pytest.param("Transaction costs  increased,\nfrom 5bps to 8 bps!", [SOURCE], True, id="punctuation-whitespace"),
        pytest.param("**Transaction costs** increased from `5 bps` to 8 bps.", [SOURCE], True, id="markdown-in-claim"),
        pytest.param(
            SOURCE, ["- Transaction *costs* [increased](x.md) from 5 bps to 8 bps"], True, id="markdown-in-unit"
        ),
        pytest.param("Trading costs went up from 5 bps to 8 bps.", [SOURCE], False, id="paraphrase-fails"),
        pytest.param("Transaction costs increased to 8 bps.", [SOURCE], False, id="dropped-words-fail"),
        pytest.param("Costs did not rise.", ["Costs did not rise."], True, id="negation-kept-verbatim"),
        pytest.param("Costs did rise.", ["Costs did not rise."], False, id="dropped-not-fails"),
        pytest.param(
            "Momentum works in equities.", ["Momentum works only in equities."], False, id="dropped-only-fails"
        ),
        pytest.param("Transaction costs increased from 8 bps to 5 bps.", [SOURCE], False, id="reordered-numbers-fail"),
        pytest.param("Costs transaction increased from 5 bps to 8 bps.", [SOURCE], False, id="reordered-words-fail"),
        pytest.param(SOURCE + " Sharpe fell.", [SOURCE], False, id="added-words-fail"),
        pytest.param(
            "Transaction costs increased from -5 bps to 8 bps.", [SOURCE], False, id="sign-is-not-punctuation"
        ),
        pytest.param("Transaction costs increased from 5 to 8 bps.", [SOURCE], False, id="dropped-unit-fails"),
        pytest.param("", [SOURCE, ""], False, id="empty-claim-restates-nothing"),
        pytest.param("Orders totalled 1200.", ["Orders totalled 1,200."], True, id="thousands-separator-is-formatting"),
    ],
)
def test_a_restatement_must_equal_one_unit_modulo_case_punctuation_and_space(
    claim: str, units: list[str], expected: bool
) -> None:
    assert (restated_unit(claim, units) is not None) is expected


def test_restated_unit_finds_the_whole_sentence_among_restatement_targets() -> None:
    body = "Costs rose to 8 bps and the Sharpe ratio fell to 1.1."
    claim = "Costs rose to 8 bps and the Sharpe ratio fell to 1.1"
    assert restated_unit(claim, atomic_units(body)) is None
    assert restated_unit(claim, restatement_targets(body)) == Unit(body, 0, len(body))


@pytest.mark.parametrize(
    ("assertion", "clause", "reason", "missing"),
    [
        pytest.param(SOURCE, SOURCE, None, (), id="same-clause-covers"),
        pytest.param(
            "Costs increased from 5 bps to 9 bps.",
            "Costs increased from 5 bps to 8 bps.",
            "changed-number",
            ("9 bps",),
            id="changed-digit",
        ),
        pytest.param("Returns were -5% in May.", "Returns were 5% in May.", "sign", ("-5%",), id="sign-flip"),
        pytest.param(
            "Costs rose from 10 bps to 5 bps.",
            "Costs rose from 5 bps to 10 bps.",
            "order",
            ("5 bps",),
            id="reversed-order",
        ),
        pytest.param("Costs rose to 5%.", "Costs rose to 5 bps.", "unit", ("5%",), id="unit-swap-bps-for-percent"),
        pytest.param(
            "Costs rose to 2.5%.", "Costs rose to 250 bps.", "unit", ("2.5%",), id="percent-and-bps-differ-as-figures"
        ),
        pytest.param("Orders totalled 1200.", "Orders totalled 1,200.", None, (), id="thousands-separator-equal"),
        pytest.param(
            "Orders totalled 12,00.", "Orders totalled 1,200.", "changed-number", ("12", "00"), id="misplaced-separator"
        ),
        pytest.param("Net income was $4.2M.", "Net income was $4.2 million.", None, (), id="magnitude-word-equal"),
        pytest.param("Sharpe fell to 1.1.", "Costs rose to 8 bps.", "uncovered", ("1.1",), id="number-from-elsewhere"),
        pytest.param("Sharpe fell to 1.1.", "Sharpe fell.", "uncovered", ("1.1",), id="clause-without-numbers"),
        pytest.param(
            "Release v1.8 cut latency to 5 ms.",
            "Release v1.7 cut latency to 5 ms.",
            "identifier",
            ("v1.8",),
            id="identifier-digits-must-match",
        ),
        pytest.param("Costs rose twenty percent.", "Costs rose 20%.", None, (), id="spelled-figure-equals-digits"),
        pytest.param(
            "Costs rose three times.", "Costs rose twice.", "uncovered", ("three",), id="bare-cardinal-counts"
        ),
    ],
)
def test_numeric_traps_break_coverage(
    assertion: str, clause: str, reason: str | None, missing: tuple[str, ...]
) -> None:
    coverage = number_coverage(assertion, clause)
    assert (coverage.covered, coverage.reason, coverage.missing) == (reason is None, reason, missing)


def test_a_carved_clause_cannot_license_a_number_from_another_clause_of_the_same_sentence() -> None:
    body = "Revenue rose to $5M and costs fell to $3M in the same quarter."
    units = atomic_units(body)
    assert [unit.text for unit in units] == ["Revenue rose to $5M", "costs fell to $3M in the same quarter."]
    claimed = tokens("Revenue rose to $3M")
    assert not any(align(claimed, tokens(unit.text)).ok for unit in units)
    assert align(tokens("Revenue rose to $5M"), tokens(units[0].text)).ok
    assert number_coverage("Revenue rose to $3M", body).covered, "figures alone would have carved it"


def test_numbers_from_two_units_are_reported_as_pooled_and_never_license() -> None:
    units = atomic_units("Transaction costs increased to 8 bps. The Sharpe ratio fell to 1.1.")
    unit, coverage = clause_coverage("Transaction costs increased to 8 bps and the Sharpe ratio fell to 1.1.", units)
    assert unit is None
    assert (coverage.reason, coverage.missing) == ("pooled", ("8 bps", "1.1"))


def test_licensing_clause_returns_the_one_unit_holding_every_figure() -> None:
    body = "Costs rose to 8 bps and the Sharpe ratio fell from 1.4 to 1.1 in June."
    units = atomic_units(body)
    assert clause_coverage("The Sharpe ratio fell from 1.4 to 1.1 in June", units)[0] == units[1]
    assert clause_coverage("Costs rose to 8 bps", units)[0] == units[0]
    assert clause_coverage("Costs rose to 9 bps", units)[0] is None


def test_licensing_clause_accepts_plain_clause_texts_and_returns_the_text() -> None:
    clauses = ["Revenue was $4.2M", "Net income was $1.1M"]
    assert clause_coverage("Net income was $1.1M in 2025", clauses)[0] is None
    assert clause_coverage("net income was $1.1M", clauses)[0] == "Net income was $1.1M"


def test_among_covering_units_the_verbatim_one_wins() -> None:
    units = [Unit("Costs were flat in May", 0, 22), Unit("Costs were flat", 23, 38)]
    assert clause_coverage("Costs were flat", units)[0] == units[1]


def test_no_units_means_uncovered() -> None:
    unit, coverage = clause_coverage("Costs rose to 8 bps", [])
    assert (unit, coverage.reason, coverage.missing) == (None, "uncovered", ("8 bps",))


def test_markdown_formatting_is_ignored_when_matching_numbers_and_labels() -> None:
    body = "- **Net income** was [$4.2M](report.md) in `2025`"
    (unit,) = atomic_units(body)
    assert clause_coverage("Net income was $4.2M in 2025", [unit])[0] == unit


TEXT = st.text(alphabet=st.sampled_from(list("abc XY012.,-%$:;*_[]()kMbps")), max_size=40)


@given(TEXT)
def test_any_text_covers_and_restates_itself(text: str) -> None:
    assert number_coverage(text, text).covered
    assert (restated_unit(text, [text]) is not None) is bool(normalise_words(text))
