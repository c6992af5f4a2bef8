"""Calculations by meaning: the claim's relation phrase fixes the expression, the clause's roles fix the operands.

Evaluation alone never licenses a derived figure. The words around it say
what it is, and that decides the exact value it must round from:

- an increase / rise / growth of N% is (new - old) / old x 100 with new > old;
  a reduction / decrease / drop / fall / discount / cut of N% is
  (old - new) / old x 100 with new < old;
- N percentage points (pp, points) is new - old of percentage operands;
- N times (x, -fold) is new / old;
- a difference / gap / spread is the larger minus the smaller, in their unit;
- a change of N in the operands' unit (``an increase of 3 bps``) is new - old;
- a total / sum / combined figure adds only quantities the clause presents as
  parts of one whole;
- P% of X is P / 100 x X, in X's unit.

Old and new come from the clause's roles (``from A to B``, ``A -> B``,
``was A, now B``, ``B, down from A``), never from the order the figures are
written in. The derive may use no constant the clause does not state except
the 100 (and the 1 of new / old - 1) of a percent shape; the stated figure
must round from the exact value at its stated precision, a magnitude suffix is
part of the figure, and a non-zero exact change never rounds to zero.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from synapse_server.language.calculation import (
    CalculationError,
    derivation_constants,
    derivation_operands,
    evaluate_derivation,
)
from synapse_server.language.numbers import NumToken, all_numbers
from synapse_server.language.words import Token, direction, stem
from synapse_server.licensing.alignment import Finding
from synapse_server.licensing.rules import RuleId

__all__ = ["Derived", "derived_figure", "rounds_from"]

Kind = Literal["percent-change", "points", "times", "change", "difference", "total", "percent-of"]
_UP = frozenset(stem(w) for w in "increase rise growth gain up higher jump climb grow more".split())
_DOWN = frozenset(
    stem(w)
    for w in "reduction reduce decrease drop fall discount cut down lower decline less cheaper saving save".split()
)
_TIMES = frozenset({stem("times"), "times", "fold", "x"})
_POINTS = frozenset(stem(w) for w in ("points", "pp", "pt", "percentage"))
_DIFFERENCE = frozenset(stem(w) for w in "difference gap spread".split())
_TOTAL = frozenset(stem(w) for w in "total sum combined together altogether".split())
_PARTS = re.compile(
    r"\b(?:total|combined|sum|together|altogether|plus|consists?|comprises?|made up of|split|breakdown|components?|parts?)\b"
    r"|\+",
    re.IGNORECASE,
)
_FROM_TO = re.compile(r"\bfrom\s*$", re.IGNORECASE)
_TO = re.compile(r"^\s*(?:to|->|\u2192|=>)\s*$", re.IGNORECASE)
_ARROW = re.compile(r"^\s*(?:->|\u2192|=>)\s*$")
_WAS_NOW = re.compile(r"^\W*(?:and\s+)?(?:is\s+)?now\s*$", re.IGNORECASE)
_WAS = re.compile(r"\bwas\s*$", re.IGNORECASE)
_DOWN_FROM = re.compile(
    r"^\W*(?:down|up|reduced|raised|cut|lowered|discounted|increased|decreased|dropped|fell|rose|marked down|marked up)"
    r"\s+from\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Derived:
    """A derived figure's verdict: the findings, and the claim tokens that remain to align with the clause."""

    findings: tuple[Finding, ...]
    rest: tuple[Token, ...]


def derived_figure(claim: Sequence[Token], cuts: Sequence[int], derive: str, clause_plain: str) -> Derived:
    """Check the one figure the derive produces against what its relation phrase means in this clause."""
    evidence = [t for t in all_numbers(clause_plain) if t.kind not in ("date", "version")]
    stated_at = [i for i, t in enumerate(claim) if t.figure is not None and not _in_clause(t.figure, evidence)]
    if len(stated_at) != 1:
        detail = "the claim states no figure the clause lacks" if not stated_at else "one derived figure per claim"
        return Derived((Finding(RuleId.DERIVE, detail),), tuple(claim))
    index = stated_at[0]
    stated = claim[index].figure
    assert stated is not None
    start, end = _phrase(claim, cuts, index)
    rest = tuple(t for k, t in enumerate(claim) if not start <= k < end)
    bounds = [0, *cuts, len(claim)]
    segment = (max(b for b in bounds if b <= index), min(b for b in bounds if b > index))
    findings = _check(claim, segment, index, stated, derive, clause_plain, evidence)
    return Derived(tuple(findings), rest)


def _phrase(claim: Sequence[Token], cuts: Sequence[int], index: int) -> tuple[int, int]:
    """The derived figure's phrase: a trailing segment that holds only it, else the figure and the words tied to it.

    ``…, an increase of 3 bps`` is stripped whole; in ``Exposure rose 30% from 240 to 310`` only ``30%`` is,
    so the rest still says the clause's own verb.
    """
    bounds = [0, *cuts, len(claim)]
    seg_start = max(b for b in bounds if b <= index)
    seg_end = min(b for b in bounds if b > index)
    others = [k for k in range(seg_start, seg_end) if k != index and claim[k].figure is not None]
    earlier = {claim[k].term for k in range(seg_start)}
    if seg_start > 0 and all(claim[k].term in earlier for k in others):
        return seg_start, seg_end  # the segment only restates operands already said ("and 2.5% of $400 is $10")
    start = index
    while start > seg_start and claim[start - 1].cls in ("free", "preposition"):
        start -= 1
    end = index + 1
    if end < seg_end and claim[end].term in _TIMES | _POINTS:
        end += 1
    return start, end


