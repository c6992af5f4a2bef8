"""The words licensing reads, in one place: tokens, the one stemmer, and every closed word class.

A claim and a clause are both read as a sequence of :class:`Token`: a figure
(one token, whatever its spelling: ``$4.2M``, ``two weeks``), a merged phrase
that means one thing (``up to``, ``at least``, ``percentage points``), or a
word. Each token has a *class* that decides what an alignment may do with it:

- ``free``: articles, auxiliaries, complementisers, possessives, plain subject
  pronouns and discourse markers restrict nothing; they may be dropped or added;
- every other class restricts what the sentence says (a negation, a quantifier,
  a modal or hedge, a direction, a bound, a condition word, a preposition, an
  anaphor, a content word, a figure) and must be aligned both ways.

Negation has morphology: ``non-certified`` reads as ``not`` + ``certified``,
``can't`` as ``can`` + ``not``; a word whose dictionary form is negative
(``ineligible``, ``unavailable``, ``cashless``) is its own word, never its
positive stem, so it cannot align with the word it negates.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Literal

from synapse_server.language.numbers import NumToken, all_numbers

__all__ = [
    "ANAPHORS",
    "NEGATION_WORDS",
    "Token",
    "TokenClass",
    "same_meaning",
    "stem",
    "tokens",
]

TokenClass = Literal[
    "free",
    "negation",
    "quantifier",
    "modal",
    "direction",
    "bound",
    "condition",
    "preposition",
    "anaphor",
    "content",
    "figure",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


ARTICLES = _words("a an the")
FREE = ARTICLES | _words(
    "is are was were be been being am has have had having do does did that which who whom "
    "your our their its my his her you we i also however moreover furthermore additionally indeed "
    "note please and"
)
"""Words that restrict nothing: an alignment may drop them from the clause or add them to the claim."""

NEGATIONS = _words("not no never none nothing nobody neither nor without nowhere non cannot")
QUANTIFIERS = _words(
    "all every each only some any most few many always sometimes often rarely seldom usually both either "
    "mostly partly entirely fully several"
)
MODALS = _words(
    "may might can could must should will would shall probably possibly likely typically generally normally "
    "required requires require mandatory optional"
)
CONDITIONS = _words(
    "if unless until except excluding including once when whenever before after within while during since "
    "provided whereas otherwise instead"
)
PREPOSITIONS = _words(
    "of in on at to from by for with per via into onto than between without over under above below across "
    "through about against among toward towards upon beyond"
)
ANAPHORS = _words("this these those it they such them")
"""Words that stand for a subject named elsewhere: a conjunct from another node may not start with one."""

BOUNDS = {
    "up to": "<=",
    "at most": "<=",
    "no more than": "<=",
    "not more than": "<=",
    "a maximum of": "<=",
    "maximum of": "<=",
    "at least": ">=",
    "no less than": ">=",
    "not less than": ">=",
    "a minimum of": ">=",
    "minimum of": ">=",
    "more than": ">",
    "greater than": ">",
    "over": ">",
    "above": ">",
    "exceeding": ">",
    "in excess of": ">",
    "less than": "<",
    "fewer than": "<",
    "under": "<",
    "below": "<",
}
"""Comparison phrases: two bounds align only when they are the same relation (``up to`` is never ``more than``)."""

_PHRASES = {
    **{phrase: ("bound", term) for phrase, term in BOUNDS.items()},
    "go up": ("direction", "rise"),
    "went up": ("direction", "rise"),
    "goes up": ("direction", "rise"),
    "go down": ("direction", "fall"),
    "went down": ("direction", "fall"),
    "goes down": ("direction", "fall"),
    "as long as": ("condition", "if"),
    "so long as": ("condition", "if"),
    "provided that": ("condition", "if"),
    "other than": ("condition", "except"),
    "except for": ("condition", "except"),
    "prior to": ("condition", "before"),
    "subject to": ("condition", "subject to"),
    "in addition": ("free", "in addition"),
}
_LONGEST_PHRASE = max(len(phrase.split()) for phrase in _PHRASES)

SAME_MEANING: tuple[tuple[str, frozenset[str]], ...] = (
    ("rising", _words("increase rise grow climb")),
    ("falling", _words("decrease fall drop shrink")),
    ("raising", _words("raise increase boost")),
    ("reducing", _words("reduce cut lower decrease")),
    ("larger", _words("higher greater larger bigger")),
    ("smaller", _words("lower smaller")),
    ("choosing", _words("choose select pick")),
    ("using", _words("use utilise utilize employ")),
    ("needing", _words("need require")),
    ("about", _words("about approximately roughly around circa")),
    ("yearly", _words("annual annually yearly")),
    ("start", _words("start begin")),
)
"""The closed, reviewed table of same-meaning words (stems), each group one sense.

