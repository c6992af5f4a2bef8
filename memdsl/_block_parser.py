"""Parsing node and gap blocks, the grammar RENDER and ACTION-RESPONSE share.

A node block is ``node`` + ``title``? + ``prov``* + ``aff``? + (``body`` + ``|`` lines)?,
in that order; gap lines follow the last node. After a body only ``node``,
``gap`` or the end of the text may follow: an unframed line is a hard error,
never a switch back to structural parsing, which is what keeps untrusted body
text inert. One ``_parse_<rule>`` per grammar rule; every error is stamped by
the cursor with the line it was found on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from memdsl._body import codec_for
from memdsl._cursor import Cursor, items, keyword, tokens
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
from memdsl.address import Address, parse_address
from memdsl.errors import MemDSLParseError

Misplaced = Mapping[str, tuple[str, str]]
"""Direction keywords that are known but out of place inside blocks: keyword -> (code, message)."""


@dataclass(frozen=True, slots=True)
class Blocks:
    """The node and gap blocks of one text, plus the ref uses still to resolve."""

    nodes: tuple[RenderNode, ...]
    gaps: tuple[Gap, ...]
    uses: tuple[RefUse, ...]


_FIELD_RANK = {"title": 1, "prov": 2, "aff": 3, "body": 4}


def parse_blocks(cur: Cursor, misplaced: Misplaced) -> Blocks:
    """Parse node blocks then gap lines up to the end of the text."""
    nodes: list[RenderNode] = []
    gaps: list[Gap] = []
    uses: list[RefUse] = []
    seen: set[str] = set()
    while (line := cur.peek()) is not None:
        kw = keyword(line)
        if kw == "node":
            if gaps:
                raise cur.error("block.node_after_gap", "every node comes before the first gap line")
            node = _parse_node(cur, misplaced, uses, seen)
            seen.add(node.ref)
            nodes.append(node)
        elif kw == "gap":
            gaps.append(_parse_gap(cur))
        else:
            raise stray_line(cur, line, misplaced)
    return Blocks(tuple(nodes), tuple(gaps), tuple(uses))


def stray_line(cur: Cursor, line: str, misplaced: Misplaced) -> MemDSLParseError:
    """The error for a line that cannot stand where it is."""
    kw = keyword(line)
    if not line:
        return cur.error("line.blank", "blank lines are not part of the grammar")
    if line[0].isspace():
        return cur.error("line.spacing", "a structural line does not start with whitespace")
    if kw in misplaced:
        code, message = misplaced[kw]
        return cur.error(code, message)
    if kw in _FIELD_RANK:
        return cur.error("block.outside_node", f"'{kw}' belongs inside a node block, before any gap")
    if line.startswith("|"):
        return cur.error("body.outside_body", "a framed '|' line stands only after 'body'")
    return cur.error("line.unknown", f"unknown line {kw[:40]!r}")


def _parse_node(cur: Cursor, misplaced: Misplaced, uses: list[RefUse], seen: set[str]) -> RenderNode:
    ref, address, node_type, status, elided = _parse_node_header(cur, seen)
    title: str | None = None
    prov: list[str] = []
    aff: tuple[Affordance, ...] = ()
    body: str | None = None
    rank = 0
    while (line := cur.peek()) is not None:
        kw = keyword(line)
        field_rank = _FIELD_RANK.get(kw)
        if field_rank is None:
            if kw in ("node", "gap"):
                break
            raise stray_line(cur, line, misplaced)
        if field_rank < rank:
            raise cur.error("node.field_order", f"'{kw}' is out of order: node, title, prov*, aff, body")
        if field_rank == rank and kw != "prov":
            raise cur.error("node.field_repeated", f"a node has at most one '{kw}' line")
        rank = field_rank
        if kw == "title":
            title = _parse_text_field(cur, line, "title", "node.title_empty")
        elif kw == "prov":
            prov.append(_parse_text_field(cur, line, "prov", "node.prov_empty"))
        elif kw == "aff":
            aff = _parse_aff(cur, line, uses)
        else:
            body = _parse_body(cur, line, node_type)
            break
    return RenderNode(ref, address, node_type, status, elided, title, tuple(prov), aff, body)


def _parse_node_header(cur: Cursor, seen: set[str]) -> tuple[str, Address, str, str, bool]:
    line = cur.peek() or ""
    parts = tokens(cur, line)
    if len(parts) not in (5, 6):
        raise cur.error("node.arity", "a node line is 'node <ref> <address> <type> <status> [elided]'")
    (ref, ref_col), (addr, addr_col), (node_type, type_col), (status, status_col) = parts[1:5]
    if not REF_PATTERN.fullmatch(ref):
        raise cur.error("node.ref", f"ref {ref[:40]!r} is not n<digits> (from n1, no leading zero)", ref_col)
    if ref in seen:
        raise cur.error("node.duplicate_ref", f"ref {ref} is already rendered", ref_col)
    address = parse_address(addr, cur.line_no, addr_col)
    if not TYPE_PATTERN.fullmatch(node_type):
        raise cur.error("node.type", f"node type {node_type[:40]!r} is not an ASCII identifier", type_col)
    if status not in STATUSES:
        raise cur.error("node.status", f"status {status[:40]!r} is not one of {', '.join(STATUSES)}", status_col)
    if len(parts) == 6 and parts[5][0] != "elided":
        raise cur.error("node.elided_marker", "the optional fifth field is exactly 'elided'", parts[5][1])
    cur.advance()
    return ref, address, node_type, status, len(parts) == 6


def _parse_text_field(cur: Cursor, line: str, kw: str, empty_code: str) -> str:
    text = line[len(kw) + 1 :]
    if not text:
        raise cur.error(empty_code, f"'{kw}' needs non-empty text after one space", len(kw) + 1)
    cur.advance()
    return text


def _parse_aff(cur: Cursor, line: str, uses: list[RefUse]) -> tuple[Affordance, ...]:
    if line == "aff":
        raise cur.error("aff.empty", "an aff line lists at least one verb:ref", 4)
    tokens(cur, line)  # spacing rules only; the list itself is split on ', '
    found: list[Affordance] = []
    for item, column in items(line[4:], 5):
        verb, sep, ref = item.partition(":")
        if not sep or ":" in ref:
            raise cur.error("aff.syntax", f"affordance {item[:40]!r} is not verb:ref", column)
        if verb not in AFFORDANCE_VERBS:
            raise cur.error("aff.verb", f"verb {verb[:40]!r} is not one of {', '.join(AFFORDANCE_VERBS)}", column)
        ref_col = column + len(verb) + 1
        if not REF_PATTERN.fullmatch(ref):
            raise cur.error("aff.ref", f"ref {ref[:40]!r} is not n<digits>", ref_col)
        affordance = Affordance(verb, ref)
        if affordance in found:
            raise cur.error("aff.duplicate", f"affordance {verb}:{ref} is listed twice", column)
        found.append(affordance)
        uses.append(RefUse(ref, cur.line_no, ref_col, "aff.unknown_ref", "affordance ref"))
    cur.advance()
    return tuple(found)


def _parse_body(cur: Cursor, line: str, node_type: str) -> str:
    if line != "body":
        raise cur.error("body.marker", "the body marker line is exactly 'body'", 5 if line.startswith("body") else 1)
    marker = cur.line_no
    cur.advance()
    payloads: list[str] = []
    while (framed := cur.peek()) is not None and framed.startswith("|"):
        if framed == "|":
            payloads.append("")
        elif framed.startswith("| ") and len(framed) > 2:
            payloads.append(framed[2:])
        else:
            raise cur.error("body.frame", "a body line is '|' (empty) or '| ' + non-empty text", 2)
        cur.advance()
    if not payloads:
        raise cur.error("body.empty", "'body' is followed by at least one framed '|' line", 1, marker)
    if framed is not None and keyword(framed) not in ("node", "gap"):
        raise cur.error("body.unframed_line", "after a body only 'node', 'gap' or the end of the text may follow")
    return codec_for(node_type).decode(payloads)


def _parse_gap(cur: Cursor) -> Gap:
    line = cur.peek() or ""
    parts = line.split(" ", 3)
    tokens(cur, " ".join(parts[:3]))
    if len(parts) < 4:
        raise cur.error("gap.arity", "a gap line is 'gap <token> <address> <detail>'", len(line) + 1)
    token, addr, detail = parts[1], parts[2], parts[3]
    if token not in GAP_TOKENS:
        raise cur.error("gap.token", f"gap token {token[:40]!r} is not one of {', '.join(GAP_TOKENS)}", 5)
    address = parse_address(addr, cur.line_no, 6 + len(token))
    if not detail:
        raise cur.error("gap.detail_empty", "a gap names its detail after the address", len(line) + 1)
    cur.advance()
    return Gap(token, address, detail)
