from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapse_server.language.calculation import (
    CalculationError,
    derivation_operands,
    evaluate_derivation,
)


@pytest.mark.parametrize(
    ("derive", "value"),
    [
        pytest.param("310 - 240", "70", id="subtraction"),
        pytest.param("(310 - 240) / 240 * 100", "29.16666666666666666666666666666667", id="growth-percentage"),
        pytest.param("0.1 + 0.2", "0.3", id="exact-decimals-not-floats"),
        pytest.param("-(3 - 5)", "2", id="unary-minus"),
        pytest.param("+4", "4", id="unary-plus"),
        pytest.param("5% * 200", "10", id="percent-suffix"),
        pytest.param("1,200 / 2", "600", id="thousands-separator"),
        pytest.param("2 × 3 ÷ 4 − 1", "0.5", id="typographic-operators"),
        pytest.param(".5 * 4", "2", id="leading-point"),
    ],
)
def test_a_derivation_evaluates_exactly(derive: str, value: str) -> None:
    assert evaluate_derivation(derive) == Decimal(value)


@pytest.mark.parametrize(
    ("derive", "code"),
    [
        pytest.param("", "empty", id="empty"),
        pytest.param("2 ** 10", "unsupported-operation", id="power"),
        pytest.param("7 // 2", "unsupported-operation", id="floor-division"),
        pytest.param("10 % 3", "syntax", id="modulo-is-not-a-percent-suffix"),
        pytest.param("__import__('os').system('true')", "unsupported-token", id="code-injection"),
        pytest.param("abs(-3)", "unsupported-token", id="function-call"),
        pytest.param("1e9", "unsupported-token", id="exponent-notation"),
        pytest.param("(1,2)", "unsupported-token", id="comma-is-not-a-decimal"),
        pytest.param("$310 - $240", "unsupported-token", id="currency-symbol"),
        pytest.param("(310 - 240", "syntax", id="unbalanced-parenthesis"),
        pytest.param("5 5", "syntax", id="missing-operator"),
        pytest.param("1 / (2 - 2)", "division-by-zero", id="division-by-zero"),
        pytest.param("(" * 40 + "1" + ")" * 40, "too-deep", id="deep-nesting"),
        pytest.param("1 + " * 200 + "1", "too-long", id="too-long"),
    ],
)
def test_anything_but_arithmetic_raises_a_typed_error_with_a_stable_code(derive: str, code: str) -> None:
    with pytest.raises(CalculationError) as raised:
        evaluate_derivation(derive)
    assert raised.value.code == code


def test_an_unexpected_character_reports_its_column() -> None:
    with pytest.raises(CalculationError) as raised:
        evaluate_derivation("310 - x")
    assert (raised.value.code, raised.value.column) == ("unsupported-token", 6)


@pytest.mark.parametrize(
    ("derive", "operands"),
    [
        pytest.param("(310 - 240) / 240 * 100", [("310", "+"), ("240", "+"), ("240", "+")], id="percent-conversion"),
        pytest.param("(310 / 240 - 1) * 100", [("310", "+"), ("240", "+")], id="growth-idiom"),
        pytest.param("-5% * 200", [("5%", "-"), ("200", "+")], id="negative-percent-operand"),
        pytest.param("100 - 80", [("100", "+"), ("80", "+")], id="hundred-as-a-real-operand"),
        pytest.param("1,200 / 2", [("1,200", "+"), ("2", "+")], id="raw-text-kept"),
    ],
)
def test_derivation_operands_are_the_figures_the_evidence_must_supply(
    derive: str, operands: list[tuple[str, str]]
) -> None:
    assert [(token.raw, token.sign) for token in derivation_operands(derive)] == operands


def test_operand_offsets_point_into_the_derivation() -> None:
    derive = "(310 - 240) / 240 * 100"
    assert [derive[token.start : token.end] for token in derivation_operands(derive)] == ["310", "240", "240"]


@given(st.integers(-(10**9), 10**9), st.integers(-(10**9), 10**9))
def test_integer_arithmetic_matches_python(left: int, right: int) -> None:
    assert evaluate_derivation(f"{left} - ({right}) * 3") == Decimal(left - right * 3)
