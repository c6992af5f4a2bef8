"""MemDSL: the wire protocol between Synapse's engine and its navigating model.

Three directions, each with its own header (an injection boundary):

- RENDER ``@memdsl/1``            engine -> model: the evidence envelope
- ACTION-RESPONSE ``@memdsl.resp/1`` engine -> model: results of executed actions
- OUTPUT ``@memdsl.out/2`` (and legacy ``/1``) model -> engine: actions + one terminal

This package is the protocol only: no I/O, no stores, no models. Values are
immutable and comparable, and ``parse(serialize(v)) == v`` in every direction.
"""

from __future__ import annotations

from memdsl.address import Address, Locator, format_address, parse_address
from memdsl.errors import MemDSLParseError
from memdsl.output import (
    ACTION_VERBS,
    CANONICAL_REASONS,
    INFERENCE_FORMS,
    Abstention,
    ActionCall,
    Answer,
    Binding,
    Claim,
    Output,
    parse_output,
    serialize_output,
)
from memdsl.render import Affordance, Gap, Render, RenderNode, parse_render, serialize_render
from memdsl.response import Response, parse_response, serialize_response

__all__ = [
    "ACTION_VERBS",
    "CANONICAL_REASONS",
    "INFERENCE_FORMS",
    "Abstention",
    "ActionCall",
    "Address",
    "Affordance",
    "Answer",
    "Binding",
    "Claim",
    "Gap",
    "Locator",
    "MemDSLParseError",
    "Output",
    "Render",
    "RenderNode",
    "Response",
    "format_address",
    "parse_address",
    "parse_output",
    "parse_render",
    "parse_response",
    "serialize",
    "serialize_output",
    "serialize_render",
    "serialize_response",
]


def serialize(value: Render | Response | Output) -> str:
    """Serialize any of the three protocol values to its canonical text."""
    if isinstance(value, Render):
        return serialize_render(value)
    if isinstance(value, Response):
        return serialize_response(value)
    if isinstance(value, Output):
        return serialize_output(value)
    raise TypeError(f"not a MemDSL value: {type(value).__name__}")
