"""Whether one claim is licensed, and if not, exactly why: the per-claim half of the grounding router.

Four ways to a licence, tried in this order:

1. **verbatim**: the claim's text is one unit (or whole sentence) of a verified
   cited node, or repeats a licensed premise; it keeps its grounds' status;
2. **conjunction**: a claim with premises and no citations whose text is its
   premises' texts joined in order (by ``,`` ``;`` ``and`` ``also``, or a
   ``which`` standing for the next premise's subject); it keeps the weakest
   premise status, and a ``which``-join may not be asserted in the prose;
3. **paraphrase**: one unit of one verified cited node (or one licensed
   premise) covers every figure of the claim and supports every word of it
   (:mod:`wording`); the router caps it at ``inferred``;
4. **calculation**: a ``[calculation]`` whose ``derive`` evaluates to a stated
   figure, in the unit its arithmetic produces, from operands one clause
   states; the rest of the claim is checked as a paraphrase of that clause.

Every refusal carries a :class:`Problem` naming the rule and the claim's own
words; the repair prompt and the trace show them. Source bodies never appear
in a problem: only claim ids, refs as the model wrote them, and rule names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from memdsl import Claim
from synapse_server.navigation.calculation import CalculationError, derivation_operands, evaluate_derivation, rounds_to
from synapse_server.navigation.coverage import (
    LABEL_STOPWORDS,
    NumberCoverage,
    clause_coverage,
    label_words,
    number_coverage,
    operand_covered,
    restated_unit,
)
from synapse_server.navigation.numbers import NumToken, all_numbers
from synapse_server.navigation.text import normalise_words, plain_text, word_spans
from synapse_server.navigation.unit_algebra import (
    SHAPE_WORDS,
    UnitMismatch,
    derivation_shape,
    result_unit,
    states_unit,
)
from synapse_server.navigation.wording import DOWN, UP, canonical_word, direction_of, heading_frame, wording_support

__all__ = ["Clause", "Licence", "Problem", "conjunction_kind", "license_calculation", "license_words"]

Joined = Literal["strict", "relative"]


@dataclass(frozen=True, slots=True)
class Clause:
    """A licensing candidate: one clause's plain text, its heading path, and where it came from (a ref)."""

    text: str
    headings: tuple[str, ...] = ()
    origin: str = ""


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a claim is not licensed: the rule and the model's own tokens, safe to show the model and the trace."""

    claim_id: str
    rule: str
    detail: str

    def line(self) -> str:
        return f"{self.claim_id}: {self.rule}: {self.detail}"


@dataclass(frozen=True, slots=True)
class Licence:
    licensed: bool
    clauses: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = ()
    verbatim: bool = False
    joined: Joined | None = None


def license_words(claim: Claim, candidates: Sequence[Clause], *, verbatim_targets: Sequence[Clause] = ()) -> Licence:
    """Verbatim, else a paraphrase of one candidate clause whose figures and words it covers."""
    for target in verbatim_targets:
        if restated_unit(claim.text, [target.text]) is not None:
            return Licence(True, (target.text,), verbatim=True)
    plain = plain_text(claim.text)
    failures: list[tuple[int, Problem]] = []
    for clause in candidates:
        numbers = number_coverage(claim.text, clause.text, labels=False)
        if not numbers.covered:
            failures.append((_overlap(plain, clause.text), _number_problem(claim.id, numbers, clause)))
            continue
        frame = heading_frame(plain, clause.headings)
        words = wording_support(plain, clause.text, context=clause.headings, skip=(frame,) if frame else ())
        if words.supported:
            return Licence(True, (clause.text,))
        problem = _word_problem(claim.id, words.rule, words.tokens, clause, labels=label_words(claim.text))
        failures.append((_overlap(plain, clause.text) + 1000, problem))
    if not candidates:
        return Licence(False, problems=(Problem(claim.id, "uncovered", "no verified clause to license it"),))
    figures_covered = any(problem.rule not in _NUMBER_RULES for _, problem in failures)
    if len(all_numbers(plain)) > 1 and not figures_covered:
        _, pooled = clause_coverage(claim.text, [c.text for c in candidates])
        if pooled.reason == "pooled":
            detail = f"figures {_quoted(pooled.missing)} are spread over several clauses; one claim per clause"
            return Licence(False, problems=(Problem(claim.id, "pooled", detail),))
    best = max(failures, key=lambda entry: entry[0])[1]
    return Licence(False, problems=(best,))


def conjunction_kind(text: str, premise_texts: Sequence[str]) -> Joined | None:
    """Whether ``text`` is exactly its premises' texts joined in order; ``relative`` when a ``which`` joins one."""
    words = normalise_words(text)
    parts = [normalise_words(p) for p in premise_texts]
    if len(parts) < 2 or any(not part for part in parts):
        return None
    return _join(words, 0, parts, 0, relative=False)


