"""What a question asks: its form, its focus terms, its negation and what it presupposes.

The offline navigator answers only on a match of the question's focus, so it
first needs to know what the focus is. This module reads a question with
deterministic, documented rules (no model):

- **form**: ``why``, ``how-much`` (how much/many/long/often …, what share …),
  ``how``, ``what`` (what, which, who, where, when), ``yes-no`` (the question
  opens with an auxiliary), or ``other`` (an imperative such as "Describe …");
- **asked**: for a what-question, the kind of answer it wants: ``time``
  (when), ``person`` (who), ``place`` (where), or the head noun after
  what/which ("What date *format* …" asks for a format);
- **terms**: the content words as stems (inflection, case and possessive
  removed), without question words, frame verbs ("change", "decide", "use",
  "write", "replace", "reject") and temporal markers; a term is *optional*
  when it is a measure noun after another term ("the Sharpe *ratio*"), sits
  in a distributive phrase ("on each *trade*") or is the asked noun ("what
  date *format*"), because evidence routinely leaves it out;
- **negated**: the question holds a negation (``not``, ``never``, ``no`` …);
- **temporal**: ``current`` ("current", "now", "still", "latest" …), ``past``
  ("originally", "previously", "used to" …) or neither;
- **quantifiers**: ``only``, ``all``, ``every``, ``always``, ``never``: words
  that change what is asserted, so the answer must contain them too;
- **choice**: a what/which question whose verb asks what was chosen
  ("choose", "pick", "select", "decide", "adopt", "go with" …): only a
  decision line answers it, never an option that was considered;
- **about options**: the question asks about the options themselves
  ("option", "alternative", "considered", "rejected"), so an option may answer;
- **label**: the stem of the question's first term, the quantity a figure
  must be labelled with ("What is the *MAE* of the run?");
- **subject**: for "what is/are X?" (a definition), the head of X ("cost"
  of "cost per use"), which the answer must define ("X is …", "X: …"),
  unless it gives a figure beside every word of X (**subject words**);
- **purpose**: the question asks what something is for ("… used for?",
  "what is the purpose of …"): the answer must state a purpose;
- **verb**: the main verb of a who-question as asked ("who *wrote*
  …"), which an answer may carry instead of an agent word;
- the **predicate verb** of a what/which question with do-support ("What
  commission does the broker *charge*?") is an optional term: evidence states
  the value with a copula ("Commission is 3 bps per side.").

:func:`stem` is the one word normaliser of the navigator: the same function
reads the question and the evidence, so they can only agree or disagree
consistently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from synapse_server.language.text import normalise_words
from synapse_server.language.words import NEGATION_WORDS, stem

__all__ = ["Question", "Term", "analyse", "stem", "stems"]

Form = Literal["why", "how-much", "how", "what", "yes-no", "other"]


@dataclass(frozen=True, slots=True)
class Term:
    """One content term of a question: its stem, the word as asked, and whether an answer may leave it out."""

    stem: str
    word: str
    optional: bool = False


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    form: Form
    asked: str | None
    terms: tuple[Term, ...]
    negated: bool
    temporal: Literal["current", "past"] | None
    quantifiers: frozenset[str]
    choice: bool = False
    about_options: bool = False
    label: str | None = None
    subject: tuple[str, ...] = ()
    subject_words: tuple[str, ...] = ()
    purpose: bool = False
    verb: str | None = None


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = _words(
    """a an the of to in on at by for from with about into onto over under after before during between among
    and or but nor is are was were be been being am do does did done doing has have had having what which who
    whom whose when where why how much many more most less least than then this that these those it its they
    them their theirs our ours we us you your yours i me my he him his she her can could should would will shall
    may might must there here as if so such any some each every both either neither up down out off again also
    just very per via vs one ones get got make made tell show give like kind type sort way ever new"""
)
FRAME_VERBS = _words(
    """change changed changes changing happen happened happens mean means meant decide decided decides chose choose
    chosen choosing pick picked select selected adopt adopted use used uses using describe described explain
    explained say said says state stated record recorded work works worked handle handled deal dealt
    want wanted know known find found look looked reason reasons write writes wrote written writing implement
    implemented build built create created replace replaced replacing switch switched move moved moving migrate
    migrated reject rejected accept accepted consider considered prefer preferred drop dropped builds creates
    implements replaces switches moves migrates rejects accepts considers prefers drops goes going went"""
)
NEGATIONS = NEGATION_WORDS
QUANTIFIERS = _words("only all every always never sole solely")
CURRENT_MARKERS = _words("current currently now nowadays today latest still presently")
PAST_MARKERS = _words("originally initially previously formerly historically earlier original initial prior")
MEASURE_NOUNS = _words(
    "ratio rate level value figure number amount score metric measure assumption estimate count total share "
    "setting parameter"
)
DISTRIBUTIVE = _words("each every per")
AUXILIARIES = _words("is are was were am do does did has have had can could will would shall should may might must")
HOW_MUCH = _words("much many long often far large big high low fast deep old wide")
QUANTITY_NOUNS = _words("percentage percent share fraction proportion number amount")
CHOICE_VERBS = _words(
    """choose chose chosen choosing pick picked select selected decide decided adopt adopted opt opted settle
    settled"""
)
OPTION_WORDS = _words("option options alternative alternatives considered consider rejected reject")
DO_SUPPORT = _words("do does did")
_ASKED = {"when": "time", "who": "person", "whom": "person", "whose": "person", "where": "place"}


def analyse(question: str) -> Question:
    """Read ``question`` into its form, focus terms, negation, temporal presupposition and quantifiers."""
    words = list(normalise_words(question))
    while words and words[0] in ("so", "and", "but", "ok", "okay", "please"):
        words = words[1:]
    form, asked = _form(words)
    lowered = set(words)
    temporal: Literal["current", "past"] | None = None
    if lowered & PAST_MARKERS or _has_phrase(words, ("used", "to")):
        temporal = "past"
    elif lowered & CURRENT_MARKERS:
        temporal = "current"
    terms = _terms(words, asked, _predicate_verb(words) if form in ("what", "how-much") else None)
    subject, subject_words = _subject(words) if form == "what" and asked is None else ((), ())
    return Question(
        text=question,
        form=form,
        asked=asked,
        terms=terms,
        negated=bool(lowered & NEGATIONS),
        temporal=temporal,
        quantifiers=frozenset(lowered & QUANTIFIERS),
        choice=form == "what" and bool(lowered & CHOICE_VERBS or _has_phrase(words, ("go", "with"))),
        about_options=bool(lowered & OPTION_WORDS),
        label=terms[0].stem if terms else None,
        subject=subject,
        subject_words=subject_words,
        purpose=_has_phrase(words, ("used", "for")) or _has_phrase(words, ("purpose", "of")) or words[-1:] == ["for"],
        verb=_main_verb(words),
    )


_COPULAS = _words("is are was were")
_ARTICLES = _words("a an the")


def _subject(words: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """For "what is/are (the) X?": the stems of X's head (its content words up to the first function word,
    quantifiers left out) and of all of X; ``((), ())`` when X is not a bare noun phrase ("… used for")."""
    if len(words) < 3 or words[0] != "what" or words[1] not in _COPULAS:
        return (), ()
    rest = words[2:]
    if any(word in AUXILIARIES for word in rest) or rest[-1] in _TRAILING:
        return (), ()
    content = [word for word in rest if _is_content(word) and word not in QUANTIFIERS]
    head: list[str] = []
    for word in rest:
        if word in QUANTIFIERS or (not head and not _is_content(word)):
            continue
        if not _is_content(word):
            break
        head.append(word)
    return tuple(stem(word) for word in head), tuple(stem(word) for word in content)


_TRAILING = _words("for to by with in on of from at about")


def _main_verb(words: list[str]) -> str | None:
    """The verb right after who ("who *wrote* …"): an answer may carry it instead of an agent word."""
    if len(words) > 1 and words[0] in ("who", "whom") and words[1] not in AUXILIARIES:
        return words[1]
    return None


def _predicate_verb(words: list[str]) -> int | None:
    """The position of the main verb after do-support ("what commission *does* the broker *charge*"), if any.

    The subject is the first run of content words after ``do``/``does``/``did``; when that run has two or
    more words its last one is the verb, and when a negation ends it the verb is the word after the negation.
    """
    start = next((at for at, word in enumerate(words[:4]) if word in DO_SUPPORT), None)
    if start is None:
        return None
    run: list[int] = []
    for at in range(start + 1, len(words)):
        word = words[at]
        if word in NEGATIONS and run:
            following = at + 1
            return following if following < len(words) and _is_content(words[following]) else None
        if not _is_content(word) or word in FRAME_VERBS:
            if run:
                break
            continue
        run.append(at)
    return run[-1] if len(run) >= 2 else None


def stems(text: str) -> frozenset[str]:
    """Stems of every word of ``text`` (Markdown and punctuation removed), stopwords included."""
    return frozenset(stem(word) for word in normalise_words(text))


def content_stems(text: str) -> frozenset[str]:
    """Stems of the content words of ``text``: what an answer says beyond function words."""
    return frozenset(stem(word) for word in normalise_words(text) if _is_content(word))


def _is_content(word: str) -> bool:
    return word not in STOPWORDS and (len(word) > 1 or word.isdigit())


def _form(words: list[str]) -> tuple[Form, str | None]:
    if not words:
        return "other", None
    first, second = words[0], words[1] if len(words) > 1 else ""
    if first == "why" or _has_phrase(words, ("what", "is", "the", "reason")) or _has_phrase(words, ("how", "come")):
        return "why", None
    if _has_phrase(words, ("what", "was", "the", "reason")) or _has_phrase(words, ("for", "what", "reason")):
        return "why", None
    if first == "how":
        return ("how-much", None) if second in HOW_MUCH else ("how", None)
    if first in ("what", "which"):
        if second in QUANTITY_NOUNS:
            return "how-much", None
        return "what", _asked_noun(words[1:])
    if first in _ASKED:
        return "what", _ASKED[first]
    if first in AUXILIARIES:
        return "yes-no", None
    return "other", None


def _asked_noun(rest: list[str]) -> str | None:
    """The head noun right after what/which ("what date *format* …"), or None ("what is …", "what happens …").

    The noun phrase ends at an auxiliary, a function word, a frame verb, or a
    word in ``-s`` followed by a determiner ("which database *stores the* …").
    """
    phrase: list[str] = []
    for at, word in enumerate(rest):
        if word in ("kind", "type", "sort", "of") and not phrase:
            continue
        if not _is_content(word) or word in FRAME_VERBS or word in AUXILIARIES:
            break
        following = rest[at + 1] if at + 1 < len(rest) else ""
        if phrase and word.endswith("s") and not word.endswith("ss") and following in _DETERMINERS:
            break
        phrase.append(word)
    return stem(phrase[-1]) if phrase else None


_DETERMINERS = _words("the a an our their its this these those each every all any some")


def _terms(words: list[str], asked: str | None, verb: int | None = None) -> tuple[Term, ...]:
    """The content terms in order; measure nouns after a term, distributive phrases, the asked noun and the
    predicate verb after do-support (position ``verb``) are optional.

    The asked noun is optional because an answer names a value of that kind
    without naming the kind: "What date format …" is answered by "YYYY-MM-DD".
    """
    terms: list[Term] = []
    seen: set[str] = set()
    previous_content = False
    distributive = False
    for at, word in enumerate(words):
        if at > 0 and words[at - 1] == "how" and word in HOW_MUCH:
            continue  # "how long", "how often": the form, not a term
        if word in DISTRIBUTIVE:
            distributive = True
        content = _is_content(word) and word not in FRAME_VERBS and word not in NEGATIONS
        content = content and word not in CURRENT_MARKERS and word not in PAST_MARKERS and word not in QUANTIFIERS
        if not content:
            previous_content = False
            if word not in DISTRIBUTIVE and word not in STOPWORDS:
                distributive = False
            continue
        key = stem(word)
        optional = distributive or (word in MEASURE_NOUNS and previous_content) or key == asked or at == verb
        if key not in seen:
            seen.add(key)
            terms.append(Term(key, word, optional))
        previous_content, distributive = True, False
    return tuple(terms)


def _has_phrase(words: list[str], phrase: tuple[str, ...]) -> bool:
    size = len(phrase)
    return any(tuple(words[at : at + size]) == phrase for at in range(len(words) - size + 1))
