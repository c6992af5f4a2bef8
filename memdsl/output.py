"""OUTPUT ``@memdsl.out/2`` (and legacy ``/1``): the model's proposal, parsed strictly.

This is the boundary where model text meets trusted code, so the parser fails
closed: one exact header, registered actions, exactly one terminal, a cited
claim DAG, and (v2) prose whose every meaningful character is bound to one
claim. ``parse_output`` raises nothing but ``MemDSLParseError`` on any ``str``;
``serialize_output`` writes only what parses back to the same value.

The rules and their error codes are documented in ``docs/memdsl-output.md``.
"""

from __future__ import annotations

from memdsl._anchors import FREE_PUNCTUATION, GAP_WORDS, is_bearing
from memdsl._output_parser import parse
from memdsl._output_serializer import serialize
from memdsl._output_values import (
    ACTION_VERBS,
    CANONICAL_REASONS,
    INFERENCE_FORMS,
    Abstention,
    ActionCall,
    Answer,
    Binding,
    Claim,
    Output,
)

__all__ = [
    "ACTION_VERBS",
    "CANONICAL_REASONS",
    "FREE_PUNCTUATION",
    "GAP_WORDS",
    "INFERENCE_FORMS",
    "Abstention",
    "ActionCall",
    "Answer",
    "Binding",
    "Claim",
    "Output",
    "is_bearing",
    "parse_output",
    "serialize_output",
]


def parse_output(text: str) -> Output:
    """Parse an OUTPUT text (v1 or v2, optionally inside one clean markdown fence)."""
    return parse(text)


def serialize_output(value: Output) -> str:
    """The canonical text of ``value``; refuses (``MemDSLParseError``) what it cannot write faithfully."""
    return serialize(value)
