from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapse_server.language.numbers import NumToken, all_numbers, numeric_tokens, spelled_numbers


def _one(text: str) -> NumToken:
    tokens = numeric_tokens(text)
    assert len(tokens) == 1, tokens
    return tokens[0]


@pytest.mark.parametrize(
    ("text", "value", "unit", "sign", "kind"),
    [
        pytest.param("costs of 5 bps", "5", "bps", "+", "bps", id="bps-spaced"),
        pytest.param("costs of 250bps", "250", "bps", "+", "bps", id="bps-glued"),
        pytest.param("400 basis points", "400", "bps", "+", "bps", id="basis-points-words"),
        pytest.param("rose 3.5%", "3.5", "%", "+", "percent", id="percent-decimal"),
        pytest.param("rose 3.5 percent", "3.5", "%", "+", "percent", id="percent-word"),
        pytest.param("fell -5%", "5", "%", "-", "percent", id="hyphen-minus"),
        pytest.param("fell \u22125%", "5", "%", "-", "percent", id="unicode-minus"),
        pytest.param("fell minus 5%", "5", "%", "-", "percent", id="minus-word"),
        pytest.param("grew +5%", "5", "%", "+", "percent", id="explicit-plus"),
        pytest.param("within ±0.3", "0.3", None, "±", "plain", id="plus-minus"),
        pytest.param("up 2 percentage points", "2", "pp", "+", "points", id="percentage-points"),
        pytest.param("1,200 orders", "1200", None, "+", "plain", id="thousands-separator"),
        pytest.param("1,234,567.5 units", "1234567.5", None, "+", "plain", id="grouped-with-decimals"),
        pytest.param("net income of $4.2M", "4200000", "USD", "+", "currency", id="currency-glued-magnitude"),
        pytest.param("net income of $4.2 million", "4200000", "USD", "+", "currency", id="currency-word-magnitude"),
        pytest.param("a loss of -$1.5bn", "1500000000", "USD", "-", "currency", id="negative-currency"),
        pytest.param("€3k budget", "3000", "EUR", "+", "currency", id="euro-thousands"),
        pytest.param("5 dollars", "5", "USD", "+", "currency", id="currency-word-suffix"),
        pytest.param("4.2M users", "4200000", None, "+", "plain", id="bare-magnitude"),
        pytest.param("a 2x speed-up", "2", "x", "+", "multiplier", id="multiplier"),
        pytest.param("took 1.5h", "1.5", "h", "+", "duration", id="hours-glued"),
        pytest.param("p50 of 120 ms", "120", "ms", "+", "duration", id="milliseconds"),
        pytest.param("uses 5 GB", "5", "GB", "+", "measure", id="gigabytes"),
        pytest.param("the 5th run", "5", None, "+", "ordinal", id="ordinal"),
        pytest.param("top-5 accuracy", "5", None, "+", "plain", id="hyphen-after-letters-is-not-a-sign"),
    ],
)
def test_a_figure_reads_as_one_token_with_value_unit_and_sign(
    text: str, value: str, unit: str | None, sign: str, kind: str
) -> None:
    token = _one(text)
    assert (token.value, token.unit, token.sign, token.kind) == (Decimal(value), unit, sign, kind)


@pytest.mark.parametrize(
    ("text", "kind", "key_text"),
    [
        pytest.param("on 2026-05-14", "date", "2026-05-14", id="iso-date"),
        pytest.param("at 2026-05-14T10:02:00Z", "date", "2026-05-14T10:02:00Z", id="iso-timestamp"),
        pytest.param("a 3:1 split", "ratio", "3:1", id="ratio"),
        pytest.param("a 16:9 screen", "ratio", "16:9", id="ratio-with-one-digit-second-term"),
        pytest.param("release 1.7.21", "version", "1.7.21", id="dotted-version"),
    ],
)
def test_dates_ratios_and_versions_compare_by_their_text(text: str, kind: str, key_text: str) -> None:
    token = _one(text)
    assert token.kind == kind
    assert token.key[3] == key_text


@pytest.mark.parametrize(
    ("left", "right"),
    [
        pytest.param("09:30", "9:30 am", id="clock-two-digit-hour-equals-am"),
        pytest.param("2:30 pm", "14:30", id="clock-pm"),
        pytest.param("1,200", "1200", id="thousands-separator"),
        pytest.param("$4.2M", "$4,200,000", id="magnitude-scales-the-value"),
        pytest.param("$4.2M", "4.2 million USD", id="currency-symbol-and-code"),
        pytest.param("5 bps", "5bps", id="unit-spacing"),
        pytest.param("1.40", "1.4", id="trailing-zero"),
    ],
)
def test_the_same_figure_written_two_ways_has_one_key(left: str, right: str) -> None:
    assert _one(left).key == _one(right).key


@pytest.mark.parametrize(
    ("left", "right"),
    [
        pytest.param("2.5%", "250 bps", id="percent-is-not-bps"),
        pytest.param("2%", "2 pp", id="percent-is-not-percentage-points"),
        pytest.param("5%", "-5%", id="sign"),
        pytest.param("1.5h", "90 min", id="no-unit-conversion"),
        pytest.param("6:2", "3:1", id="ratio-terms-are-literal"),
        pytest.param("$5", "€5", id="currency"),
        pytest.param("3rd", "3", id="ordinal-is-not-a-count"),
    ],
)
def test_different_figures_have_different_keys(left: str, right: str) -> None:
    assert _one(left).key != _one(right).key