def license_calculation(claim: Claim, candidates: Sequence[Clause]) -> Licence:
    """A derived figure: the derivation evaluates to it, in the right unit and direction, from one clause's figures."""
    if claim.derive is None:
        return _refuse(claim.id, "derive", 'a calculation needs derive "<arithmetic>"')
    try:
        result = evaluate_derivation(claim.derive)
        operands = derivation_operands(claim.derive)
        shape = derivation_shape(claim.derive)
    except CalculationError as error:
        return _refuse(claim.id, "derive", f'derive "{claim.derive}" cannot be evaluated ({error.code})')
    plain = plain_text(claim.text)
    tokens = all_numbers(plain)
    derived = [token for token in tokens if rounds_to(result, token)]
    if not derived:
        return _refuse(claim.id, *_arithmetic(claim.derive, result, tokens))
    stated = derived[-1]
    window = _result_window(plain, tokens, stated)
    problems: list[Problem] = []
    for clause in candidates:
        problem = _calculation_problem(claim, clause, plain, tokens, stated, window, operands, shape)
        if problem is None:
            return Licence(True, (clause.text,))
        problems.append(problem)
    if not problems:
        return _refuse(claim.id, "uncovered", "no verified clause supplies the operands")
    rank = {"operand": 0, "words": 1, "unit": 2, "direction": 3, "label": 3}
    return Licence(False, problems=(max(problems, key=lambda p: rank.get(p.rule, 1)),))


def _calculation_problem(
    claim: Claim,
    clause: Clause,
    plain: str,
    tokens: Sequence[NumToken],
    stated: NumToken,
    window: tuple[int, int],
    operands: Sequence[NumToken],
    shape: str,
) -> Problem | None:
    absent = [operand.raw for operand in operands if not operand_covered(operand, clause.text)]
    if absent:
        return Problem(claim.id, "operand", f"operand {_quoted(absent)} not in the cited clause of {clause.origin}")
    evidence = all_numbers(plain_text(clause.text))
    try:
        unit = result_unit(claim.derive or "", lambda value: _unit_in(evidence, value))
    except UnitMismatch as error:
        return Problem(claim.id, "unit", f'derive "{claim.derive}": {error}')
    if not states_unit(stated, unit, following=_next_word(plain, stated.end)):
        return Problem(
            claim.id, "unit", f'figure "{stated.raw}": derive "{claim.derive}" gives {_unit_name(unit)}, not this unit'
        )
    label = [
        w
        for w, s, e in word_spans(plain)
        if window[0] <= s and e <= window[1] and w[0].isalpha() and not any(t.start <= s < t.end for t in tokens)
    ]
    allowed = SHAPE_WORDS.get(shape, frozenset())  # type: ignore[call-overload]
    moving = shape in ("difference", "percent-change")  # direction words are checked against the clause below
    clause_terms = {canonical_word(w) for w, _, _ in word_spans(clause.text + " " + " ".join(clause.headings))}
    stray = [
        w
        for w in label
        if w not in LABEL_STOPWORDS
        and w not in allowed
        and not (moving and direction_of([w]))
        and canonical_word(w) not in clause_terms
        and w not in ("percentage", "points", "point", "percent", "bps", "basis", "times")
    ]
    if stray:
        return Problem(claim.id, "label", f'figure "{stated.raw}": words {_quoted(stray)} do not name a {shape}')
    direction = direction_of(label)
    change = _change(operands, evidence)
    if direction and change is not None and change != 0 and direction != {UP if change > 0 else DOWN}:
        return Problem(claim.id, "direction", f'figure "{stated.raw}": the cited figures move the other way')
    rest = (plain[: window[0]] + " " + plain[window[1] :]).strip()
    if any(t.start < window[0] or t.end > window[1] for t in tokens if t is not stated):
        numbers = number_coverage(rest, clause.text)
        if not numbers.covered:
            return _number_problem(claim.id, numbers, clause)
    words = wording_support(rest, clause.text, context=clause.headings) if rest else None
    if words is not None and not words.supported:
        return _word_problem(claim.id, words.rule, words.tokens, clause)
    return None


def _result_window(plain: str, tokens: Sequence[NumToken], stated: NumToken) -> tuple[int, int]:
    """The span that states the derived figure: from the previous figure or clause mark to the next one."""
    before = [t.end for t in tokens if t.end <= stated.start]
    start = max(before) if before else 0
    for mark in (",", ";", "\u2014", " - ", ":"):
        at = plain.rfind(mark, start, stated.start)
        if at >= 0:
            start = max(start, at + len(mark))
    after = [t.start for t in tokens if t.start >= stated.end]
    end = min(after) if after else len(plain)
    for mark in (",", ";", "\u2014"):
        at = plain.find(mark, stated.end, end)
        if at >= 0:
            end = at
    return start, end


def _change(operands: Sequence[NumToken], evidence: Sequence[NumToken]) -> Decimal | None:
    """New minus old, reading the two operands in the order the clause states them (``from 21% to 14%``)."""
    found = []
    for operand in operands:
        match = next((t for t in evidence if t.sign == operand.sign and operand.numeral in (t.numeral, t.value)), None)
        if match is None:
            return None
        found.append(match)
    if len(found) != 2:
        return None
    old, new = sorted(found, key=lambda token: token.start)
    return new.signed - old.signed


