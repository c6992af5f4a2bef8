"""Whether a clause's words support a claim's words: the licence for every claim, with or without figures.

Numbers have their own rules (:mod:`coverage`); this module checks everything
else a claim says. A claim is supported by one clause when

- its *polarity* agrees: the negations, quantifiers and modal words of the
  claim and of the clause are the same sets (``not``/``never``/``no`` are one
  negation; ``only``, ``all``, ``every``, ``may``, ``must`` ... are each their
  own word), so dropping a ``not`` or adding an ``only`` is refused;
- every *content word* of the claim occurs in the clause or in the clause's
  heading path, after normalisation: case, possessive, inflection
  (``remains``/``remain``) and direction words (``went up``/``increased``
  both read as one rising direction, ``fell``/``reduced`` as one falling);
- the content words it shares with the clause come in the clause's order, up
  to one rotation (two phrases swapped), so ``value beat momentum`` is not
  supported by ``momentum beat value``.

Function words never count (see :data:`FUNCTION_WORDS`); connectives that
assert a relation (``because``, ``so``, ``therefore``) are content and must be
in the clause. A claim that passes is a *faithful paraphrase*: the router still
caps it at ``inferred`` unless it is verbatim. Known limits: synonyms other than
direction words are not recognised (a synonym makes the claim abstain, never
pass), and a dropped qualifier (``before costs``) is not noticed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from synapse_server.navigation.numbers import all_numbers
from synapse_server.navigation.text import word_spans

__all__ = [
    "FUNCTION_WORDS",
    "WordingCheck",
    "canonical_word",
    "content_terms",
    "direction_of",
    "heading_frame",
    "polarity",
    "wording_support",
]

WordingRule = Literal["negation", "quantifier", "modality", "words", "order"]

_FUNCTION_TEXT = (
    "a an the is are was were be been being am has have had having do does did it its they their them we our us "
    "i my me you your he his him she her this that these those which who whom whose what there here of in on at "
    "to from by for with per via into onto as than and or but also which then went go goes going gone got get gets "
    "became become becomes"
)
FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())
"""Words that carry no claim of their own: articles, pronouns, auxiliaries, light verbs, plain prepositions."""

NEGATIONS = frozenset(
    "not no never none nothing nobody neither nor without cannot cant dont doesnt didnt isnt arent wasnt werent "
    "wont wouldnt shouldnt couldnt hasnt havent hadnt nowhere".split()
)
QUANTIFIERS = frozenset(
    "all every each only some any most few many always sometimes often rarely seldom usually both either "
    "mostly partly entirely fully".split()
)
MODALS = frozenset("may might can could must should will would shall probably possibly likely".split())

UP, DOWN = "\u2191", "\u2193"
_DIRECTION_TEXT = {
    UP: "increase increased increases increasing rise rises rose risen rising grow grows grew grown growing "
    "gain gains gained climb climbs climbed up higher raise raised raises jump jumped jumps boost boosted more "
    "greater larger expand expanded growth upward",
    DOWN: "decrease decreased decreases decreasing fall falls fell fallen falling drop drops dropped decline "
    "declines declined reduce reduces reduced reduction reductions lower lowered lowers down less fewer shrink "
    "shrank shrunk cut cuts smaller downward",
}
_DIRECTION = {word: mark for mark, text in _DIRECTION_TEXT.items() for word in text.split()}
_SUFFIXES = (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ied", "y"), ("ed", ""), ("es", ""), ("s", ""))
_IRREGULAR = {"children": "child", "people": "person", "men": "man", "women": "woman", "data": "data"}


@dataclass(frozen=True, slots=True)
class WordingCheck:
    """The verdict on a claim's words against one clause; ``tokens`` are the claim's own words that failed."""

    supported: bool
    rule: WordingRule | None = None
    tokens: tuple[str, ...] = ()


SUPPORTED = WordingCheck(True)


def canonical_word(word: str) -> str:
    """One normalised content word: direction words to their arrow, then a light inflection stem."""
    word = word.casefold()
    if word in _DIRECTION:
        return _DIRECTION[word]
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    for suffix, keep in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not (suffix == "s" and word.endswith("ss")):
            word = word[: len(word) - len(suffix)] + keep
            break
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # stopped -> stopp -> stop
    return word


def direction_of(words: Iterable[str]) -> frozenset[str]:
    """The directions (rising / falling) a run of words asserts."""
    return frozenset(_DIRECTION[w] for w in (word.casefold() for word in words) if w in _DIRECTION)


def polarity(plain: str) -> dict[str, frozenset[str]]:
    """Negation, quantifier and modal words of a plain text, by class (all negations read as ``not``)."""
    words = [word for word, _, _ in word_spans(_nfkc(plain)) if word[0].isalpha()]
    return {
        "negation": frozenset("not" for word in words if word in NEGATIONS),
        "quantifier": frozenset(word for word in words if word in QUANTIFIERS),
        "modality": frozenset(word for word in words if word in MODALS),
    }


def content_terms(plain: str, *, skip: Sequence[tuple[int, int]] = ()) -> tuple[tuple[str, str], ...]:
    """(canonical term, word as written) for each content word outside figures and ``skip`` spans, in order."""
    text = _nfkc(plain)
    figures = [(token.start, token.end) for token in all_numbers(text)]
    spans = [*figures, *skip]
    found: list[tuple[str, str]] = []
    for word, start, end in word_spans(text):
        if not word[0].isalpha() or word in FUNCTION_WORDS:
            continue
        if word in NEGATIONS or word in QUANTIFIERS or word in MODALS:
            continue  # checked as polarity, not as content
        if any(lo <= start and end <= hi for lo, hi in spans):
            continue
        found.append((canonical_word(word), word))
    return tuple(found)


def wording_support(
    claim_plain: str,
    clause_plain: str,
    *,
    context: Iterable[str] = (),
    skip: Sequence[tuple[int, int]] = (),
    extra_terms: Iterable[str] = (),
) -> WordingCheck:
    """Whether one clause (with its heading path as ``context``) supports every word the claim says.

    ``skip`` are spans of the claim checked elsewhere (a derived figure's label);
    ``extra_terms`` are canonical terms the clause is taken to supply besides its own.
    """
    claim_polarity, clause_polarity = polarity(claim_plain), polarity(clause_plain)
    rules: tuple[WordingRule, ...] = ("negation", "quantifier", "modality")
    for rule in rules:
        if claim_polarity[rule] != clause_polarity[rule]:
            differing = claim_polarity[rule] ^ clause_polarity[rule]
            return WordingCheck(False, rule, tuple(sorted(differing)))
    clause_terms = [term for term, _ in content_terms(clause_plain)]
    context_terms = {term for heading in context for term, _ in content_terms(heading)} | set(extra_terms)
    claimed = content_terms(claim_plain, skip=skip)
    missing = tuple(
        dict.fromkeys(word for term, word in claimed if term not in clause_terms and term not in context_terms)
    )
    if missing:
        return WordingCheck(False, "words", missing)
    positions = _positions([term for term, _ in claimed if term in clause_terms], clause_terms)
    breaks = sum(1 for before, after in pairwise(positions) if after < before)
    if breaks > 1:
        return WordingCheck(False, "order", tuple(word for term, word in claimed if term in clause_terms))
    return SUPPORTED


_FRAME = re.compile(r"^\s*(?:for|in|under|on|at|within|among)\s+(?P<frame>[^,;:]{1,80}?)\s*,", re.IGNORECASE)


def heading_frame(claim_plain: str, headings: Iterable[str]) -> tuple[int, int] | None:
    """The span of a leading "For entry-tier accounts," frame that names a heading of the unit's own section.

    The frame is context, not an assertion: it may add one word of its own (``accounts``) to the heading's
    words. A heading from another section never frames a unit, so its words must then be supported as usual.
    """
    match = _FRAME.match(_nfkc(claim_plain))
    if match is None:
        return None
    framed = [term for term, _ in content_terms(match.group("frame"))]
    for heading in headings:
        named = {term for term, _ in content_terms(heading)}
        if named and named.issubset(framed) and len(set(framed) - named) <= 1:
            return match.start(), match.end()
    return None


def _positions(terms: list[str], clause_terms: list[str]) -> list[int]:
    """Each claim term's position in the clause: the next occurrence after the previous match, else the first."""
    positions: list[int] = []
    last = -1
    for term in terms:
        later = next((i for i in range(last + 1, len(clause_terms)) if clause_terms[i] == term), None)
        last = later if later is not None else clause_terms.index(term)
        positions.append(last)
    return positions


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)