A word aligns with another only inside one group, so a rising word never
aligns with a falling one, and ``declined`` (refused, or fell?) aligns with
nothing but itself. Adding a pair here is a reviewed change: the licensing
tests name each group.
"""
DIRECTIONS = {
    "up": frozenset({"rising", "raising", "larger"}),
    "down": frozenset({"falling", "reducing", "smaller"}),
}
_GROUPS: dict[str, frozenset[str]] = {}
for _name, _members in SAME_MEANING:
    for _member in _members:
        _GROUPS[_member] = _GROUPS.get(_member, frozenset()) | {_name}
DIRECTION_WORDS = frozenset(
    word for word, groups in _GROUPS.items() if groups & (DIRECTIONS["up"] | DIRECTIONS["down"])
) | _words("more less fewer")

_IRREGULAR = {
    "cut": "cut", "cuts": "cut", "cutting": "cut", "shrank": "shrink", "shrunk": "shrink",
    "left": "leave", "data": "data", "men": "man", "women": "woman",
    "paid": "pay", "lost": "lose", "rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall",
    "grew": "grow", "grown": "grow", "held": "hold", "made": "make", "wrote": "write", "written": "write",
    "chose": "choose", "chosen": "choose", "took": "take", "taken": "take", "gave": "give", "given": "give",
    "went": "go", "gone": "go", "came": "come", "saw": "see", "seen": "see", "ran": "run", "kept": "keep",
    "met": "meet", "said": "say", "sold": "sell", "sent": "send", "spent": "spend", "told": "tell",
    "thought": "think", "won": "win", "began": "begin", "begun": "begin", "broke": "break", "broken": "break",
    "brought": "bring", "built": "build", "bought": "buy", "caught": "catch", "drew": "draw", "drawn": "draw",
    "drove": "drive", "driven": "drive", "felt": "feel", "found": "find", "got": "get", "gotten": "get",
    "knew": "know", "known": "know", "led": "lead", "meant": "mean", "shown": "show", "stood": "stand",
    "understood": "understand", "daily": "day", "children": "child", "people": "person", "indices": "index",
    "criteria": "criterion", "analyses": "analysis", "hypotheses": "hypothesis",
}  # fmt: skip
_CONTRACTIONS = {
    "cant": "can",
    "cannot": "can",
    "dont": "do",
    "doesnt": "does",
    "didnt": "did",
    "isnt": "is",
    "arent": "are",
    "wasnt": "was",
    "werent": "were",
    "wont": "will",
    "wouldnt": "would",
    "shouldnt": "should",
    "couldnt": "could",
    "hasnt": "has",
    "havent": "have",
    "hadnt": "had",
    "mustnt": "must",
    "neednt": "need",
}
NEGATION_WORDS = NEGATIONS | frozenset(_CONTRACTIONS)
"""Every negation as written, contractions included (``doesnt``): what a question's negation reads."""
_WORD = re.compile(r"[^\W\d_][^\W_]*(?:['\u2019][^\W\d_]+)*")
_DURATION_WORDS = {"day": "d", "days": "d", "week": "wk", "weeks": "wk", "fortnight": "fortnight"}
_DAYS = {"d": Decimal(1), "wk": Decimal(7), "fortnight": Decimal(14)}


