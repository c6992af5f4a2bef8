"""What one unit's text says of itself: the cues the offline navigator weighs, and the section it sits in.

A heading, a field label (``reason: …``) or a metadata line places a unit in a
section class (decision, rationale, options, status …); its words carry cues:
a reason, a stated problem, a past, a choice, a purpose, a way, an agent, a
definition of a subject, a named value, a figure. These are pure predicates
over text, kept apart from :mod:`synapse_server.navigation.focus`, which
weighs them against a question (the rules are listed there).
"""

from __future__ import annotations

import re

from synapse_server.language.question import NEGATIONS, Question, content_stems, stem
from synapse_server.language.text import normalise_words

SECTIONS = {
    "decision": "decision|decisions|decision outcome|outcome|chosen option|resolution|the decision|solution",
    "rationale": "rationale|motivation|reason|reasons|reasoning|justification|positive consequences|pros|benefits|why",
    "drivers": "decision drivers|drivers|requirements|criteria",
    "context": "context|background|problem|problem statement|context and problem statement|history",
    "consequences": "consequences|implications",
    "drawbacks": "negative consequences|cons|drawbacks|risks",
    "options": "considered options|options|alternatives|alternatives considered|options considered|"
    "pros and cons of the options|pros and cons|rejected alternatives",
    "status": "status",
}
"""Heading names by section class; a heading takes the class of its longest matching name."""

HEADING_NAMES = sorted(
    ((name, label) for label, names in SECTIONS.items() for name in names.split("|")),
    key=lambda pair: -len(pair[0]),
)

CAUSAL = re.compile(
    r"\b(?:because|since (?!\d)|so that|in order to|to avoid|to prevent|to ensure|to make sure|due to|owing to|"
    r"as a result|therefore|thus|hence|which means|that is why|which is why|the reason|motivated|otherwise|"
    r"lets us|allows us|so we)\b|,\s*so\b",
    re.I,
)

PROBLEM = re.compile(
    r"\b(?:not|no|never|cannot|could not|unable|fail|fails|failed|failing|broke|broken|break|slow|hard|difficult|"
    r"error|errors|risk|leak|leaked|expensive|costly|confus\w*|misread\w*|missing|lack\w*|by hand|manual\w*|"
    r"unavailable|outage\w*)\b",
    re.I,
)

PAST = re.compile(r"\b(?:historically|previously|originally|formerly|used to|in the past|at the time|at first)\b", re.I)

SUPERSEDED = re.compile(r"\b(?:superseded|deprecated|rejected|obsolete|replaced by)\b", re.I)

TIME_WORDS = frozenset(
    stem(word)
    for word in """day days week weeks month months year years quarter hour hours minute minutes morning evening night
    noon midnight daily weekly monthly annually yearly quarterly monday tuesday wednesday thursday friday saturday
    sunday january february march april may june july august september october november december end start
    close open""".split()
)

SPELLED = frozenset("one two three four five six seven eight nine ten twelve twenty hundred thousand million".split())

OPTIONS_LEAD = re.compile(
    r"\b(?:options?|alternatives?|approaches|choices|candidates|possibilities)\b|"
    r"\bwe (?:discussed|considered|looked at|evaluated|compared)\b",
    re.I,
)


def section_of(headings: tuple[str, ...]) -> str | None:
    """The class of the innermost heading that has one (see :data:`SECTIONS`), else None."""
    for heading in reversed(headings):
        name = plain_heading(heading)
        for key, label in HEADING_NAMES:
            if name == key or name.startswith((key + " ", key + ":")):
                return label
    return None


def plain_heading(heading: str) -> str:
    """A heading without its numbering and case: ``"2. Decision Outcome"`` reads ``"decision outcome"``."""
    return re.sub(r"^[\W\d_]+", "", heading).strip().lower()


CLAUSE_NEGATIONS = NEGATIONS - {"non"}
"""Words that negate a clause; ``non-`` negates the noun it prefixes ("non-perishable purchases"), so a
definition holding it is not a negated statement."""

DECISION_CUE = re.compile(
    r"\b(?:we will|we'll|we shall|we are going to|we decided|we have decided|we've decided|we chose|we choose|"
    r"we have chosen|we picked|we selected|we went with|we go with|we adopt|we adopted|we use|chosen option|"
    r"decided to|decision is|(?:is|was|has been|have been) (?:chosen|selected|adopted|picked))\b",
    re.I,
)
"""A sentence that states a choice, wherever it sits: "We will …", "Chosen option: …", "X was chosen"."""

