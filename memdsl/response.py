"""ACTION-RESPONSE ``@memdsl.resp/1``: what an executed action returned, mid-loop.

A response is the header, one ``status`` line, then node and gap blocks exactly
as in RENDER (no ``focus``). Its own header keeps a response fragment from
ever being read as an envelope or as a terminal answer. ``mut`` and ``impact``
are in-memory seams for future write actions: v1 never emits them, so the
serializer refuses a value that carries either rather than drop it silently,
and ``parse_response(serialize_response(v)) == v`` always holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from memdsl._block_parser import parse_blocks
from memdsl._block_writer import write_blocks
from memdsl._cursor import Cursor, expect_header, keyword, tokens
from memdsl._nodes import Gap, RefUse, RenderNode, resolve_refs
from memdsl.errors import fail

__all__ = ["HEADER", "RESPONSE_STATUSES", "Response", "parse_response", "serialize_response"]

HEADER = "@memdsl.resp/1"

RESPONSE_STATUSES = ("ok", "partial", "error")
"""ok: everything asked for is returned; partial: some is absent (gaps say what); error: the action did not run."""

_MISPLACED = {"status": ("resp.status_position", "the status line stands once, right after the header")}


@dataclass(frozen=True, slots=True)
class Response:
    """Nodes and gaps an action returned; ``mut``/``impact`` are reserved write-action seams."""

    status: str
    nodes: tuple[RenderNode, ...] = ()
    gaps: tuple[Gap, ...] = ()
    mut: tuple[object, ...] = ()
    impact: tuple[object, ...] = ()


def parse_response(text: str) -> Response:
    """Parse an ACTION-RESPONSE text; a non-``str`` argument is a ``TypeError``, all else a parse error."""
    cur = Cursor(text)
    expect_header(cur, HEADER, "resp")
    status = _parse_status(cur)
    blocks = parse_blocks(cur, _MISPLACED)
    resolve_refs(blocks.uses, blocks.nodes)
    return Response(status, blocks.nodes, blocks.gaps)


def serialize_response(value: Response) -> str:
    """The canonical text of a response, or a parse error naming the field that cannot be written."""
    if not isinstance(value, Response):
        raise TypeError(f"serialize_response takes a Response, not {type(value).__name__}")
    if value.mut != () or value.impact != ():
        raise fail("resp.unshipped_seam", "mut and impact are reserved for write actions; v1 never emits them")
    if not isinstance(value.status, str) or value.status not in RESPONSE_STATUSES:
        raise fail("resp.status", f"status {value.status!r} is not one of {', '.join(RESPONSE_STATUSES)}", 2, 8)
    out = [HEADER, f"status {value.status}"]
    uses: list[RefUse] = []
    write_blocks(value.nodes, value.gaps, out, uses)
    resolve_refs(uses, value.nodes)
    return "\n".join(out) + "\n"


def _parse_status(cur: Cursor) -> str:
    line = cur.peek()
    if line is None or keyword(line) != "status":
        raise cur.error("resp.status_missing", "line 2 of a response is 'status <ok|partial|error>'")
    parts = tokens(cur, line)
    if len(parts) != 2 or parts[1][0] not in RESPONSE_STATUSES:
        raise cur.error("resp.status", f"the status is one of {', '.join(RESPONSE_STATUSES)}", 8)
    cur.advance()
    return parts[1][0]
