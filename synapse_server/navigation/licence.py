"""Whether one claim is licensed, and if not, every reason why: the per-claim half of the grounding router.

Four ways to a licence, tried in this order:

1. **verbatim**: the claim's text is one unit (or whole sentence) of a verified
   cited node, or repeats a licensed premise; it keeps its grounds' status;
2. **conjunction**: a claim with premises and no citations whose text is its
   premises' texts joined (by ``,`` ``;`` ``and`` ``also``, or a ``which``
   standing for the next premise's subject), in any order; it keeps the
   weakest premise status (:mod:`synapse_server.licensing.joins`);
3. **alignment**: the claim's tokens align in order to one unit of one
   verified cited node, in that unit's frame, by the named edit operations
   of :mod:`synapse_server.licensing.alignment`; an exact alignment (identical
   words, articles, frame words) keeps its grounds' status, any other is a
   paraphrase the router caps at ``inferred``;
4. **calculation**: a ``[calculation]`` whose derived figure is what its
   relation phrase means for the clause's figures in their roles
   (:mod:`synapse_server.licensing.relations`); the rest of the claim aligns
   with that clause.

Every refusal lists every failing rule of the clause that came closest, each
a :class:`~synapse_server.licensing.rules.RuleId` naming the claim's own
words; the repair prompt and the trace show them. Source bodies never appear
in a problem: only claim ids, refs as the model wrote them, and rule names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import Literal

from memdsl import Claim
from synapse_server.language.calculation import CalculationError, derivation_operands, evaluate_derivation
from synapse_server.language.numbers import all_numbers
from synapse_server.language.text import normalise_words, plain_text
from synapse_server.language.words import Token, tokens
from synapse_server.licensing.alignment import Alignment, Finding, align, cuts_of
from synapse_server.licensing.frames import EMPTY_FRAME, Frame
from synapse_server.licensing.relations import derived_figure
from synapse_server.licensing.rules import RuleId
from synapse_server.navigation.claims import Problem
from synapse_server.navigation.coverage import NumberCoverage, clause_coverage, number_coverage, restated_unit

__all__ = ["Clause", "Licence", "conjunction", "license_calculation", "license_words"]

Joined = Literal["strict", "relative"]
_MAX_CONJUNCTS = 5
"""A conjunction joins at most this many premises (their orders are tried one by one)."""


@dataclass(frozen=True, slots=True)
class Clause:
    """A licensing candidate: one clause's plain text, its heading path, where it came from, and its frame."""

    text: str
    headings: tuple[str, ...] = ()
    origin: str = ""
    frame: Frame = field(default=EMPTY_FRAME)


@dataclass(frozen=True, slots=True)
class Licence:
    licensed: bool
    clauses: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = ()
    verbatim: bool = False
    joined: Joined | None = None
    quote: tuple[str, str] | None = None
    """``(address, sentence)`` when the claim restates one sentence of one cited node verbatim."""


def license_words(claim: Claim, candidates: Sequence[Clause], *, verbatim_targets: Sequence[Clause] = ()) -> Licence:
    """Verbatim, else an alignment to one candidate clause in its frame (:mod:`synapse_server.licensing.alignment`)."""
    for target in verbatim_targets:
        if restated_unit(claim.text, [target.text]) is not None:
            return Licence(True, (target.text,), verbatim=True)
    if not candidates:
        return Licence(False, problems=(Problem(claim.id, "uncovered", "no verified clause to license it"),))
    said = normalise_words(claim.text)
    if any(normalise_words(label) == said for c in candidates for label in (*c.headings, *c.frame.texts)):
        detail = "the claim is a heading or label of the cited node, which asserts nothing; state what it says"
        return Licence(False, problems=(Problem(claim.id, RuleId.BARE_LABEL, detail),))
    plain = plain_text(claim.text)
    claimed = tokens(plain)
    cuts = cuts_of(plain, claimed)
    failures: list[tuple[tuple[int, int], tuple[Problem, ...]]] = []
    for clause in _likeliest(claimed, candidates):
        read = tokens(clause.text)
        alignment = align(claimed, read, clause.frame, claim_cuts=cuts, clause_cuts=cuts_of(clause.text, read))
        if alignment.ok:
            return Licence(True, (clause.text,), verbatim=alignment.exact)
        numbers = number_coverage(claim.text, clause.text)
        problems = [_number_problem(claim.id, numbers, clause)] if not numbers.covered else []
        problems += [
            _finding(claim.id, f, clause) for f in alignment.findings if numbers.covered or f.rule != RuleId.FIGURE
        ]
        failures.append(((-_overlap(claimed, read), alignment.cost), tuple(problems)))
    figures = {t.key for t in all_numbers(plain)}
    one_holds_all = any(figures <= {t.key for t in all_numbers(c.text)} for c in candidates)
    if len(figures) > 1 and not one_holds_all:
        _, pooled = clause_coverage(claim.text, [c.text for c in candidates])
        if pooled.reason == "pooled":
            detail = f"figures {_quoted(pooled.missing)} are spread over several clauses; one claim per clause"
            return Licence(False, problems=(Problem(claim.id, "pooled", detail),))
    best = min(failures, key=lambda entry: entry[0])[1]
    return Licence(False, problems=best)