METADATA = re.compile(
    r"^\s*(?:status|date|deciders|decision-makers|technical story|consulted|informed|authors?|tags?|proposed by|"
    r"parent|grand_parent|nav_order|layout|permalink|has_children)\s*:",
    re.I,
)

FIELD = re.compile(r"^\s*([A-Za-z][\w ]{0,30}?)\s*(?:\([^)]*\))?\s*:\s")

FIELD_CLASSES = {
    **dict.fromkeys(("reason", "reasons", "rationale", "why", "motivation", "because", "justification"), "rationale"),
    **dict.fromkeys(("alternatives", "alternative", "options", "considered", "rejected"), "options"),
    **dict.fromkeys(
        ("status", "scope", "subject", "kind", "supersedes", "superseded by", "conflicts with", "aliases", "id",
         "canonical name", "evidence", "source", "tags", "created", "updated", "horizon", "confidence",
         "categories", "category", "type", "cover", "last"),
        "status",
    ),
}  # fmt: skip
"""Field labels that place a ``label: value`` unit in a section: a memdsl ``reason:`` is a rationale."""

DANGLING = re.compile(r"\b(?:because|since|so that|due to)\W*$", re.I)

REASON_ONLY = re.compile(r"^\W*(?:because|since|so that|due to)\b", re.I)


def names_value(text: str, question: Question) -> bool:
    """Whether ``text`` names a value or an entity the question did not: a figure, a capitalised name, or,
    in a decision line, a quoted name (``Chosen option: "Use an asterisk"``) holding a content word the
    question did not say."""
    said = {word.casefold() for word in re.findall(r"[^\W_][\w.+-]*", question.text)}
    for index, match in enumerate(re.finditer(r"[^\W_][\w.+/-]*", text)):
        token = match.group()
        if any(char.isdigit() for char in token):
            return True
        if index > 0 and token[0].isupper() and token.casefold() not in said:
            return True
    if not DECISION_CUE.search(text):
        return False
    asked = {stem(word) for word in said}
    return any(content_stems("".join(match.groups(""))) - asked for match in QUOTED.finditer(text))


QUOTED = re.compile(r'"([^"]{1,80})"|\u201c([^\u201d]{1,80})\u201d|`([^`]{1,80})`')

COPULA_WORDS = frozenset({"is", "are", "means", "mean", "refers", "stands", "denotes"})


def defines(text: str, subject: tuple[str, ...]) -> bool:
    """Whether ``text`` defines the subject: its words before the first copula (or colon) hold all of it."""
    head = re.split(r":\s", text, maxsplit=1)[0] if ":" in text[:80] else text
    words = normalise_words(head)
    cut = next((at for at, word in enumerate(words) if word in COPULA_WORDS), None)
    if cut is None and head == text:
        return False
    before = {stem(word) for word in words[: cut if cut is not None else len(words)]}
    return all(key in before for key in subject)


PURPOSE = re.compile(r"\b(?:used (?:by|for|to|in)|in order to|so that|serves?|purposes?|allows?|lets|enables?)\b", re.I)

MEANS = re.compile(
    r"\b(?:by|with|using|via|through|when|whenever|if|as|once|then|first|after|before|until|unless)\b|"
    r"\b(?:run|install|call|set|add|use|write|create|configure)\b",
    re.I,
)

AGENT = re.compile(
    r"\b(?:by|authors?|owners?|owns|maintainers?|maintains|maintained|led|leads|responsible|deciders?|"
    r"written|wrote|created)\b",
    re.I,
)

AGENT_FIELD = re.compile(r"^\s*(?:authors?|deciders?|decision-makers|owners?|maintainers?|proposed by)\s*:", re.I)
"""A metadata line that names who: it answers a who-question though it is no statement of the record's."""


def has_figure(words: set[str], text: str | None = None) -> bool:
    """A number or a spelled one; given the raw ``text``, a digit glued to a name (``target_2026``, ``v2``) is
    part of that name, not a figure."""
    if words & SPELLED:
        return True
    if not any(any(char.isdigit() for char in word) for word in words):
        return False
    return text is None or bool(FREE_DIGIT.search(text))


FREE_DIGIT = re.compile(r"(?<![A-Za-z_\d])\d")
