"""Body codecs: how a node's body maps to the payloads of its framed ``|`` lines.

Framing (the ``| `` prefix that makes untrusted text inert) is done by the
block layer for every codec alike, so no codec can open a hole in it. A codec
only decides how a body string becomes a sequence of payload lines and back.
v1 ships one codec, plain text; the registry is keyed by node type so a richer
codec (a table for a dataset, say) can be added later without touching the
grammar. Unknown types fall back to the text codec, never to an error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Protocol

from memdsl.errors import fail


class BodyCodec(Protocol):
    """Maps a body to payload lines and back; ``decode(encode(b)) == b`` for every valid body."""

    name: str

    def encode(self, body: str, line: int) -> tuple[str, ...]:
        """Payload lines for ``body``; ``line`` places a serialization error."""
        ...

    def decode(self, payloads: Sequence[str]) -> str:
        """The body the payload lines stand for (at least one payload is always given)."""
        ...


class TextCodec:
    """Plain text: one payload per ``\\n``-separated line, so ``""`` is one empty line.

    A body may hold any character except ``\\r`` (the parser rejects it in any
    text, so it could not come back). Everything else, including lines that
    look like headers, structural lines or frames, is inert data.
    """

    name = "text"

    def encode(self, body: str, line: int) -> tuple[str, ...]:
        cr = body.find("\r")
        if cr != -1:
            raise fail("text.carriage_return", "a body never contains '\\r'", line + body.count("\n", 0, cr))
        return tuple(body.split("\n"))

    def decode(self, payloads: Sequence[str]) -> str:
        return "\n".join(payloads)


TEXT_CODEC: BodyCodec = TextCodec()

BODY_CODECS: Mapping[str, BodyCodec] = MappingProxyType({})
"""Codecs for node types whose bodies need more than plain text (none in v1)."""


def codec_for(node_type: str) -> BodyCodec:
    """The codec registered for ``node_type``, else the plain text codec."""
    return BODY_CODECS.get(node_type, TEXT_CODEC)
