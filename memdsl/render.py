"""RENDER ``@memdsl/1``: the bounded evidence envelope the engine shows the model.

An envelope is the header, an optional ``focus`` line, node blocks and gap
lines. Local refs (``n1``, ``n2``, ...) stand for canonical addresses; bodies
are framed ``|`` lines so untrusted source text stays inert data. The parser
is strict (it accepts only canonical text, except that the final newline may
be missing) and raises only :class:`~memdsl.errors.MemDSLParseError` for any
``str``; ``parse_render(serialize_render(v)) == v`` for every value the
serializer accepts. The grammar and every error code are in ``docs/memdsl.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

from memdsl._block_parser import parse_blocks
from memdsl._block_writer import check_ref, tuple_of, write_blocks
from memdsl._cursor import Cursor, expect_header, items, keyword, tokens
from memdsl._nodes import (
    AFFORDANCE_VERBS,
    GAP_TOKENS,
    REF_PATTERN,
    STATUSES,
    Affordance,
    Gap,
    RefUse,
    RenderNode,
    resolve_refs,
)
from memdsl.errors import fail

__all__ = [
    "AFFORDANCE_VERBS",
    "GAP_TOKENS",
    "HEADER",
    "STATUSES",
    "Affordance",
    "Gap",
    "Render",
    "RenderNode",
    "parse_render",
    "serialize_render",
]

HEADER = "@memdsl/1"

_MISPLACED = {"focus": ("render.focus_position", "a focus line stands once, right after the header")}


@dataclass(frozen=True, slots=True)
class Render:
    """An envelope: the refs in focus, the rendered nodes in order, and the gaps."""

    focus: tuple[str, ...] = ()
    nodes: tuple[RenderNode, ...] = ()
    gaps: tuple[Gap, ...] = ()


def parse_render(text: str) -> Render:
    """Parse a RENDER text; a non-``str`` argument is a ``TypeError``, every other failure a parse error."""
    cur = Cursor(text)
    expect_header(cur, HEADER, "render")
    focus, uses = _parse_focus(cur)
    blocks = parse_blocks(cur, _MISPLACED)
    resolve_refs(uses + list(blocks.uses), blocks.nodes)
    return Render(focus, blocks.nodes, blocks.gaps)


def serialize_render(value: Render) -> str:
    """The canonical text of an envelope, or a parse error naming the field that cannot be written."""
    if not isinstance(value, Render):
        raise TypeError(f"serialize_render takes a Render, not {type(value).__name__}")
    out = [HEADER]
    uses: list[RefUse] = []
    focus = tuple_of(value.focus, str, "focus", out)
    if focus:
        out.append(_focus_line(focus, out, uses))
    write_blocks(value.nodes, value.gaps, out, uses)
    resolve_refs(uses, value.nodes)
    return "\n".join(out) + "\n"


def _parse_focus(cur: Cursor) -> tuple[tuple[str, ...], list[RefUse]]:
    line = cur.peek()
    if line is None or keyword(line) != "focus":
        return (), []
    if line == "focus":
        raise cur.error("render.focus_empty", "a focus line lists at least one ref", 6)
    tokens(cur, line)  # spacing rules only; the list itself is split on ', '
    refs: list[str] = []
    uses: list[RefUse] = []
    for ref, column in items(line[6:], 7):
        if not REF_PATTERN.fullmatch(ref):
            raise cur.error("render.focus_ref", f"focus ref {ref[:40]!r} is not n<digits>", column)
        if ref in refs:
            raise cur.error("render.focus_duplicate", f"focus lists {ref} twice", column)
        refs.append(ref)
        uses.append(RefUse(ref, cur.line_no, column, "render.focus_unknown_ref", "focus ref"))
    cur.advance()
    return tuple(refs), uses


def _focus_line(focus: tuple[str, ...], out: list[str], uses: list[RefUse]) -> str:
    column = 7
    for index, ref in enumerate(focus):
        check_ref(ref, "render.focus_ref", "focus ref", out, column)
        if ref in focus[:index]:
            raise fail("render.focus_duplicate", f"focus lists {ref} twice", len(out) + 1, column)
        uses.append(RefUse(ref, len(out) + 1, column, "render.focus_unknown_ref", "focus ref"))
        column += len(ref) + 2
    return "focus " + ", ".join(focus)