def _check(
    claim: Sequence[Token],
    segment: tuple[int, int],
    index: int,
    stated: NumToken,
    derive: str,
    clause_plain: str,
    evidence: Sequence[NumToken],
) -> list[Finding]:
    try:
        value = evaluate_derivation(derive)
        operands = derivation_operands(derive)
        constants = derivation_constants(derive)
    except CalculationError as error:
        return [Finding(RuleId.DERIVE, f'derive "{derive}" cannot be evaluated ({error.code})')]
    near = [t.term for t in claim[segment[0] : segment[1]]]
    kind, moving = _relation(stated, near, claim, index)
    if kind is None:
        return [
            Finding(
                RuleId.RELATION,
                f'figure "{stated.raw}": say what it is (an increase of, a reduction of, '
                "percentage points, times, a difference, a total, P% of X)",
            )
        ]
    found: list[Finding] = []
    used = [_evidence_for(op, evidence) for op in operands]
    absent = [op.raw for op, ev in zip(operands, used, strict=True) if ev is None]
    if absent:
        found.append(Finding(RuleId.OPERAND, f"operand {_quoted(absent)} is not a figure of the cited clause"))
        return found
    figures = list({ev.start: ev for ev in used if ev is not None}.values())
    percent_shape = kind in ("percent-change", "percent-of")
    stray = [c for c in constants if not (percent_shape and c in (Decimal(100), Decimal(1)))]
    if stray:
        found.append(
            Finding(RuleId.CONSTANT, f'derive "{derive}" uses a constant the clause does not state ({_num(stray[0])})')
        )
    expected, problem = _expected(kind, moving, figures, clause_plain, claim, index)
    if problem is not None:
        found.append(problem)
        return found
    assert expected is not None
    unit_problem = _unit(kind, stated, figures, claim, index)
    if unit_problem is not None:
        found.append(unit_problem)
    if not rounds_from(expected, stated):
        if expected != 0 and stated.value == 0:
            found.append(Finding(RuleId.ZERO, f'figure "{stated.raw}": the exact change is {_num(expected)}, not zero'))
        else:
            found.append(
                Finding(RuleId.ROUNDING, f'figure "{stated.raw}": {_name(kind, moving)} here is {_num(expected)}')
            )
    if abs(value - expected) > abs(expected) * Decimal("0.000001") + Decimal("1e-12"):
        found.append(
            Finding(
                RuleId.DERIVE, f'derive "{derive}" gives {_num(value)}, not {_name(kind, moving)} ({_num(expected)})'
            )
        )
    return found


def _relation(
    stated: NumToken, near: Sequence[str], claim: Sequence[Token], index: int
) -> tuple[Kind | None, str | None]:
    """What the derived figure is, from its unit and the words next to it; None when they do not say."""
    words = set(near)
    up = bool(words & _UP) or any(direction(w) == "up" for w in words)
    down = bool(words & _DOWN) or any(direction(w) == "down" for w in words)
    moving = "up" if up and not down else "down" if down and not up else None
    if up and down:
        return None, None
    if _percent_of(claim, index):
        return "percent-of", None
    if stated.kind == "percent":
        return ("percent-change", moving) if moving else (None, None)
    following = claim[index + 1].term if index + 1 < len(claim) else ""
    if stated.kind == "points" or (stated.kind == "plain" and following in _POINTS):
        return "points", moving
    if stated.kind == "multiplier" or words & _TIMES:
        return "times", None
    if words & _DIFFERENCE:
        return "difference", None
    if words & _TOTAL:
        return "total", None
    if moving:
        return "change", moving
    return None, None


def _percent_of(claim: Sequence[Token], index: int) -> bool:
    """``P% of X is R``: a percent figure, ``of``, a figure, then the result."""
    for k in range(max(0, index - 6), index - 2):
        a, of, b = claim[k], claim[k + 1], claim[k + 2]
        if a.figure is not None and a.figure.kind == "percent" and of.term == "of" and b.figure is not None:
            return True
    return False


