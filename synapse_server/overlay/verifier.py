"""The traceability verifier for synthesize briefs: a deterministic signal, not an entailment check.

A brief is *verified* only when

1. the memory entry's id occurs in it as a literal string (the citation),
2. every figure in it traces to the provided material, and
3. every quoted span in it is a verbatim run of words of the provided verbatim material.

Figures are digit tokens (``400bps``, ``0.9%``, ``1.4``) and spelled cardinals
that carry a magnitude word or a statistic unit (``four hundred basis points``,
``twenty percent``), read by the same scanner as numeric coverage. A figure
traces when the material holds one with the same value, sign and unit; a
spelled figure and its digit form are the same figure. Identifiers — the memory
id, the canon address, source ids and locators — are removed from the brief
before the scan and are never part of the material, so the digits of a hex id
such as ``deci-4e291b00`` can never license a fabricated ``400``. A bare
cardinal used as prose ("one of our decisions", "the first experiment") is not
a figure, so grounded prose is not over-flagged.

Three error classes are deliberately out of scope and pass (the blind spots):

- lexical meaning-inversion: the opposite asserted in in-vocabulary words
  ("momentum decreases returns" when the material says it increases them);
- unit-variant restatements: rates (``%``, ``bps``, percentage points) compare
  on one scale, so ``2.5%`` traces to ``250bps`` whatever quantity each names;
- spelled multipliers, fractions and ordinals used as magnitudes ("double",
  "tenfold", "a quarter", "half", "a fourth"): the spelled scan reads cardinals only.

A brief that fails is flagged with what failed; it is never rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from synapse_server.language.numbers import NumToken, all_numbers, numeric_tokens, spelled_numbers
from synapse_server.language.text import normalise_words

__all__ = ["BLIND_SPOTS", "BriefMaterial", "TraceFailure", "Verification", "verify_brief"]

BLIND_SPOTS: tuple[str, ...] = (
    "lexical meaning-inversion (the opposite asserted in words the material uses)",
    "unit-variant restatements (2.5% where the material says 250bps)",
    "spelled multipliers, fractions and ordinals ('double', 'tenfold', 'a quarter', 'half', 'a fourth')",
)
"""What a ``verified: true`` does not rule out; reported beside every verification."""

_RATE_SCALE: dict[str, Decimal] = {"%": Decimal(100), "pp": Decimal(100), "bps": Decimal(10_000)}
_TEXT_KEYED = frozenset({"date", "version", "ratio"})
# Straight double quotes and curly double/single quotes; a straight single quote is too often an apostrophe.
# Inside a curly quote, its opening mark ends the attempt too: an attempt then stops where the next begins (linear).
_QUOTED = re.compile(r"\"([^\"\n]++)\"|\u201c([^\u201c\u201d\n]++)\u201d|\u2018([^\u2018\u2019\n]++)\u2019")
_ELLIPSIS = re.compile(r"\.\.\.|\u2026|\[\.\.\.\]")


@dataclass(frozen=True)
class BriefMaterial:
    """What a brief may draw on.

    ``texts`` license figures (the memory entry, the claim note, its quotes);
    ``verbatim`` licenses quoted spans (the claim's retrieved quotes and the
    memory entry's own words); ``identifiers`` are literal strings a brief may
    cite that never license a figure. ``memory_id`` must be cited.
    """

    memory_id: str
    texts: tuple[str, ...]
    verbatim: tuple[str, ...]
    identifiers: tuple[str, ...] = ()


class TraceFailure(BaseModel):
    """One thing in a brief that does not trace: a figure, a quoted span, or the missing citation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["figure", "quote", "citation"]
    text: str = Field(description="the figure or quoted span as written, or the memory id that is not cited")
    start: int = Field(description="offset in the brief; -1 for a missing citation")


class Verification(BaseModel):
    """The verifier's verdict: ``verified`` and, when false, every failure in order of appearance."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    verified: bool
    failures: list[TraceFailure] = Field(default_factory=list)
    figures_checked: int = 0
    quotes_checked: int = 0

    @property
    def failed_tokens(self) -> list[str]:
        return [failure.text for failure in self.failures]


def verify_brief(brief: str, material: BriefMaterial) -> Verification:
    """Check that every figure and quoted span of ``brief`` traces to ``material`` and the memory id is cited."""
    failures: list[TraceFailure] = []
    if not material.memory_id or material.memory_id not in brief:
        failures.append(TraceFailure(kind="citation", text=material.memory_id, start=-1))
    scanned = _blank_identifiers(brief, material.memory_id, material.identifiers)
    licensed = {_figure_key(token) for text in material.texts for token in all_numbers(text)}
    figures = brief_figures(scanned)
    for token in figures:
        if _figure_key(token) not in licensed:
            failures.append(TraceFailure(kind="figure", text=brief[token.start : token.end], start=token.start))
    sources = [normalise_words(text) for text in material.verbatim]
    spans = quoted_spans(brief)
    for start, span in spans:
        if not _traces_verbatim(span, sources):
            failures.append(TraceFailure(kind="quote", text=span, start=start))
    failures.sort(key=lambda failure: failure.start)
    return Verification(
        verified=not failures, failures=failures, figures_checked=len(figures), quotes_checked=len(spans)
    )


def brief_figures(text: str) -> tuple[NumToken, ...]:
    """The figures a brief states: digit tokens plus spelled cardinals with a magnitude word or statistic unit."""
    digits = numeric_tokens(text)
    spelled = [
        token
        for token in spelled_numbers(text)
        if not any(token.start < other.end and other.start < token.end for other in digits)
    ]
    return tuple(sorted((*digits, *spelled), key=lambda token: token.start))


def quoted_spans(text: str) -> list[tuple[int, str]]:
    """Each quoted span of ``text`` with its offset (the text inside the marks)."""
    spans: list[tuple[int, str]] = []
    for match in _QUOTED.finditer(text):
        group = next(index for index in (1, 2, 3) if match.group(index) is not None)
        if normalise_words(match.group(group)):
            spans.append((match.start(group), match.group(group)))
    return spans


def _blank_identifiers(text: str, memory_id: str, identifiers: Iterable[str]) -> str:
    """Blank each whole-token occurrence of an identifier (longest first): offsets stay, its digits vanish.

    The memory id is always an identifier (the brief must cite it); the others only when they hold a
    letter, so a bare locator such as ``3`` can never blank a figure.
    """
    wanted = {i for i in identifiers if any(c.isalpha() for c in i)} | ({memory_id} if memory_id else set())
    for ident in sorted(wanted, key=len, reverse=True):
        text = re.sub(r"(?<![\w-])" + re.escape(ident) + r"(?![\w-])", lambda m: " " * len(m.group()), text)
    return text


def _figure_key(token: NumToken) -> tuple[str, str | None, str, Decimal | str]:
    """What two figures must share to be the same; rates share one scale (the unit-variant blind spot)."""
    sign = "-" if token.sign == "-" else "+"
    if token.kind in _TEXT_KEYED:
        return (token.kind, token.unit, sign, token.canon)
    if token.unit in _RATE_SCALE:
        return ("rate", None, sign, (token.value / _RATE_SCALE[token.unit]).normalize())
    return (token.kind, token.unit, sign, token.value.normalize())


def _traces_verbatim(span: str, sources: Sequence[tuple[str, ...]]) -> bool:
    """Every ellipsis-separated part of the span is a contiguous run of words of one source."""
    parts = [normalise_words(part) for part in _ELLIPSIS.split(span)]
    parts = [part for part in parts if part]
    return bool(parts) and all(any(_contains(source, part) for source in sources) for part in parts)


def _contains(words: tuple[str, ...], run: tuple[str, ...]) -> bool:
    width = len(run)
    return any(words[index : index + width] == run for index in range(len(words) - width + 1))
