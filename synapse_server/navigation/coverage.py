"""Whether cited evidence licenses a claim's words and figures: restatement and numeric coverage.

A restatement is grounded only when its normalised words *equal* one unit's
(no dropped, added or reordered word). A figure is licensed only by the ONE
clause that states it: every number of the assertion must occur there with the
same sign and unit, in the same relative order, and the number's *label* must
occur there too. The label of a number is the set of content words (see
``LABEL_STOPWORDS`` for what is not content) between the previous number, or
the start of the assertion, and the number. When that window holds none, the
first number takes the words after it up to the next number ("$4.2M of net
income"), and a later number shares the label already checked for the one
before it ("from 5 bps to 8 bps"). Identifiers that glue letters
to digits (``v1.7``, ``Q3``, ``run-042``) must occur verbatim as well, since
they are not figures but do change what a sentence is about.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar, get_args

from synapse_server.navigation.atoms import Unit
from synapse_server.navigation.calculation import (
    CalculationError,
    derivation_operands,
    evaluate_derivation,
    rounds_to,
)
from synapse_server.navigation.numbers import NumToken, all_numbers
from synapse_server.navigation.text import normalise_words, plain_text, plain_words, word_spans

__all__ = [
    "LABEL_STOPWORDS",
    "CoverageReason",
    "NumberCoverage",
    "Span",
    "calculation_coverage",
    "clause_coverage",
    "is_restatement",
    "label_words",
    "licensing_clause",
    "number_coverage",
    "number_labels",
    "operand_covered",
    "restated_unit",
]

CoverageReason = Literal[
    "changed-number", "sign", "unit", "order", "label", "identifier", "uncovered", "pooled", "derivation"
]


@dataclass(frozen=True, slots=True)
class NumberCoverage:
    """The verdict on an assertion's figures against one clause; ``missing`` names what was not found."""

    covered: bool
    reason: CoverageReason | None = None
    missing: tuple[str, ...] = ()


COVERED = NumberCoverage(True)

Span = TypeVar("Span", Unit, str)
"""A licensing candidate: an atomic :class:`Unit`, or a bare clause text (a premise's clause, a whole claim)."""