def _expected(
    kind: Kind, moving: str | None, figures: Sequence[NumToken], clause_plain: str, claim: Sequence[Token], index: int
) -> tuple[Decimal | None, Finding | None]:
    if kind == "percent-of":
        percent = next((f for f in figures if f.kind == "percent"), None)
        base = next((f for f in figures if f.kind != "percent"), None)
        if percent is None or base is None or len(figures) != 2:
            return None, Finding(RuleId.OPERAND, "P% of X takes one percentage and one amount from the clause")
        return percent.value / 100 * base.value, None
    if kind == "difference":
        if len(figures) != 2 or figures[0].unit != figures[1].unit:
            return None, Finding(RuleId.OPERAND, "a difference takes two figures of one unit from the clause")
        return abs(figures[0].signed - figures[1].signed), None
    if kind == "total":
        if len(figures) < 2 or len({f.unit for f in figures}) != 1:
            return None, Finding(RuleId.OPERAND, "a total adds figures of one unit from the clause")
        if _role_pair(clause_plain, figures) is not None or not _PARTS.search(clause_plain):
            return None, Finding(RuleId.PARTS, "the clause does not present these figures as parts of one whole")
        return sum((f.signed for f in figures), Decimal(0)), None
    pair = _role_pair(clause_plain, figures)
    if pair is None or len(figures) != 2:
        return None, Finding(
            RuleId.ROLES, "the clause does not say which figure is old and which new (from A to B, was A now B)"
        )
    old, new = pair
    if kind == "points" and not (old.kind == "percent" and new.kind == "percent"):
        return None, Finding(RuleId.CALC_UNIT, "percentage points are a change of two percentages")
    change = new.signed - old.signed
    if (moving == "up" and change <= 0) or (moving == "down" and change >= 0):
        return None, Finding(RuleId.CALC_DIRECTION, "the cited figures move the other way")
    if kind == "times":
        if old.signed == 0:
            return None, Finding(RuleId.OPERAND, "a ratio to zero has no value")
        return new.signed / old.signed, None
    if kind == "percent-change":
        if old.signed == 0:
            return None, Finding(RuleId.OPERAND, "a percent change from zero has no value")
        return abs(change) / abs(old.signed) * 100, None
    return abs(change) if moving else change, None


def _role_pair(clause_plain: str, figures: Sequence[NumToken]) -> tuple[NumToken, NumToken] | None:
    """(old, new) when the clause gives the two figures those roles in words; None otherwise."""
    if len(figures) != 2:
        return None
    first, second = sorted(figures, key=lambda f: f.start)
    between = clause_plain[first.end : second.start]
    before = clause_plain[max(0, first.start - 40) : first.start]
    if _TO.match(between) and (_FROM_TO.search(before) or _ARROW.match(between)):
        return first, second
    if _WAS_NOW.match(between) and _WAS.search(before):
        return first, second
    if _DOWN_FROM.match(between):
        return second, first
    return None


def _unit(
    kind: Kind, stated: NumToken, figures: Sequence[NumToken], claim: Sequence[Token], index: int
) -> Finding | None:
    following = claim[index + 1].term if index + 1 < len(claim) else ""
    if kind == "percent-change":
        ok = stated.kind == "percent"
        want = "a percent"
    elif kind == "points":
        ok = stated.kind == "points" or following in _POINTS
        want = "percentage points"
    elif kind == "times":
        ok = stated.kind == "multiplier" or (stated.kind == "plain" and following in _TIMES)
        want = "times (x)"
    else:
        base = next((f for f in figures if f.kind != "percent"), figures[0]) if kind == "percent-of" else figures[0]
        ok = (stated.kind, stated.unit) == (base.kind, base.unit)
        want = f"the operands' unit ({base.unit or 'a bare number'})"
    if ok:
        return None
    return Finding(RuleId.CALC_UNIT, f'figure "{stated.raw}" must be in {want}')


def rounds_from(expected: Decimal, stated: NumToken) -> bool:
    """The stated figure (magnitude included) is the exact value rounded half-up at the stated precision."""
    if stated.sign == "\u00b1":
        return False
    scale = stated.value / stated.numeral if stated.numeral else Decimal(1)
    quantum = Decimal(1).scaleb(-stated.places) * scale
    rounded = (expected / quantum).to_integral_value(rounding=ROUND_HALF_UP) * quantum
    target = stated.signed if expected < 0 else stated.value
    if expected != 0 and stated.value == 0:
        return False
    return rounded == target


def _in_clause(figure: NumToken, evidence: Sequence[NumToken]) -> bool:
    return any(figure.key == e.key for e in evidence)


def _evidence_for(operand: NumToken, evidence: Sequence[NumToken]) -> NumToken | None:
    """The clause figure an operand names (as written, or by value), with the same sign."""
    for token in evidence:
        if token.sign == operand.sign and operand.numeral in (token.numeral, token.value):
            if operand.kind == "percent" and token.kind != "percent":
                continue
            return token
    return None


def _name(kind: Kind, moving: str | None) -> str:
    if kind == "percent-change":
        return "an increase in %" if moving == "up" else "a reduction in %"
    return {
        "points": "the change in percentage points",
        "times": "the ratio new / old",
        "change": "the change new - old",
        "difference": "the difference",
        "total": "the total",
        "percent-of": "P% of X",
    }[kind]


def _num(value: Decimal) -> str:
    text = format(value.normalize(), "f") if abs(value) < Decimal(10) ** 15 else str(value)
    if "." in text and len(text.split(".")[1]) > 6:
        text = format(value.quantize(Decimal("0.000001")).normalize(), "f")
    return text


def _quoted(words: Sequence[str]) -> str:
    return ", ".join(f'"{w}"' for w in list(dict.fromkeys(words))[:6])
