"""Checking a ``calculation`` claim's derivation: evaluate it safely and compare at the stated precision.

A derivation such as ``(310 - 240) / 240 * 100`` is untrusted model text. It is
tokenised here, each number is replaced by a placeholder name, and only then
parsed with :mod:`ast`; the tree may hold nothing but those names, ``+ - * /``,
unary ``-``/``+`` and parentheses. Numbers are exact :class:`~decimal.Decimal`
values, never floats. A ``%`` directly after a number is a percent suffix
(``5%`` is 0.05); ``%`` anywhere else, powers, names, calls and every other
construct raise :class:`CalculationError` with a stable ``code``.

Precision rule: the result licenses a stated figure when, rounded half-up
(ties away from zero, as by hand) to the figure's own decimal places, it
equals the figure: ``29.1666…`` licenses ``29.2%`` and ``29%`` but not
``30%``. The comparison is signed (a fall is derived as old - new), and the
percent sign of the stated figure is not arithmetic: the derivation of
``29.2%`` must produce 29.2, not 0.292.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from decimal import Context, Decimal, DivisionByZero, InvalidOperation, Overflow, localcontext

from synapse_server.language.numbers import NUMERAL, NumKind, NumToken

__all__ = [
    "CalculationError",
    "derivation_constants",
    "derivation_operands",
    "evaluate_derivation",
]

MAX_DERIVATION_CHARS = 500
MAX_NESTING = 32


class CalculationError(ValueError):
    """A derivation that cannot be evaluated; ``code`` is stable, ``column`` is 0-based where known."""

    def __init__(self, code: str, message: str, column: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.column = column


@dataclass(frozen=True, slots=True)
class _Literal:
    value: Decimal
    raw: str
    start: int
    end: int
    percent: bool


_TOKEN = re.compile(r"(?P<space>\s+)|(?P<num>" + NUMERAL + r"|\.\d+)(?P<pct>\s*%)?(?!\d)|(?P<op>[-+*/×÷−–()])")
_OPERATOR = {"×": "*", "÷": "/", "−": "-", "–": "-"}
_BINARY: dict[type[ast.operator], str] = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}


def evaluate_derivation(derive: str) -> Decimal:
    """The exact value of a derivation, or :class:`CalculationError`."""
    tree, literals = _parse(derive)
    with localcontext(Context(prec=34, traps=[DivisionByZero, InvalidOperation, Overflow])):
        try:
            return _evaluate(tree.body, literals)
        except (DivisionByZero, InvalidOperation) as error:
            raise CalculationError("division-by-zero", "the derivation divides by zero") from error
        except Overflow as error:
            raise CalculationError("overflow", "the derivation's value is out of range") from error


def derivation_operands(derive: str) -> tuple[NumToken, ...]:
    """The numbers the cited evidence must supply, in order; conversion constants are left out.

    Exempt: ``100`` as the right operand of ``*`` or ``/`` (a percent
    conversion) and ``1`` subtracted from or added to a quotient (the
    ``new / old - 1`` growth idiom). A literal under a unary minus is a
    negative operand.
    """
    tree, literals = _parse(derive)
    exempt = _exempt_literals(tree.body, literals)
    operands: list[NumToken] = []
    for node in ast.walk(tree.body):
        if isinstance(node, ast.Name) and node.id not in exempt:
            literal = literals[node.id]
            negative = any(
                isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub) and parent.operand is node
                for parent in ast.walk(tree.body)
            )
            operands.append(_operand_token(literal, negative))
    return tuple(sorted(operands, key=lambda token: token.start))


def derivation_constants(derive: str) -> tuple[Decimal, ...]:
    """The conversion constants :func:`derivation_operands` leaves out (a ``* 100``, the ``- 1`` of new / old - 1)."""
    tree, literals = _parse(derive)
    return tuple(literals[name].value for name in sorted(_exempt_literals(tree.body, literals)))


def _parse(derive: str) -> tuple[ast.Expression, dict[str, _Literal]]:
    """Tokenise, replace numbers by placeholder names, parse with ``ast`` and check every node is allowed."""
    if not derive.strip():
        raise CalculationError("empty", "the derivation is empty")
    if len(derive) > MAX_DERIVATION_CHARS:
        raise CalculationError("too-long", f"the derivation is longer than {MAX_DERIVATION_CHARS} characters")
    source: list[str] = []
    literals: dict[str, _Literal] = {}
    depth = position = 0
    while position < len(derive):
        match = _TOKEN.match(derive, position)
        if match is None:
            raise CalculationError("unsupported-token", f"unexpected {derive[position]!r}", position)
        if (number := match.group("num")) is not None:
            name = f"_n{len(literals)}"
            value = Decimal(number.replace(",", ""))
            literals[name] = _Literal(
                value, match.group().strip(), match.start(), match.end(), bool(match.group("pct"))
            )
            source.append(f" {name} ")
        elif (operator := match.group("op")) is not None:
            depth += {"(": 1, ")": -1}.get(operator, 0)
            if depth > MAX_NESTING:
                raise CalculationError("too-deep", f"parentheses nest deeper than {MAX_NESTING}", position)
            source.append(_OPERATOR.get(operator, operator))
        position = match.end()
    try:
        tree = ast.parse("".join(source).strip(), mode="eval")
    except SyntaxError as error:
        raise CalculationError("syntax", f"not an arithmetic expression: {error.msg}") from error
    for node in ast.walk(tree):
        if not isinstance(
            node, ast.Expression | ast.BinOp | ast.UnaryOp | ast.Name | ast.Load | ast.operator | ast.unaryop
        ):
            raise CalculationError("unsupported-operation", f"{type(node).__name__} is not allowed")
        if isinstance(node, ast.BinOp) and type(node.op) not in _BINARY:
            raise CalculationError("unsupported-operation", f"{type(node.op).__name__} is not allowed")
        if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.USub | ast.UAdd):
            raise CalculationError("unsupported-operation", f"{type(node.op).__name__} is not allowed")
    return tree, literals


def _evaluate(node: ast.expr, literals: dict[str, _Literal]) -> Decimal:
    if isinstance(node, ast.Name):
        literal = literals[node.id]
        return literal.value / 100 if literal.percent else literal.value
    if isinstance(node, ast.UnaryOp):
        operand = _evaluate(node.operand, literals)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left, literals), _evaluate(node.right, literals)
        operator = _BINARY[type(node.op)]
        if operator == "+":
            return left + right
        if operator == "-":
            return left - right
        return left * right if operator == "*" else left / right
    raise CalculationError("unsupported-operation", f"{type(node).__name__} is not allowed")


def _exempt_literals(root: ast.expr, literals: dict[str, _Literal]) -> set[str]:
    exempt: set[str] = set()
    for node in ast.walk(root):
        if not isinstance(node, ast.BinOp) or not isinstance(node.right, ast.Name):
            continue
        right = literals[node.right.id]
        if right.percent:
            continue
        if isinstance(node.op, ast.Mult | ast.Div) and right.value == 100:
            exempt.add(node.right.id)
        quotient = isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.Div)
        if isinstance(node.op, ast.Add | ast.Sub) and quotient and right.value == 1:
            exempt.add(node.right.id)
    return exempt


def _operand_token(literal: _Literal, negative: bool) -> NumToken:
    unit: str | None = "%" if literal.percent else None
    kind: NumKind = "percent" if literal.percent else "plain"
    return NumToken(
        literal.value, unit, "-" if negative else "+", literal.raw, literal.start, literal.end, kind, literal.value
    )
