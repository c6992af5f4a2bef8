"""Verbatim restatement and the figures a clause holds: the number half of licensing.

A restatement is grounded only when its normalised words *equal* one unit's
(no dropped, added or reordered word). A figure is licensed only by the ONE
clause that states it: every number of the assertion must occur there with the
same sign and unit, in the same relative order; figures spread over several
clauses are *pooled* and never license. Identifiers that glue letters to
digits (``v1.7``, ``Q3``, ``run-042``) must occur verbatim as well, since they
are not figures but do change what a sentence is about. What the words around
a figure say is the alignment's to check (:mod:`synapse_server.licensing`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar, get_args

from synapse_server.language.atoms import Unit
from synapse_server.language.numbers import NumToken, all_numbers
from synapse_server.language.text import normalise_words, plain_text
from synapse_server.language.words import FREE, PREPOSITIONS

__all__ = ["CoverageReason", "NumberCoverage", "Span", "clause_coverage", "number_coverage", "restated_unit"]

CoverageReason = Literal["changed-number", "sign", "unit", "order", "identifier", "uncovered", "pooled"]


@dataclass(frozen=True, slots=True)
class NumberCoverage:
    """The verdict on an assertion's figures against one clause; ``missing`` names what was not found."""

    covered: bool
    reason: CoverageReason | None = None
    missing: tuple[str, ...] = ()


COVERED = NumberCoverage(True)

Span = TypeVar("Span", Unit, str)
"""A licensing candidate: an atomic :class:`Unit`, or a bare clause text (a premise's clause, a whole claim)."""

_RATES = frozenset({"percent", "bps", "points"})
_IDENTIFIER = re.compile(r"[^\W\d_]\d|\d[^\W\d_]")
_EDGE_PUNCTUATION = ".,;:!?()[]{}\"'“”‘’"


def restated_unit(claim_text: str, units: Sequence[Span]) -> Span | None:
    """The first unit the claim restates verbatim; such a unit licenses every figure in the claim."""
    claim = normalise_words(claim_text)
    return next((unit for unit in units if claim and normalise_words(_text(unit)) == claim), None)


def number_coverage(assertion: str, clause: str) -> NumberCoverage:
    """Whether one clause holds every figure of the assertion: same sign and unit, in order, identifiers verbatim.

    The words around each figure (its label) are the alignment's to check
    (:mod:`synapse_server.licensing.alignment`); this names the nearest miss of a figure for the refusal.
    """
    plain = _plain(assertion)
    return _check(plain, all_numbers(plain), _plain(clause))


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
        content = set(claim) - FREE - PREPOSITIONS

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


def _text(span: Unit | str) -> str:
    return span if isinstance(span, str) else span.text


def _plain(text: str) -> str:
    return unicodedata.normalize("NFKC", plain_text(text))


def _check(plain: str, tokens: Sequence[NumToken], clause: str) -> NumberCoverage:
    available = all_numbers(clause)
    position = 0
    for at, token in enumerate(tokens):
        found = next((j for j in range(position, len(available)) if available[j].key == token.key), None)
        if found is None:
            keys = {other.key for other in available}
            absent = tuple(later.raw for later in tokens[at + 1 :] if later.key not in keys)
            return NumberCoverage(False, _reason(token, available), (token.raw, *absent))
        position = found + 1
    missing_ids = tuple(ident for ident in _identifiers(plain, tokens) if ident not in _chunks(clause))
    if missing_ids:
        return NumberCoverage(False, "identifier", missing_ids)
    return COVERED


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