@dataclass(frozen=True, slots=True)
class Token:
    """One aligned unit of a sentence: a word, a merged phrase or a figure, with its class and position."""

    text: str
    term: str
    cls: TokenClass
    start: int
    end: int
    figure: NumToken | None = None
    days: Decimal | None = None


_BRITISH = {
    "licence": "license", "licences": "licenses", "licenced": "licensed", "colour": "color", "colours": "colors",
    "behaviour": "behavior", "behaviours": "behaviors", "favour": "favor", "honour": "honor", "labour": "labor",
    "centre": "center", "centres": "centers", "metre": "meter", "metres": "meters", "litre": "liter",
    "catalogue": "catalog", "catalogues": "catalogs", "dialogue": "dialog", "grey": "gray", "programme": "program",
    "programmes": "programs", "travelled": "traveled", "cancelled": "canceled", "modelled": "modeled",
    "modelling": "modeling", "labelled": "labeled", "labelling": "labeling", "analyse": "analyze",
    "analysed": "analyzed", "analyses": "analyzes", "analysing": "analyzing",
}  # fmt: skip
_ISE = re.compile(
    r"^(organ|optim|priorit|recogn|real|summar|standard|normal|util|minim|maxim|custom|author|serial|initial|"
    r"central|visual|categor|special|general|synchron|emphas|capital|character|local|modern|decentral|"
    r"container|parameter|token|memor)is(e|ed|es|ing|ation|ations|er|ers)$"
)


def _american(word: str) -> str:
    """British spellings read as American ones (``licence``, ``organise``), so the two spellings of a word agree."""
    word = _BRITISH.get(word, word)
    return _ISE.sub(r"\1iz\2", word) if "is" in word else word


def stem(word: str) -> str:
    """The one stemmer: case, possessive, plural, ``-ed``/``-ing``/``-ly`` and the irregular forms.

    Not a linguistic lemmatiser: ``rates`` and ``rated`` both become ``rat``.
    What matters is that two words that differ only by inflection reduce to
    the same stem, for the question and for licensing alike.
    """
    word = word.casefold().replace("\u2019", "'")
    if word.endswith("'s"):
        word = word[:-2]
    word = word.replace("'", "")
    word = _IRREGULAR.get(word, word)
    word = _american(word)
    if not word.isalpha() or len(word) <= 2:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "shes", "ches", "xes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        word = word[:-1]
    if word.endswith("ied") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("ing", "ed")):
        cut = word[: -3 if word.endswith("ing") else -2]
        if len(cut) >= 2 and any(vowel in cut for vowel in "aeiouy"):
            word = cut[:-1] if len(cut) > 2 and cut[-1] == cut[-2] and cut[-1] not in "lsz" else cut
    elif word.endswith("ly") and len(word) > 5:
        word = word[:-2]
    if word.endswith("e") and len(word) >= 3:
        word = word[:-1]
    return word


def same_meaning(a: str, b: str) -> bool:
    """Whether two stems share one sense of the closed table (never across directions)."""
    if a == b:
        return True
    return bool(_senses(a) & _senses(b))


@lru_cache(maxsize=4096)
def _senses(term: str) -> frozenset[str]:
    """The senses of the closed table a stem belongs to (the table is keyed by dictionary forms)."""
    return frozenset(sense for word, groups in _GROUPS.items() if stem(word) == term for sense in groups)


def direction(term: str) -> str | None:
    """``up`` or ``down`` for a direction word's stem, else None."""
    groups = _senses(term)
    for name, senses in DIRECTIONS.items():
        if groups & senses:
            return name
    return {"more": "up", "less": "down", "fewer": "down"}.get(term)


@lru_cache(maxsize=8192)
def tokens(plain: str) -> tuple[Token, ...]:
    """The tokens of plain text (no Markdown), in order: figures, merged phrases, then words by class.

    Cached: a turn aligns each claim with many clauses, and the clause texts repeat across claims and turns.
    """
    text = unicodedata.normalize("NFKC", plain)
    figures = list(all_numbers(text))
    found: list[Token] = []
    words: list[tuple[str, int, int]] = []
    cursor = 0
    for figure in [*figures, None]:
        stop = figure.start if figure is not None else len(text)
        words.extend((m.group(0), m.start(), m.end()) for m in _WORD.finditer(text, cursor, stop))
        if figure is None:
            break
        found.extend(_word_tokens(words))
        words = []
        found.append(Token(figure.raw, _figure_term(figure), "figure", figure.start, figure.end, figure))
        cursor = figure.end
    found.extend(_word_tokens(words))
    return _merge_durations(found)


