"""Relation typers: one protocol, an honest offline typer and a tool-free LLM typer.

Every typer answers one question per candidate pair: which of the six
relations holds between this memory entry (practice) and this note (canon),
how confident, and why in one line. The answer is a :class:`TypedEdge`, or a
:class:`Skip` when the typer cannot say, which the build counts and never
guesses around.

The **extractive** typer (the default, offline, deterministic) claims only what
a rule can establish: a cosine is evidence of topical relatedness, so it
types ``related`` with the cosine as its confidence (basis ``cosine``); a
shared code path is evidence that both texts are about the same file, not of
how they relate, so it too types ``related``, with confidence
``max(cosine, 0.8)`` and basis ``shared-file``, naming the path. It never
types applies, corroborates, contradicts, motivated-by or instantiates: those
need a reading of both texts that a rule cannot do, and it never passes for an
LLM.

The **LLM** typer sends one tool-free prompt per pair and accepts exactly one
JSON object ``{"relation", "confidence", "rationale"}``. Anything else (prose,
two objects, an unknown relation, a confidence outside [0, 1], a missing or
extra key) skips the pair. A provider failure is not a bad answer: it raises,
so the build stops before writing and the previous overlay stays in place.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Protocol

from adapters.base import Node
from synapse_server.models.base import Model
from synapse_server.overlay.candidates import PairEvidence
from synapse_server.overlay.model import RELATIONS, Basis, Relation

__all__ = [
    "EXTRACTIVE_TYPER",
    "PROVENANCE_CONFIDENCE",
    "ExtractiveTyper",
    "LLMTyper",
    "Skip",
    "TypeOutcome",
    "TypedEdge",
    "Typer",
    "make_typer",
    "parse_typing_reply",
    "typing_prompt",
]

EXTRACTIVE_TYPER = "extractive-v1"
PROVENANCE_CONFIDENCE = 0.8
"""The floor a shared code path gives a ``related`` edge: two authors tied both texts to the same file."""

RATIONALE_CHARS = 400
PROMPT_BODY_CHARS = 1500
REPLY_MAX_TOKENS = 300
_PATHS_SHOWN = 3


@dataclass(frozen=True, slots=True)
class TypedEdge:
    relation: Relation
    confidence: float
    rationale: str
    typer: str
    basis: Basis = "judged"


@dataclass(frozen=True, slots=True)
class Skip:
    """The typer could not type the pair; ``reason`` is counted and shown in the build report."""

    reason: str


TypeOutcome = TypedEdge | Skip


class Typer(Protocol):
    """``identity`` is recorded on every edge and in the overlay signature."""

    identity: str

    def type_pair(self, practice: Node, canon: Node, evidence: PairEvidence) -> TypeOutcome: ...


class ExtractiveTyper:
    """Deterministic, offline: ``related`` from a cosine or from a shared code path, each saying which; nothing else."""

    identity = EXTRACTIVE_TYPER

    def type_pair(self, practice: Node, canon: Node, evidence: PairEvidence) -> TypeOutcome:
        similarity = evidence.similarity
        # A question is tied to no file's practice: a shared path only ties the two together, the cosine still rules.
        if evidence.shared_paths and canon.type != "question":
            confidence = max(similarity or 0.0, PROVENANCE_CONFIDENCE)
            rationale = (
                f"Shared file only: both are about {_paths(evidence.shared_paths)}; "
                "how they relate was not judged (offline rule, not an LLM reading)."
            )
            return TypedEdge("related", confidence, rationale[:RATIONALE_CHARS], self.identity, "shared-file")
        if similarity is None:
            return Skip("no cosine for the pair (not in the index) and no rule applies")
        rationale = f"Semantic neighbours (cosine {similarity:.2f}); the offline typer does not judge the relation."
        return TypedEdge("related", max(0.0, min(1.0, similarity)), rationale, self.identity, "cosine")


class LLMTyper:
    """One tool-free completion per pair, strictly parsed; identity ``provider:id`` of the model."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.identity = f"{model.identity.provider}:{model.identity.id}"

    def type_pair(self, practice: Node, canon: Node, evidence: PairEvidence) -> TypeOutcome:
        completion = self.model.complete(typing_prompt(practice, canon, evidence), max_tokens=REPLY_MAX_TOKENS)
        return parse_typing_reply(completion.text, self.identity)