@pytest.mark.parametrize(
    ("text", "values"),
    [
        pytest.param("1,2", ["1", "2"], id="comma-without-three-digits-is-two-numbers"),
        pytest.param("12,00", ["12", "0"], id="misgrouped-separator-is-two-numbers"),
        pytest.param("1,2000", ["1", "2000"], id="four-digit-group-is-not-a-group"),
        pytest.param("1,200, and 5", ["1200", "5"], id="grouped-number-before-a-comma"),
        pytest.param("5-10 runs", ["5", "10"], id="range-hyphen-is-not-a-sign"),
        pytest.param("Sharpe fell from 1.4 to 1.1.", ["1.4", "1.1"], id="sentence-final-period-is-not-a-decimal"),
    ],
)
def test_separators_are_only_formatting_in_strict_groups(text: str, values: list[str]) -> None:
    assert [token.signed for token in numeric_tokens(text)] == [Decimal(value) for value in values]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("pinned at 3f7c2e1", id="short-sha"),
        pytest.param("entry deci-e17103e8", id="hex-id"),
        pytest.param("version v1.7", id="letter-prefixed-version"),
        pytest.param("Q3 results", id="quarter-label"),
        pytest.param("costs_bps2", id="identifier-with-underscore"),
    ],
)
def test_digits_glued_into_identifiers_are_not_figures(text: str) -> None:
    assert numeric_tokens(text) == ()


def test_token_offsets_point_at_the_raw_text() -> None:
    text = "Costs rose from 5 bps to -8 bps on 2026-05-14."
    assert [(token.raw, text[token.start : token.end]) for token in numeric_tokens(text)] == [
        ("5 bps", "5 bps"),
        ("-8 bps", "-8 bps"),
        ("2026-05-14", "2026-05-14"),
    ]


@pytest.mark.parametrize(
    ("text", "value", "unit", "sign"),
    [
        pytest.param("four hundred basis points", "400", "bps", "+", id="four-hundred-basis-points"),
        pytest.param("twenty percent", "20", "%", "+", id="twenty-percent"),
        pytest.param("twenty-five per cent", "25", "%", "+", id="hyphenated-tens"),
        pytest.param("one hundred and five", "105", None, "+", id="hundred-and"),
        pytest.param("two thousand and five users", "2005", None, "+", id="thousand-and"),
        pytest.param("three million dollars", "3000000", "USD", "+", id="million-dollars"),
        pytest.param("minus twenty percent", "20", "%", "-", id="minus-word"),
        pytest.param("Seventy five thousand", "75000", None, "+", id="capitalised-spaced-tens"),
    ],
)
def test_spelled_magnitudes_are_figures(text: str, value: str, unit: str | None, sign: str) -> None:
    (token,) = spelled_numbers(text)
    assert (token.value, token.unit, token.sign) == (Decimal(value), unit, sign)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("one of our decisions", id="one-of"),
        pytest.param("the first experiment", id="ordinal-word"),
        pytest.param("we ran three backtests", id="bare-cardinal"),
        pytest.param("someone ran it", id="cardinal-inside-a-word"),
        pytest.param("returns doubled", id="spelled-multiplier-out-of-scope"),
    ],
)
def test_bare_cardinals_in_prose_are_not_spelled_figures(text: str) -> None:
    assert spelled_numbers(text) == ()


def test_coverage_counts_bare_cardinals_but_not_a_lone_one() -> None:
    assert [token.value for token in all_numbers("one of three runs failed")] == [Decimal(3)]
    assert [token.value for token in spelled_numbers("five, six", bare_cardinals=True)] == [Decimal(5), Decimal(6)]


def test_all_numbers_interleaves_digits_and_spelled_figures_in_order() -> None:
    tokens = all_numbers("costs rose twenty percent to 8 bps in two weeks")
    assert [(token.value, token.unit) for token in tokens] == [
        (Decimal(20), "%"),
        (Decimal(8), "bps"),
        (Decimal(2), None),
    ]


@given(st.integers(min_value=0, max_value=10**15))
def test_grouped_and_plain_integers_are_the_same_figure(number: int) -> None:
    assert _one(f"{number:,}").key == _one(str(number)).key


@given(st.integers(min_value=1, max_value=999_999), st.integers(min_value=1, max_value=4))
def test_a_decimal_keeps_its_stated_precision(number: int, places: int) -> None:
    text = f"{number / 10**places:.{places}f}"
    assert _one(text).places == places


def test_a_long_run_of_digit_groups_that_ends_badly_reads_as_separate_numbers() -> None:
    # "123,123,…,1234" once made scanning quadratic; the bounded group count keeps it linear and the reading
    # is unchanged: a run that is not a strict thousands number is a list of numbers.
    text = "123," * 4000 + "1234"
    tokens = all_numbers(text)
    assert len(tokens) == 4001
    assert {token.value for token in tokens[:-1]} == {123}
    assert tokens[-1].value == 1234


def test_a_strict_thousands_number_of_eight_groups_is_still_one_figure() -> None:
    (token,) = all_numbers("a balance of 1,000,000,000,000,000,000,000,000 units")
    assert token.value == 10**24