_STOPWORD_TEXT = (
    "a an the is are was were be been being am has have had having do does did it its they their them we our us "
    "i my me you your he his him she her this that these those which who whom whose what there here of in on at "
    "to from by for with per via into onto as than and or but"
)
LABEL_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""Function words that never label a number. Negations, quantifiers and direction or time words are content."""

_RATES = frozenset({"percent", "bps", "points"})
_IDENTIFIER = re.compile(r"[^\W\d_]\d|\d[^\W\d_]")
_EDGE_PUNCTUATION = ".,;:!?()[]{}\"'“”‘’"


def is_restatement(claim_text: str, unit_texts: Iterable[str]) -> bool:
    """True when the claim's words equal one unit's (or one whole cited claim's) modulo case, punctuation, space."""
    claim = normalise_words(claim_text)
    return bool(claim) and any(normalise_words(text) == claim for text in unit_texts)


def restated_unit(claim_text: str, units: Sequence[Span]) -> Span | None:
    """The first unit the claim restates verbatim; such a unit licenses every figure in the claim."""
    claim = normalise_words(claim_text)
    return next((unit for unit in units if claim and normalise_words(_text(unit)) == claim), None)


def label_words(assertion: str) -> frozenset[str]:
    """Every word that labels a figure of the assertion (and the words after its last figure)."""
    plain = _plain(assertion)
    tokens = all_numbers(plain)
    words = {word for index in range(len(tokens)) for word in _label(plain, tokens, index)}
    if tokens:
        words.update(_content(plain, tokens[-1].end, len(plain)))
    return frozenset(words)


def number_labels(assertion: str) -> tuple[tuple[NumToken, tuple[str, ...]], ...]:
    """Each figure of the assertion with the content words that label it."""
    plain = _plain(assertion)
    tokens = all_numbers(plain)
    return tuple((token, _label(plain, tokens, index)) for index, token in enumerate(tokens))


def number_coverage(assertion: str, clause: str, *, labels: bool = True) -> NumberCoverage:
    """Whether one clause covers every figure of the assertion: same sign, unit, order, label and identifiers.

    ``labels=False`` leaves the label words to the caller, which checks every word of the claim with
    normalisation (:mod:`wording`) instead of the exact words checked here.
    """
    plain = _plain(assertion)
    return _check(plain, all_numbers(plain), frozenset(), _plain(clause), labels=labels)


def calculation_coverage(assertion: str, derive: str, clause: str) -> NumberCoverage:
    """Coverage for a ``calculation`` claim: the derivation must produce a stated figure and use only clause figures.

    A figure that the derivation licenses (see :func:`rounds_to`) need not
    occur in the clause; every other figure is checked as usual, and every
    derivation operand must occur in the clause.
    """
    plain, clause_plain = _plain(assertion), _plain(clause)
    tokens = all_numbers(plain)
    try:
        result = evaluate_derivation(derive)
        operands = derivation_operands(derive)
    except CalculationError as error:
        return NumberCoverage(False, "derivation", (error.code,))
    derived = frozenset(index for index, token in enumerate(tokens) if rounds_to(result, token))
    if not derived:
        return NumberCoverage(False, "derivation", tuple(token.raw for token in tokens))
    available = all_numbers(clause_plain)
    absent = tuple(operand.raw for operand in operands if not any(_supplies(t, operand) for t in available))
    if absent:
        return NumberCoverage(False, "uncovered", absent)
    return _check(plain, tokens, derived, clause_plain)


def clause_coverage(assertion: str, units: Sequence[Span]) -> tuple[Span | None, NumberCoverage]:
    """The one unit that licenses the assertion's figures, or None with the most telling reason why not.

    Among covering units the best is a verbatim restatement, then the one
    sharing most content words, then the earliest. Figures that occur only
    spread across several units are reported as ``pooled``: never licensed.
    """
    results = [(unit, number_coverage(assertion, _text(unit))) for unit in units]
    covering = [(index, unit) for index, (unit, coverage) in enumerate(results) if coverage.covered]
    if covering:
        claim = normalise_words(assertion)
        content = set(claim) - LABEL_STOPWORDS

        def rank(entry: tuple[int, Span]) -> tuple[bool, int, int]:
            words = normalise_words(_text(entry[1]))
            return (words == claim, len(content.intersection(words)), -entry[0])

        return max(covering, key=rank)[1], COVERED
    tokens = all_numbers(_plain(assertion))
    if not results:
        return None, NumberCoverage(False, "uncovered", tuple(token.raw for token in tokens))
    unit_keys = [{token.key for token in all_numbers(_plain(_text(unit)))} for unit, _ in results]
    if len(tokens) > 1 and all(any(token.key in keys for keys in unit_keys) for token in tokens):
        return None, NumberCoverage(False, "pooled", tuple(token.raw for token in tokens))
    order = get_args(CoverageReason)
    return None, min((coverage for _, coverage in results), key=lambda coverage: order.index(coverage.reason))


def licensing_clause(assertion: str, units: Sequence[Span]) -> Span | None:
    """The one unit whose clause covers all figures of the assertion; figures are never pooled across units."""
    return clause_coverage(assertion, units)[0]


def operand_covered(operand: NumToken, clause: str) -> bool:
    """Whether one clause supplies a derivation operand (see :func:`derivation_operands`)."""
    return any(_supplies(token, operand) for token in all_numbers(_plain(clause)))


def _text(span: Unit | str) -> str:
    return span if isinstance(span, str) else span.text


def _plain(text: str) -> str:
    return unicodedata.normalize("NFKC", plain_text(text))


def _check(
    plain: str, tokens: Sequence[NumToken], skip: frozenset[int], clause: str, *, labels: bool = True
) -> NumberCoverage:
    available = all_numbers(clause)
    needed = [(index, token) for index, token in enumerate(tokens) if index not in skip]
    position = 0
    for at, (_, token) in enumerate(needed):
        found = next((j for j in range(position, len(available)) if available[j].key == token.key), None)
        if found is None:
            keys = {other.key for other in available}
            absent = tuple(later.raw for _, later in needed[at + 1 :] if later.key not in keys)
            return NumberCoverage(False, _reason(token, available), (token.raw, *absent))
        position = found + 1
    missing_ids = tuple(ident for ident in _identifiers(plain, tokens) if ident not in _chunks(clause))
    if missing_ids:
        return NumberCoverage(False, "identifier", missing_ids)
    if not labels:
        return COVERED
    clause_words = set(plain_words(clause))
    # Every figure's label counts, derived ones too, and so do the words after the last figure
    # ("paid 1.5 bps *less*"): a figure is licensed only with what the assertion says about it.
    words = [word for index in range(len(tokens)) for word in _label(plain, tokens, index)]
    if tokens:
        words.extend(_content(plain, tokens[-1].end, len(plain)))
    missing = tuple(dict.fromkeys(word for word in words if word not in clause_words))
    return NumberCoverage(False, "label", missing) if missing else COVERED


def _reason(token: NumToken, available: Sequence[NumToken]) -> CoverageReason:
    """Why no clause figure matches ``token`` at its place: the nearest miss, checked from most to least specific."""
    if not available:
        return "uncovered"
    kind, unit, _, value = token.key
    if any(other.key == token.key for other in available):
        return "order"
    if any(other.key[:2] == (kind, unit) and other.key[3] == value for other in available):
        return "sign"
    if any(token.numeral in (other.numeral, other.value) and other.sign == token.sign for other in available):
        return "unit"
    if any(other.key[:2] == (kind, unit) for other in available):
        return "changed-number"
    if kind in _RATES and any(other.kind in _RATES for other in available):
        return "unit"
    return "uncovered"


def _label(plain: str, tokens: Sequence[NumToken], index: int) -> tuple[str, ...]:
    start = tokens[index - 1].end if index else 0
    words = _content(plain, start, tokens[index].start)
    if not words and index == 0:
        words = _content(plain, tokens[0].end, tokens[1].start if len(tokens) > 1 else len(plain))
    return words


def _content(plain: str, start: int, stop: int) -> tuple[str, ...]:
    """Content words lying wholly inside ``plain[start:stop]``, tokenised with the whole text so none is cut."""
    inside = (word for word, begin, end in word_spans(plain) if start <= begin and end <= stop)
    return tuple(dict.fromkeys(word for word in inside if word[0].isalpha() and word not in LABEL_STOPWORDS))


def _chunks(text: str) -> set[str]:
    return {chunk.strip(_EDGE_PUNCTUATION).casefold() for chunk in text.split()}


def _identifiers(plain: str, tokens: Sequence[NumToken]) -> tuple[str, ...]:
    """Whitespace-separated chunks that glue letters to digits and are not wholly one figure."""
    found: list[str] = []
    for match in re.finditer(r"\S+", plain):
        chunk = match.group().strip(_EDGE_PUNCTUATION)
        if not _IDENTIFIER.search(chunk):
            continue
        start = match.start() + match.group().index(chunk)
        inside = any(token.start <= start and start + len(chunk) <= token.end for token in tokens)
        if not inside:
            found.append(chunk.casefold())
    return tuple(dict.fromkeys(found))


def _supplies(evidence: NumToken, operand: NumToken) -> bool:
    """Whether an evidence figure supplies a derivation operand: same sign, and the same number as written or scaled.

    A bare operand (``240``) may stand for ``$240M`` or ``240 bps``; a percent
    operand (``5%``) needs a percent figure.
    """
    if evidence.sign != operand.sign or evidence.kind in ("date", "version", "ratio"):
        return False
    if operand.kind == "percent" and evidence.kind != "percent":
        return False
    return operand.numeral in (evidence.numeral, evidence.value)
