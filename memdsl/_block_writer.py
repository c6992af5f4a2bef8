"""Serializing node and gap blocks behind field guards.

The writer refuses any value whose text would be ambiguous or would not parse
back to the same value: a single-line field holding a line break, a ref that
is not ``n<digits>``, a status or gap token outside its vocabulary, a body
holding ``\\r``, a list where a tuple belongs. It raises the same codes the
parser raises for the same rule, positioned at the line (and column) the
offending field would have occupied, so ``parse(serialize(v)) == v`` always.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from memdsl._body import codec_for
from memdsl._nodes import (
    AFFORDANCE_VERBS,
    GAP_TOKENS,
    REF_PATTERN,
    STATUSES,
    TYPE_PATTERN,
    Affordance,
    Gap,
    RefUse,
    RenderNode,
)
from memdsl.address import Address, format_address
from memdsl.errors import MemDSLParseError, fail

T = TypeVar("T")


def write_blocks(nodes: object, gaps: object, out: list[str], uses: list[RefUse]) -> None:
    """Append the node blocks then the gap lines; ref uses are collected for the caller to resolve."""
    seen: set[str] = set()
    for node in tuple_of(nodes, RenderNode, "nodes", out):
        _write_node(node, out, uses, seen)
    for gap in tuple_of(gaps, Gap, "gaps", out):
        _write_gap(gap, out)


def tuple_of(value: object, kind: type[T], what: str, out: list[str]) -> tuple[T, ...]:
    """``value`` as a tuple of ``kind``; lists and stray types would break equality or hashing."""
    if not isinstance(value, tuple) or not all(isinstance(v, kind) for v in value):
        raise _error(out, "value.type", f"{what} must be a tuple of {kind.__name__}")
    return value


def check_ref(ref: object, code: str, what: str, out: list[str], column: int) -> str:
    """A local ref as text, or the rule's error at the column it would occupy."""
    if not isinstance(ref, str) or not REF_PATTERN.fullmatch(ref):
        raise _error(out, code, f"{what} {ref!r} is not n<digits> (from n1, no leading zero)", column)
    return ref


def _error(out: list[str], code: str, message: str, column: int = 1, offset: int = 1) -> MemDSLParseError:
    return fail(code, message, len(out) + offset, column)


def _write_node(node: RenderNode, out: list[str], uses: list[RefUse], seen: set[str]) -> None:
    ref = check_ref(node.ref, "node.ref", "ref", out, 6)
    if ref in seen:
        raise _error(out, "node.duplicate_ref", f"ref {ref} is already rendered", 6)
    seen.add(ref)
    if not isinstance(node.address, Address):
        raise _error(out, "value.type", "a node address must be an Address", 7 + len(ref))
    address = format_address(node.address)
    type_col = 8 + len(ref) + len(address)
    if not isinstance(node.type, str) or not TYPE_PATTERN.fullmatch(node.type):
        raise _error(out, "node.type", f"node type {node.type!r} is not an ASCII identifier", type_col)
    if not isinstance(node.status, str) or node.status not in STATUSES:
        status_col = type_col + len(node.type) + 1
        raise _error(out, "node.status", f"status {node.status!r} is not one of {', '.join(STATUSES)}", status_col)
    if not isinstance(node.elided, bool):
        raise _error(out, "value.type", "elided must be a bool")
    fields = ["node", ref, address, node.type, node.status] + (["elided"] if node.elided else [])
    out.append(" ".join(fields))
    if node.title is not None:
        out.append("title " + _check_text(node.title, "title", "node.title_empty", out))
    for handle in tuple_of(node.prov, str, "prov", out):
        out.append("prov " + _check_text(handle, "prov", "node.prov_empty", out))
    affordances = tuple_of(node.aff, Affordance, "aff", out)
    if affordances:
        out.append(_aff_line(affordances, out, uses))
    if node.body is not None:
        _write_body(node.body, node.type, out)


def _check_text(text: object, kw: str, empty_code: str, out: list[str], column: int | None = None) -> str:
    """A single-line free-text field: non-empty, no line break; kept verbatim otherwise."""
    start = len(kw) + 2 if column is None else column
    if not isinstance(text, str):
        raise _error(out, "value.type", f"{kw} must be a str", start)
    if not text:
        raise _error(out, empty_code, f"'{kw}' needs non-empty text", start - 1)
    if "\r" in text:
        raise _error(out, "text.carriage_return", f"{kw} contains '\\r'", start + text.index("\r"))
    if "\n" in text:
        raise _error(out, "field.line_break", f"{kw} is one line; it contains '\\n'", start + text.index("\n"))
    return text


def _aff_line(affordances: Sequence[Affordance], out: list[str], uses: list[RefUse]) -> str:
    parts: list[str] = []
    column = 5
    for affordance in affordances:
        verb = affordance.verb
        if not isinstance(verb, str) or verb not in AFFORDANCE_VERBS:
            raise _error(out, "aff.verb", f"verb {verb!r} is not one of {', '.join(AFFORDANCE_VERBS)}", column)
        ref_col = column + len(verb) + 1
        ref = check_ref(affordance.ref, "aff.ref", "affordance ref", out, ref_col)
        if affordance in affordances[: len(parts)]:
            raise _error(out, "aff.duplicate", f"affordance {verb}:{ref} is listed twice", column)
        uses.append(RefUse(ref, len(out) + 1, ref_col, "aff.unknown_ref", "affordance ref"))
        parts.append(f"{verb}:{ref}")
        column = ref_col + len(ref) + 2
    return "aff " + ", ".join(parts)


def _write_body(body: object, node_type: str, out: list[str]) -> None:
    if not isinstance(body, str):
        raise _error(out, "value.type", "a body must be a str or None")
    payloads = codec_for(node_type).encode(body, len(out) + 2)
    out.append("body")
    out.extend("| " + payload if payload else "|" for payload in payloads)


def _write_gap(gap: Gap, out: list[str]) -> None:
    if not isinstance(gap.token, str) or gap.token not in GAP_TOKENS:
        raise _error(out, "gap.token", f"gap token {gap.token!r} is not one of {', '.join(GAP_TOKENS)}", 5)
    if not isinstance(gap.address, Address):
        raise _error(out, "value.type", "a gap address must be an Address", 6 + len(gap.token))
    address = format_address(gap.address)
    column = 7 + len(gap.token) + len(address)
    detail = _check_text(gap.detail, "detail", "gap.detail_empty", out, column)
    out.append(f"gap {gap.token} {address} {detail}")
