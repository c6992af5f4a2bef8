"""Quote anchors: binding every ``cite`` line to exactly one span of the prose.

This is what makes a v2 answer's prose checkable: each assertion the public
answer makes is the exact text of one cite line, so the router can judge it
against the one claim it is bound to and never pool several claims' words.

Coverage rule (the precise meaning of "proposition-bearing"): a prose
character outside every span is allowed only if it is *free*: whitespace, or
one of the punctuation marks in ``FREE_PUNCTUATION`` (sentence and clause
punctuation, brackets, quotes, the ellipsis, and the Markdown emphasis marks
``*``, ``_`` and backtick), or part of a joining word of ``GAP_WORDS``
(``and``, ``also``) standing alone between two spans. A ``.`` or ``,``
between two digits is part of a number (``1.4``, ``12,000``) and is *not*
free. A colon, a dash, an arrow or an equals sign between two spans asserts a
relation between them ("Gold tier: 2% cashback") and bears meaning, as does
everything else (letters, digits, ``%``, ``$``, ``+``, ``-``, ``/``, ``<``,
``>``, currency and math symbols, any other character): it must be inside a
span. An unknown symbol is treated as meaningful: the rule fails closed.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from memdsl._output_values import Binding
from memdsl.errors import fail

FREE_PUNCTUATION = frozenset(".,;!?()[]{}\"'“”‘’«»…*_`")
"""Characters that carry no proposition of their own and may sit between spans."""
_NUMBER_JOINERS = frozenset(".,")
GAP_WORDS = frozenset({"and", "also"})
"""Words that may join two spans: they add no proposition of their own."""


@dataclass(frozen=True, slots=True)
class CiteLine:
    """A parsed ``cite <cid> :: <quote>`` line and where it was."""

    claim_id: str
    quote: str
    line: int
    column: int


def bind_quotes(prose: str, cites: list[CiteLine], prose_line: int, prose_column: int) -> tuple[Binding, ...]:
    """Resolve each quote to its single span, refuse overlaps, and check that the spans cover the prose."""
    bindings: list[Binding] = []
    for cite in cites:
        start = prose.find(cite.quote)
        if start == -1:
            raise fail("anchor.not_found", "the quoted assertion does not occur in the prose", cite.line, cite.column)
        if prose.find(cite.quote, start + 1) != -1:
            raise fail(
                "anchor.ambiguous", "the quoted assertion occurs more than once in the prose", cite.line, cite.column
            )
        bindings.append(Binding(cite.claim_id, cite.quote, start, start + len(cite.quote)))
    order = sorted(range(len(bindings)), key=lambda index: (bindings[index].start, bindings[index].end))
    for left, right in pairwise(order):
        if bindings[right].start < bindings[left].end:
            later = cites[max(left, right)]
            raise fail("anchor.overlap", "two quoted assertions overlap in the prose", later.line, later.column)
    position = 0
    for index in [*order, None]:
        gap_end = len(prose) if index is None else bindings[index].start
        joiners = _joining_words(prose, position, gap_end)
        for offset in range(position, gap_end):
            if offset not in joiners and is_bearing(prose, offset):
                raise fail(
                    "anchor.uncovered",
                    f"prose character {prose[offset]!r} is not inside any cited assertion",
                    prose_line,
                    prose_column + offset,
                )
        if index is not None:
            position = bindings[index].end
    return tuple(bindings)


def _joining_words(prose: str, start: int, end: int) -> frozenset[int]:
    """Offsets of whole ``and`` / ``also`` words in a gap between spans (never the start or end of the prose)."""
    if start == 0 or end == len(prose):
        return frozenset()
    found: set[int] = set()
    offset = start
    while offset < end:
        if prose[offset].isalpha():
            word_end = offset
            while word_end < end and prose[word_end].isalpha():
                word_end += 1
            if prose[offset:word_end].casefold() in GAP_WORDS:
                found.update(range(offset, word_end))
            offset = word_end
        else:
            offset += 1
    return frozenset(found)


def is_bearing(prose: str, offset: int) -> bool:
    """True when ``prose[offset]`` carries meaning and therefore must be bound to a claim."""
    char = prose[offset]
    if char.isspace():
        return False
    between_digits = 0 < offset < len(prose) - 1 and prose[offset - 1].isdigit() and prose[offset + 1].isdigit()
    if char in _NUMBER_JOINERS and between_digits:
        return True
    return char not in FREE_PUNCTUATION