def _likeliest(claimed: Sequence[Token], candidates: Sequence[Clause], keep: int = 12) -> list[Clause]:
    """The candidates sharing the most of the claim's terms, best first: aligning every clause costs too much."""
    ranked = sorted(candidates, key=lambda clause: -_overlap(claimed, tokens(clause.text)))
    return ranked[:keep]


def _overlap(claimed: Sequence[Token], read: Sequence[Token]) -> int:
    terms = {t.term for t in read if t.cls != "free"}
    return sum(1 for t in claimed if t.cls != "free" and t.term in terms)


def _finding(claim_id: str, finding: Finding, clause: Clause) -> Problem:
    where = f" ({clause.origin})" if clause.origin else ""
    return Problem(claim_id, finding.rule, finding.detail + where)


def conjunction(text: str, premise_texts: Sequence[str]) -> tuple[Joined, tuple[int, ...]] | None:
    """How ``text`` joins its premises' texts, and in which order of premises (the first order that fits)."""
    words = normalise_words(text)
    parts = [normalise_words(p) for p in premise_texts]
    if len(parts) < 2 or len(parts) > _MAX_CONJUNCTS or any(not part for part in parts):
        return None
    for order in permutations(range(len(parts))):
        kind = _join(words, 0, [parts[i] for i in order], 0, relative=False)
        if kind is not None:
            return kind, order
    return None


def license_calculation(claim: Claim, candidates: Sequence[Clause]) -> Licence:
    """A derived figure licensed by what its relation phrase means in one clause (:mod:`synapse_server.licensing.relations`)."""
    if claim.derive is None:
        return _refuse(claim.id, RuleId.DERIVE, 'a calculation needs derive "<arithmetic>"')
    try:
        evaluate_derivation(claim.derive)
    except CalculationError as error:
        return _refuse(claim.id, RuleId.DERIVE, f'derive "{claim.derive}" cannot be evaluated ({error.code})')
    if not candidates:
        return _refuse(claim.id, "uncovered", "no verified clause supplies the operands")
    plain = plain_text(claim.text)
    claimed = tokens(plain)
    cuts = cuts_of(plain, claimed)
    failures: list[tuple[tuple[int, int], tuple[Problem, ...]]] = []
    for clause in _likeliest(claimed, candidates):
        derived = derived_figure(claimed, cuts, claim.derive, clause.text)
        problems = [_finding(claim.id, f, clause) for f in derived.findings]
        rest = _rest_alignment(derived.rest, clause, claim.derive)
        problems += [_finding(claim.id, f, clause) for f in rest.findings]
        if not problems:
            return Licence(True, (clause.text,))
        failures.append(((-_overlap(claimed, tokens(clause.text)), len(problems)), tuple(problems)))
    return Licence(False, problems=min(failures, key=lambda entry: entry[0])[1])


def _rest_alignment(rest: Sequence[Token], clause: Clause, derive: str) -> Alignment:
    """The claim without its derived figure, against the clause; the clause may lose the operands the figure replaces."""
    read = tokens(clause.text)
    first = align(rest, read, clause.frame)
    if first.ok:
        return first
    operands = {op.numeral for op in derivation_operands(derive)}

    def operand(token: Token) -> bool:
        return token.figure is not None and (token.figure.numeral in operands or token.figure.value in operands)

    keep = [
        t
        for k, t in enumerate(read)
        if not operand(t) and not (t.cls == "preposition" and k + 1 < len(read) and operand(read[k + 1]))
    ]
    second = align(rest, keep, clause.frame)
    return second if second.ok else first


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


def _refuse(claim_id: str, rule: str, detail: str) -> Licence:
    return Licence(False, problems=(Problem(claim_id, rule, detail),))


def _quoted(tokens: Sequence[str]) -> str:
    return ", ".join(f'"{token}"' for token in tokens[:6])
