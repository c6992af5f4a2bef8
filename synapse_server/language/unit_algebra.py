"""The unit of a derivation's result, from the units of the figures it is computed from.

A calculation may state a result only in the unit its arithmetic produces:

| derivation | operands | result |
|---|---|---|
| ``a - b``, ``a + b`` | both percentages | percentage points (``pp``, ``percentage points``, ``points``) |
| ``a - b``, ``a + b`` | both in one unit (bps, $, ms ...) | that unit |
| ``(b - a) / a * 100`` | one unit | percent (``%``) |
| ``a / b`` | one unit | a ratio: unitless (``x``, ``times``, or a bare number) |
| ``a * k``, ``a / k`` | ``k`` a bare constant | ``a``'s unit |

Anything else (adding bps to dollars, multiplying two measured figures) has no
unit a stated figure could match, and the calculation abstains ``unit``.
The shape of the derivation (difference, percent change, ratio, sum) also
decides which words may label the result (:data:`SHAPE_WORDS`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from decimal import Decimal
from typing import Literal

from synapse_server.language.calculation import _exempt_literals, _parse
from synapse_server.language.numbers import NumToken

__all__ = ["SHAPE_WORDS", "Shape", "UnitMismatch", "derivation_shape", "result_unit", "states_unit"]

Shape = Literal["difference", "sum", "percent-change", "ratio", "scaled", "other"]
RATIO = "ratio"
POINTS = "pp"

SHAPE_WORDS: dict[Shape, frozenset[str]] = {
    "difference": frozenset(
        "difference reduction increase decrease change gap drop rise gain fall decline cut spread improvement "
        "deterioration less more lower higher smaller larger".split()
    ),
    "percent-change": frozenset(
        "change growth increase decrease reduction rise fall drop decline gain relative percent".split()
    ),
    "ratio": frozenset("ratio times multiple fold".split()),
    "sum": frozenset("total sum combined together altogether".split()),
    "scaled": frozenset(),
    "other": frozenset(),
}
"""Words a derived figure's label may add beyond the clause, by the derivation's shape."""


class UnitMismatch(ValueError):
    """The derivation combines figures whose units have no common result."""


def derivation_shape(derive: str) -> Shape:
    """What kind of calculation the derivation is, judged from its outermost operation."""
    tree, literals = _parse(derive)
    exempt = _exempt_literals(tree.body, literals)
    body = tree.body
    if isinstance(body, ast.BinOp) and isinstance(body.op, ast.Mult | ast.Div) and _is_exempt(body.right, exempt):
        inner = body.left
        if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Div) and _has_difference(inner):
            return "percent-change"
        if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Div):
            return "percent-change" if isinstance(body.op, ast.Mult) else "scaled"
        return "scaled"
    if isinstance(body, ast.BinOp) and isinstance(body.op, ast.Sub) and _is_exempt(body.right, exempt):
        return "percent-change"  # new / old - 1
    if isinstance(body, ast.BinOp) and isinstance(body.op, ast.Sub):
        return "difference"
    if isinstance(body, ast.BinOp) and isinstance(body.op, ast.Add):
        return "sum"
    if isinstance(body, ast.BinOp) and isinstance(body.op, ast.Div):
        return "ratio"
    return "other"


def result_unit(derive: str, unit_of: Callable[[Decimal], str | None]) -> str | None:
    """The unit of the derivation's value; ``unit_of`` gives each operand's unit as the evidence states it."""
    tree, literals = _parse(derive)
    exempt = _exempt_literals(tree.body, literals)

    def unit(node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            if node.id in exempt:
                return _CONSTANT
            return "%" if literals[node.id].percent else unit_of(literals[node.id].value)
        if isinstance(node, ast.UnaryOp):
            return unit(node.operand)
        if not isinstance(node, ast.BinOp):
            raise UnitMismatch("unsupported expression")
        left, right = unit(node.left), unit(node.right)
        if isinstance(node.op, ast.Add | ast.Sub):
            if _CONSTANT in (left, right):
                return left if right == _CONSTANT else right
            if left != right:
                raise UnitMismatch(f"{_name(left)} and {_name(right)} cannot be added or subtracted")
            return POINTS if left == "%" else left
        if isinstance(node.op, ast.Div):
            if right == _CONSTANT:
                return left
            if left == right or (left, right) == (POINTS, "%"):
                return RATIO
            raise UnitMismatch(f"{_name(left)} divided by {_name(right)} has no unit")
        if _CONSTANT in (left, right):
            scaled, constant = (left, node.right) if right == _CONSTANT else (right, node.left)
            if scaled == RATIO and isinstance(constant, ast.Name) and literals[constant.id].value == 100:
                return "%"
            return scaled
        if left is None and right is None:
            return None
        raise UnitMismatch(f"{_name(left)} times {_name(right)} has no unit")

    found = unit(tree.body)
    return None if found == _CONSTANT else found


_CONSTANT = "constant"


def _name(unit: str | None) -> str:
    names = {None: "a bare number", "%": "a percentage", POINTS: "percentage points", RATIO: "a ratio"}
    return names.get(unit, unit or "")


def states_unit(stated: NumToken, unit: str | None, *, following: str = "") -> bool:
    """Whether a stated figure is written in the unit the arithmetic produced (``following``: the word after it)."""
    named = (stated.unit or "").lower() if stated.kind == "measure" else following if stated.kind == "plain" else ""
    if unit == POINTS:
        return stated.kind == "points" or named in _POINT_WORDS
    if unit == "%":
        return stated.kind == "percent"
    if unit == RATIO:
        return (
            stated.kind == "multiplier"
            or named in _TIMES_WORDS
            or (stated.kind == "plain" and named not in _POINT_WORDS)
        )
    if unit is None:
        return stated.kind == "plain" and named not in _POINT_WORDS
    return stated.unit == unit


_POINT_WORDS = frozenset({"points", "point", "pts", "pt"})
_TIMES_WORDS = frozenset({"times", "fold"})


def _is_exempt(node: ast.expr, exempt: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in exempt


def _has_difference(node: ast.BinOp) -> bool:
    return isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.Sub)