def _word_tokens(words: list[tuple[str, int, int]]) -> list[Token]:
    out: list[Token] = []
    index = 0
    lowered = [w.casefold().replace("\u2019", "").replace("'", "") for w, _, _ in words]
    while index < len(words):
        merged = _phrase_at(lowered, index)
        if merged is not None:
            length, cls, term = merged
            start, end = words[index][1], words[index + length - 1][2]
            term = stem(term) if cls == "direction" else term
            out.append(Token(" ".join(w for w, _, _ in words[index : index + length]), term, cls, start, end))  # type: ignore[arg-type]
            index += length
            continue
        word, start, end = words[index]
        out.extend(_word(word, lowered[index], start, end))
        index += 1
    return out


def _phrase_at(lowered: list[str], index: int) -> tuple[int, str, str] | None:
    for length in range(min(_LONGEST_PHRASE, len(lowered) - index), 1, -1):
        phrase = " ".join(lowered[index : index + length])
        if phrase in _PHRASES:
            cls, term = _PHRASES[phrase]
            return length, cls, term
    return None


def _word(word: str, lowered: str, start: int, end: int) -> list[Token]:
    if lowered in _CONTRACTIONS:
        base = _CONTRACTIONS[lowered]
        return [Token(word, stem(base), _class_of(base), start, end), Token(word, "not", "negation", start, end)]
    if lowered.startswith("non") and len(lowered) > 6 and lowered not in NEGATIONS and lowered[3:4] != "e":
        rest = lowered[3:]
        return [
            Token(word, "not", "negation", start, start + 3),
            Token(word, stem(rest), _class_of(rest), start + 3, end),
        ]
    cls = _class_of(lowered)
    term = "not" if cls == "negation" and lowered in ("no", "non") else stem(lowered)
    if lowered in BOUNDS:
        return [Token(word, BOUNDS[lowered], "bound", start, end)]
    return [Token(word, term, cls, start, end)]


def _class_of(word: str) -> TokenClass:
    if word in NEGATIONS:
        return "negation"
    if word in FREE:
        return "free"
    if word in QUANTIFIERS:
        return "quantifier"
    if word in MODALS:
        return "modal"
    if word in CONDITIONS:
        return "condition"
    if word in PREPOSITIONS:
        return "preposition"
    if word in ANAPHORS:
        return "anaphor"
    if word in DIRECTION_WORDS or direction(stem(word)) is not None:
        return "direction"
    return "content"


def _figure_term(figure: NumToken) -> str:
    return f"{figure.kind}:{figure.unit}:{figure.sign}:{figure.canon or figure.value.normalize()}"


def _merge_durations(found: list[Token]) -> tuple[Token, ...]:
    """A bare count followed by a duration word (``two weeks``) is one duration figure, kept in days."""
    out: list[Token] = []
    index = 0
    while index < len(found):
        token = found[index]
        following = found[index + 1] if index + 1 < len(found) else None
        figure = token.figure
        if figure is not None and figure.kind == "plain" and following and following.text.casefold() in _DURATION_WORDS:
            unit = _DURATION_WORDS[following.text.casefold()]
            days = figure.value * _DAYS[unit]
            out.append(
                Token(
                    f"{token.text} {following.text}",
                    f"days:{days.normalize()}",
                    "figure",
                    token.start,
                    following.end,
                    figure,
                    days,
                )
            )
            index += 2
            continue
        if figure is not None and figure.kind == "duration" and figure.unit in _DAYS:
            days = figure.value * _DAYS[figure.unit]
            token = Token(token.text, f"days:{days.normalize()}", "figure", token.start, token.end, figure, days)
        out.append(token)
        index += 1
    return tuple(out)