def _next_word(plain: str, at: int) -> str:
    rest = plain[at:].split(maxsplit=1)
    return rest[0].strip(".,;:").casefold() if rest else ""


def _unit_in(evidence: Sequence[NumToken], value: Decimal) -> str | None:
    token = next((t for t in evidence if value in (t.numeral, t.value) and t.kind not in ("date", "version")), None)
    if token is None or token.kind == "plain":
        return None
    if token.kind == "percent":
        return "%"
    if token.kind == "points":
        return "pp"
    if token.kind == "multiplier":
        return "ratio"
    return token.unit


def _unit_name(unit: str | None) -> str:
    return {"pp": "percentage points", "%": "a percent", "ratio": "a ratio (x, times)", None: "a bare number"}.get(
        unit, unit or "a bare number"
    )


def _arithmetic(derive: str, result: Decimal, tokens: Sequence[NumToken]) -> tuple[str, str]:
    candidates = [t for t in tokens if t.kind not in ("date", "version", "ratio")]
    shown = format(result.normalize(), "f") if abs(result) < Decimal(10) ** 15 else str(result)
    for token in candidates:
        quantum = Decimal(1).scaleb(-token.places)
        if any(abs(result) == target for target in (token.numeral, token.value)):
            return "sign", f'derive "{derive}" gives {shown}: the sign differs from "{token.raw}" (a fall is old - new)'
        if any(abs(abs(result) - target) < quantum for target in (token.numeral, token.value)):
            return "rounding", f'derive "{derive}" gives {shown}, which does not round to "{token.raw}"'
    stated = _quoted([t.raw for t in candidates]) or "no figure"
    return "arithmetic", f'derive "{derive}" gives {shown}, not {stated}'


def _join(
    words: tuple[str, ...], at: int, parts: list[tuple[str, ...]], index: int, *, relative: bool
) -> Joined | None:
    if index == len(parts):
        return ("relative" if relative else "strict") if at == len(words) else None
    if index:
        for joiner in ((), ("and",), ("also",), ("and", "also")):
            found = (
                _part(words, at + len(joiner), parts, index, relative)
                if words[at : at + len(joiner)] == joiner
                else None
            )
            if found is not None:
                return found
        if words[at : at + 1] == ("which",):
            part = parts[index]
            for drop in range(1, len(part) - 2):
                suffix = part[drop:]
                if words[at + 1 : at + 1 + len(suffix)] == suffix and not any(w[0].isdigit() for w in part[:drop]):
                    found = _join(words, at + 1 + len(suffix), parts, index + 1, relative=True)
                    if found is not None:
                        return found
        return None
    return _part(words, at, parts, index, relative)


def _part(words: tuple[str, ...], at: int, parts: list[tuple[str, ...]], index: int, relative: bool) -> Joined | None:
    part = parts[index]
    if words[at : at + len(part)] != part:
        return None
    return _join(words, at + len(part), parts, index + 1, relative=relative)


def _overlap(claim_plain: str, clause: str) -> int:
    claim = {w for w in normalise_words(claim_plain) if w not in LABEL_STOPWORDS}
    return len(claim & set(normalise_words(clause)))


def _number_problem(claim_id: str, coverage: NumberCoverage, clause: Clause) -> Problem:
    reason = coverage.reason or "uncovered"
    missing = coverage.missing
    where = f"the cited clause of {clause.origin}" if clause.origin else "the licensing clause"
    if reason == "label":
        return Problem(claim_id, "label", f"label words {_quoted(missing)} not in {where}")
    if reason == "identifier":
        return Problem(claim_id, "identifier", f"identifier {_quoted(missing)} not in {where}")
    return Problem(claim_id, reason, f"figure {_quoted(missing[:1])} {_NUMBER_RULES.get(reason, 'not in')} {where}")


_NUMBER_RULES = {
    "changed-number": "differs from every figure in",
    "sign": "has another sign in",
    "unit": "has another unit in",
    "order": "is out of order against",
    "uncovered": "is not in",
    "pooled": "is pooled across clauses, not in one of",
    "derivation": "needs a [calculation] derivation; not in",
}


def _word_problem(
    claim_id: str, rule: str | None, tokens: Sequence[str], clause: Clause, labels: frozenset[str] = frozenset()
) -> Problem:
    where = f"the cited clause of {clause.origin}" if clause.origin else "the premise it rests on"
    if rule == "words" and labels.intersection(tokens):
        return Problem(claim_id, "label", f"label words {_quoted(tokens)} not in {where}")
    if rule == "words":
        return Problem(claim_id, "words", f"words {_quoted(tokens)} not in {where}")
    if rule == "order":
        return Problem(claim_id, "order", f"words {_quoted(tokens)} are out of the order of {where}")
    return Problem(claim_id, rule or "words", f"{rule} {_quoted(tokens)} differs from {where}")


def _refuse(claim_id: str, rule: str, detail: str) -> Licence:
    return Licence(False, problems=(Problem(claim_id, rule, detail),))


def _quoted(tokens: Sequence[str]) -> str:
    return ", ".join(f'"{token}"' for token in tokens[:6])
