"""Choosing the one unit that answers a question's focus, or saying why none does.

The offline navigator restates a unit verbatim, and the router certifies the
quote; so the only way the pair can publish a true quote that does not
answer the question is a wrong choice here. The rules (docs/navigation.md):

1. Every question term must occur in some rendered node, or the question
   rests on a premise the evidence never mentions: abstain.
2. Focus terms are weighted by rarity across the rendered nodes; a term in
   at least 60 % of five or more nodes is background and may be missing, and
   so is the project's own name (a source segment of a rendered address,
   ``madr`` of ``repo:madr:…``).
3. A unit is a candidate only when every required term occurs in the unit,
   its heading path or its node's title or address slug (``0033-ip-ranges``),
   and at least one occurs in the unit itself, unless the unit sits under a Decision heading (or, for a
   why-question, a Rationale, Context or Consequences heading), where the
   section carries the subject. Headings are never answers.
4. The form must be served. A why-question needs a unit that gives a reason:
   one under a Rationale-like heading (Rationale, Motivation, Positive
   Consequences) or Decision Drivers, one with a causal cue (because, so that,
   in order to, to avoid, ", so" …), or one under Context or Consequences
   that states a problem (not, cannot, failed, broke, leaked …); never one
   under Options, Negative Consequences or Status. A how-much question needs
   a figure; a when-question a figure or a time word; a what/which question
   with a head noun ("what date format") a figure or a capitalised name the
   question did not say; every form but yes-no a word the question did not
   already say. A negated question needs a negated unit; a what or how-much
   question without negation refuses a negated unit (a negation inside the
   reason after "because" does not count); the quantifiers
   ``only``/``all``/``every``/``always``/``never`` must occur in the unit.
   Precision first: a which/what-did-we-choose question needs a decision
   line (a unit under a Decision heading, or "We will …", "Chosen option: …");
   a unit under Considered Options answers only a question about the options;
   a Context or Status unit never answers a current what, how or how-much
   question; a figure answers a how-much or "what is the X" question only
   when the label X (the question's first term) is in the unit; a yes-no
   question needs every required term in the unit itself; and a unit whose
   content words are all the question's, the title's or its headings' (the
   topic named back) is never an answer, unless it is a decision line.
5. Among candidates, the current statement wins: an active document over one
   whose Status says superseded (or that an envelope gap discloses as superseded), then a Decision section (or the body of a
   decision record) over neutral text over Rationale and Consequences over
   Context, Options and Status (for a what-question, a sentence that states
   the choice, "Chosen option: …", first within its section), a unit with a past cue ("historically",
   "previously") one step lower. A question about the past ("originally")
   reverses it: the superseded document first, then Context and past cues.
   A why-question ranks Rationale, then Decision Drivers, Context and
   Decision, then Consequences, and a causal cue over none. Then the rarity-weighted share
   of the question's terms in the unit itself, verified nodes, the earlier
   node, the earlier unit.

6. A what-is-X question (a definition) needs a unit that defines X ("X is
   …", "X: …") or gives a figure labelled X; a what-for question a purpose
   (used by/for, so that, serves …); outside a decision line, a how-question a way (by, with, using, when, if …);
   a who-question an agent (by, author, owner …) or the question's verb. A
   unit that ends in a colon introduces the list or block below it and is
   never an answer; the items of a list introduced as options are options.
   A record whose title negates what a why, how or yes-no question
   presupposes ("Do not emphasize line headings") answers none of them. When
   some rendered record names the asked noun of a which-X question (a
   licence), a record that never names it answers nothing: its decision line
   is the choice of something else.

A refusal names what was looked for ("no decision line about 'search
library' in the 3 records read"); it stays in the model's own abstention,
which the router never copies into the public detail.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from memdsl.render import Render, RenderNode
from synapse_server.language.atoms import Unit, atomic_units
from synapse_server.language.question import (
    MEASURE_NOUNS,
    NEGATIONS,
    Question,
    analyse,
    content_stems,
    stem,
    stems,
)
from synapse_server.language.text import normalise_words
from synapse_server.navigation.unit_cues import (
    AGENT,
    AGENT_FIELD,
    CAUSAL,
    CLAUSE_NEGATIONS,
    DANGLING,
    DECISION_CUE,
    FIELD,
    FIELD_CLASSES,
    MEANS,
    METADATA,
    OPTIONS_LEAD,
    PAST,
    PROBLEM,
    PURPOSE,
    REASON_ONLY,
    SUPERSEDED,
    TIME_WORDS,
    defines,
    has_figure,
    names_value,
    plain_heading,
    section_of,
)

__all__ = ["Choice", "Refusal", "choose"]

BACKGROUND_SHARE = 0.6
BACKGROUND_MIN_NODES = 5


@dataclass(frozen=True, slots=True)
class Choice:
    ref: str
    text: str


@dataclass(frozen=True, slots=True)
class Refusal:
    detail: str


_STATUS_RANK = {"grounded": 1, "measured": 1, "inferred": 0}


@dataclass(frozen=True, slots=True)
class _Candidate:
    unit: Unit
    section: str | None
    pool: frozenset[str]
    own: frozenset[str]
    place: frozenset[str]
    """Stems of the node's title and the unit's heading path: a unit that says only these and the question's
    words names the topic without answering."""


def choose(question_text: str, render: Render) -> Choice | Refusal:
    """The rendered unit that answers ``question_text``, or a refusal saying why none may be restated."""
    question = analyse(question_text)
    if not question.terms:
        return Refusal("the question names nothing to look for")
    nodes = [node for node in render.nodes if node.body is not None or node.title]
    documents = [stems(f"{node.title or ''}\n{_slug(node)}\n{node.body or ''}") for node in nodes]
    absent = [term.word for term in question.terms if not term.optional and not any(term.stem in d for d in documents)]
    if absent:
        return Refusal(f"no rendered evidence mentions {', '.join(repr(word) for word in absent)}")
    weights = {term.stem: _weight(term.stem, documents) for term in question.terms}
    required = tuple(key for key in _required(question, documents) if key not in _project_names(render))
    replaced = _replaced(render)
    best: tuple[tuple[float, ...], Choice] | None = None
    asked_somewhere = question.asked not in _UNNAMED and any(question.asked in d for d in documents)
    for position, node in enumerate(nodes):
        if _denies(question, node) or (asked_somewhere and question.asked not in documents[position]):
            continue  # "which licence": when some record names the licence, one that never does is about another
        units = atomic_units(node.body or "")
        superseded = str(node.address) in replaced or _superseded(units)
        for index, candidate in enumerate(_candidates(node, units)):
            if not _eligible(question, required, node, candidate):
                continue
            key = (
                _currency(question, superseded),
                *_fitness(question, node, candidate, superseded),
                _share(question, weights, candidate.own),
                _STATUS_RANK.get(node.status, 0),
                -position,
                -index,
            )
            if best is None or key > best[0]:
                best = (key, Choice(node.ref, _unquoted(candidate.unit.text.strip())))
    if best is None:
        return Refusal(_looked_for(question, len(nodes)))
    return best[1]


_QUOTES = {'"': '"', "\u201c": "\u201d", "'": "'"}


def _denies(question: Question, node: RenderNode) -> bool:
    """Whether the node's title negates what a why, how or yes-no question presupposes.

    "Why does MADR emphasize line headings?" asked of a record titled "Do not
    emphasize line headings": every content word of the title is the
    question's, and the title says not. Any reason the record gives is a
    reason against, so none of its units may answer.
    """
    if question.negated or question.form not in ("why", "how", "yes-no") or not node.title:
        return False
    words = normalise_words(node.title)
    if not set(words) & NEGATIONS:
        return False
    said = stems(question.text)
    own = {stem(word) for word in words if word not in NEGATIONS} & content_stems(node.title)
    return len(own) >= 2 and own <= said


def _slug(node: RenderNode) -> str:
    """The id of the node's address (``0033-ip-ranges``): a file slug names its record's topic like a title."""
    return str(node.address).split(":", 2)[-1]


def _project_names(render: Render) -> frozenset[str]:
    """Stems of the sources the rendered addresses name (``madr`` of ``repo:madr:…``): the project itself.

    "Which list marker does MADR use?" asked of MADR's own repository names the
    project, not a topic: its records rarely repeat their own project's name.
    """
    return frozenset(
        stem(str(node.address).split(":")[1]) for node in render.nodes if str(node.address).count(":") >= 2
    )


def _unquoted(text: str) -> str:
    """A unit that is one quotation (a quote note's body) restated without its marks: the words are the answer."""
    close = _QUOTES.get(text[:1])
    inner = text[1:-1].strip()
    if close is None or len(text) < 3 or not text.endswith(close) or any(mark in inner for mark in '"\u201c\u201d'):
        return text
    return inner


def _looked_for(question: Question, records: int) -> str:
    """Why nothing answers, naming what was looked for: "no decision line about 'search library' in 3 records read"."""
    if question.choice:
        wanted = "decision line"
    elif question.form == "why":
        wanted = "reason"
    elif question.form == "how-much":
        wanted = "figure labelled " + repr(next(t.word for t in question.terms if t.stem == question.label))
    elif question.form == "yes-no":
        wanted = "clause affirming or negating it"
    elif question.form == "what" and question.asked is not None:
        asked = next((term.word for term in question.terms if term.stem == question.asked), question.asked)
        wanted = "unit naming the " + asked
    else:
        wanted = "unit answering it"
    about = " ".join(term.word for term in question.terms)
    read = f"{records} record{'s' if records != 1 else ''}"
    return f"no {wanted} about {about!r} in the {read} read"


_SAFE_TEXT = re.compile(r"^[^\x00-\x1f\x7f\u2028\u2029\u202a-\u202e\u2066-\u2069]+$")


def _candidates(node: RenderNode, units: tuple[Unit, ...]) -> list[_Candidate]:
    """The answerable units of a node with their match pools; a heading path's stems are computed once.

    A unit that introduces what follows ("We discussed three options:",
    "install it:") is a lead-in, never an answer: its answer is the list or
    block below it. The items of a list that a lead-in calls options or
    alternatives are options, whatever heading they sit under.
    """
    if node.elided:
        units = units[:-1]  # the last unit of a cut body may be cut mid-sentence
    body = node.body or ""
    title = stems(f"{node.title or ''} {_slug(node)}")
    places: dict[tuple[str, ...], tuple[frozenset[str], str | None]] = {}
    found: list[_Candidate] = []
    options = False
    statement: frozenset[str] | None = None
    for unit in units:
        text = unit.text.strip()
        if unit.kind != "item":
            options = False
        if unit.kind == "heading" or not text or not _SAFE_TEXT.match(text):
            continue
        if body[unit.start : unit.end].rstrip().endswith(":") or body[unit.end : unit.end + 1] == ":":
            options = unit.kind != "item" and bool(OPTIONS_LEAD.search(text))
            continue
        if unit.headings not in places:
            path = frozenset().union(*(stems(heading) for heading in unit.headings))
            places[unit.headings] = (title | path, section_of(unit.headings))
        context, section = places[unit.headings]
        own = stems(text)
        if statement is None:
            statement = own
        elif unit.kind == "item" and FIELD.match(text):
            context = context | statement  # a field (``reason: …``) is about the statement its record opens with
        found.append(_Candidate(unit, "options" if options else section, own | context, own, context))
    return found


_DISCLOSED = re.compile(r"\bis (?:partly )?superseded by\b|\bis not current \(status: ")


def _replaced(render: Render) -> frozenset[str]:
    """Addresses the envelope marks as not current: a ``superseded`` gap, or a gap carrying the disclosure."""
    return frozenset(
        str(gap.address) for gap in render.gaps if gap.token == "superseded" or _DISCLOSED.search(gap.detail)
    )


def _superseded(units: tuple[Unit, ...]) -> bool:
    """Whether the document says it is superseded: under a Status heading, or on a ``Status:`` line."""
    for unit in units:
        section = plain_heading(unit.headings[-1]) if unit.headings else ""
        if (section == "status" or unit.text.lower().startswith("status")) and SUPERSEDED.search(unit.text):
            return True
    return False


def _required(question: Question, documents: list[frozenset[str]]) -> tuple[str, ...]:
    mandatory = [term.stem for term in question.terms if not term.optional]
    if len(documents) < BACKGROUND_MIN_NODES:
        return tuple(mandatory)
    limit = BACKGROUND_SHARE * len(documents)
    focus = [key for key in mandatory if sum(key in document for document in documents) < limit]
    return tuple(focus or mandatory)


def _weight(key: str, documents: list[frozenset[str]]) -> float:
    frequency = sum(key in document for document in documents)
    return math.log((len(documents) + 1) / (frequency + 0.5))


_WHY_SECTIONS = frozenset({"rationale", "drivers", "context", "consequences", "decision", None})
_WHY_CARRIERS = frozenset({"rationale", "drivers", "context", "consequences"})


def _eligible(question: Question, required: tuple[str, ...], node: RenderNode, candidate: _Candidate) -> bool:
    """Rules 3 and 4 of the module docstring."""
    if not all(key in candidate.pool for key in required):
        return False
    section = _class(node, candidate)
    text = candidate.unit.text
    if question.form == "why" and (section not in _WHY_SECTIONS or DANGLING.search(text)):
        return False  # "Chosen option: X, because" whose reasons follow as a list gives no reason itself
    if section == "options" and not question.about_options:
        return False
    agent_line = question.asked == "person" and bool(AGENT_FIELD.match(text))  # "author: Kevin Kelly"
    describes = section in ("context", "status", "drivers") and question.form in _VALUE_FORMS
    if describes and question.temporal != "past" and not agent_line:
        return False
    if question.form != "why" and REASON_ONLY.match(text):
        return False  # "Because …" is a reason, not a value or a way
    if question.choice and not _decision_line(section, text):
        return False
    if not any(key in candidate.own for key in required) and question.asked not in candidate.own:
        carriers = _WHY_CARRIERS | {"decision"} if question.form == "why" else {"decision"}
        if section not in carriers and not agent_line:
            return False  # an author line is about its record, whose title names the work
    if question.form == "yes-no" and not all(key in candidate.own for key in required):
        return False
    words = set(normalise_words(text))
    cause = CAUSAL.search(text)
    negated = bool(set(normalise_words(text[: cause.start()] if cause else text)) & CLAUSE_NEGATIONS)  # not a reason's
    if question.negated and not negated:
        return False
    if question.form == "why" and negated and not question.negated and _decision_line(section, text):
        return False  # the record decided the opposite of what the question presupposes
    if negated and not question.negated and question.form in ("what", "how-much"):
        return False
    if any(quantifier not in words for quantifier in question.quantifiers):
        return False
    if question.form == "why":
        if section in ("rationale", "drivers") or CAUSAL.search(text):
            return True
        return section in ("context", "consequences") and bool(PROBLEM.search(text))
    if question.form == "yes-no":
        return True
    if question.form == "how-much" and not has_figure(words, text):
        return False
    if _asks_value(question) and has_figure(words, text) and question.label not in candidate.own:
        return False  # a figure labelled with another quantity
    if question.asked == "time" and not (has_figure(words, text) or candidate.own & TIME_WORDS):
        return False
    if question.form == "what" and question.asked not in _UNNAMED and not names_value(text, question):
        return False
    if question.subject and not (
        defines(text, question.subject) or (has_figure(words, text) and set(question.subject_words) <= candidate.own)
    ):
        return False  # "what is X?" is answered by a definition of X, not by a sentence that mentions X
    if question.purpose and not PURPOSE.search(text):
        return False
    if question.form == "how" and not _decision_line(section, text) and not MEANS.search(text):
        return False  # outside a decision, a how-question asks for a way: by, with, using, when, if …
    if question.asked == "person" and not (AGENT.search(text) or _said_verb(question, text)):
        return False  # "who wrote X?" needs an agent ("by", "author") or the verb, not a sentence naming X
    said = {stem(word) for word in normalise_words(question.text)}
    field = FIELD.match(text)
    value = text[field.end() :] if field else text  # a field's label is not news: "categories: Books" says "Books"
    if _decision_line(section, text) or field:
        return bool(content_stems(value) - said)  # a record's title restates its own fields and decision
    return bool(content_stems(value) - said - candidate.place)


_VALUE_FORMS = frozenset({"what", "how-much", "how"})
"""Forms whose answer is the current state: a Context or Status unit describes the problem or the record."""
_MEASURES = frozenset(stem(word) for word in MEASURE_NOUNS)


def _asks_value(question: Question) -> bool:
    """A how-much question, or "what is the X" (no head noun, or a measure noun): its figure must be labelled X."""
    if question.label is None:
        return False
    return question.form == "how-much" or (
        question.form == "what" and (question.asked is None or question.asked in _MEASURES)
    )


_UNNAMED = frozenset({None, "time", "place", "person"})
"""Asked kinds answered without a name: a role ("two maintainers") or a place in words is an answer."""


def _class(node: RenderNode, candidate: _Candidate) -> str | None:
    """The unit's section class; the units of a decision record outside any section count as its decision,
    except its metadata lines (``Date: …``, ``Deciders: …``), which count as its status. A labelled field
    (``reason: …``, ``alternatives: …``, the way memdsl declarations and properties read) takes its
    label's class."""
    if METADATA.match(candidate.unit.text):
        return "status"
    field = FIELD.match(candidate.unit.text)
    if field and (label := FIELD_CLASSES.get(field.group(1).casefold())):
        return label
    return candidate.section or ("decision" if node.type == "decision" and not candidate.unit.headings else None)


def _decision_line(section: str | None, text: str) -> bool:
    """A unit that states what was chosen: under a Decision heading, or a sentence with a choice cue."""
    return section == "decision" or bool(DECISION_CUE.search(text))


def _said_verb(question: Question, text: str) -> bool:
    return question.verb is not None and stem(question.verb) in stems(text)


def _currency(question: Question, superseded: bool) -> int:
    """Rule 5: the current document first, the superseded one when the question asks about the past."""
    return int(superseded) if question.temporal == "past" else int(not superseded)


_WHY_RANK = {"rationale": 3, "drivers": 2, "context": 2, "decision": 2, "consequences": 1, None: 1}
_RANK = {"decision": 3, None: 2, "rationale": 1, "consequences": 1}


def _fitness(question: Question, node: RenderNode, candidate: _Candidate, superseded: bool) -> tuple[int, ...]:
    """How well the unit's place serves the question, higher first (rule 5)."""
    section = _class(node, candidate)
    text = candidate.unit.text
    past = bool(PAST.search(text))
    if question.form == "why":
        return _WHY_RANK.get(section, 0), int(bool(CAUSAL.search(text))), -int(past)
    if question.temporal == "past" and not superseded:
        return (3 if past or section == "context" else 1 if section == "decision" else 0), 0, 0
    stated = int(question.form == "what" and bool(DECISION_CUE.search(text)))  # "Chosen option: …" states it
    return max(_RANK.get(section, 0) - int(past), 0), stated, -int(past)


def _share(question: Question, weights: dict[str, float], own: frozenset[str]) -> float:
    total = sum(weights.values()) or 1.0
    return sum(weight for key, weight in weights.items() if key in own) / total