def make_typer(model: Model | None) -> Typer:
    """The extractive typer for no model or the offline ``extractive`` spec; the LLM typer for any other."""
    if model is None or model.identity.provider == "extractive":
        return ExtractiveTyper()
    return LLMTyper(model)


_RELATION_GUIDE = """\
- applies: the practice puts the note's method, model or claim into effect (code, a setting, a procedure).
- corroborates: what the practice observed agrees with what the note asserts.
- contradicts: what the practice observed or decided is at odds with what the note asserts.
- motivated-by: the practice was done because of what the note says.
- instantiates: the practice is a concrete instance or example of the note's concept.
- related: about the same subject, but none of the above is established by the two texts."""


def typing_prompt(practice: Node, canon: Node, evidence: PairEvidence) -> str:
    """The whole prompt for one pair: both texts, the evidence that paired them, the reply contract."""
    strength = canon.meta.get("claim_strength")
    status = practice.meta.get("status")
    lines = [
        "You type the relation between one entry of a project's memory (what the project did: PRACTICE)",
        "and one note of its literature zettelkasten (what the field says: CANON). Use only the two texts below.",
        "",
        f"PRACTICE {practice.address} (kind {practice.type}" + (f", status {status})" if status else ")"),
        f"Title: {practice.title}",
        _clip(practice.body),
        "",
        f"CANON {canon.address} (type {canon.type}" + (f", claim strength {strength})" if strength else ")"),
        f"Title: {canon.title}",
        _clip(canon.body),
        "",
        "Why they were paired: "
        + (f"cosine similarity {evidence.similarity:.2f}" if evidence.similarity is not None else "no cosine")
        + (f"; both are about {', '.join(evidence.shared_paths)}" if evidence.shared_paths else ""),
        "",
        "Relations (practice -> canon):",
        _RELATION_GUIDE,
        "",
        "Reply with exactly one JSON object and nothing else:",
        '{"relation": "<one of: ' + ", ".join(RELATIONS) + '>", "confidence": <number 0..1>, '
        '"rationale": "<one line, at most 300 characters>"}',
    ]
    return "\n".join(lines) + "\n"


_FENCE = re.compile(r"^```(?:json)?[^\S\n]*+\n(.*)\n```$", re.DOTALL)  # one way to split the fence line: linear
_KEYS = frozenset({"relation", "confidence", "rationale"})


def parse_typing_reply(text: str, typer: str) -> TypeOutcome:
    """Exactly one JSON object with the three keys, or a :class:`Skip` saying what was wrong."""
    body = text.strip()
    fenced = _FENCE.match(body)  # one ```json fence around the object is a wrapper, not content
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return Skip("the reply is not one JSON object")
    if not isinstance(data, dict):
        return Skip("the reply is not one JSON object")
    if set(data) != _KEYS:
        return Skip(f"the reply's keys are {sorted(data)}, expected {sorted(_KEYS)}")
    relation, confidence, rationale = data["relation"], data["confidence"], data["rationale"]
    if relation not in RELATIONS:
        return Skip(f"unknown relation {relation!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0.0 <= confidence <= 1.0:
        return Skip("confidence is not a number between 0 and 1")
    if not isinstance(rationale, str) or not rationale.strip():
        return Skip("the rationale is missing")
    line = " ".join(rationale.split())
    if len(line) > RATIONALE_CHARS:
        return Skip(f"the rationale is longer than {RATIONALE_CHARS} characters")
    return TypedEdge(_relation(relation), float(confidence), line, typer)


def _relation(value: str) -> Relation:
    for relation in RELATIONS:
        if relation == value:
            return relation
    raise ValueError(value)


def _paths(paths: tuple[str, ...]) -> str:
    shown = ", ".join(paths[:_PATHS_SHOWN])
    more = len(paths) - _PATHS_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def _clip(body: str) -> str:
    text = body.strip()
    return text if len(text) <= PROMPT_BODY_CHARS else text[:PROMPT_BODY_CHARS].rsplit(" ", 1)[0] + " …"
