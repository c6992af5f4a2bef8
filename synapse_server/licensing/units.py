"""The clauses a node offers for licensing, each with the frame it is read in.

Atomic units (:mod:`synapse_server.language.atoms`) are cut further where a
clause of its own hides inside one:

- a numbered item inside a sentence (``…: (1) A; (2) B`` or ``…: 1. A. 2. B.``)
  is its own clause, its enumerator dropped, and the text before the first
  item is its lead-in;
- a list item's lead-in is the paragraph ending in ``:`` just before the list;
- a table row is one clause per cell, ``<row label> <cell>``, framed by the
  header of that cell's column and of the label column.

Each clause's frame (:mod:`.frames`) is built from the node's title, the
unit's heading path and its lead-in or header: nothing from another unit,
section or node.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from synapse_server.language.atoms import Unit, atomic_units, sentence_units
from synapse_server.licensing.frames import Frame, frame_of

__all__ = ["FramedClause", "framed_clauses"]

_ENUMERATOR = re.compile(r"^\s*+(?:\(\d{1,3}\)|\(?[a-z]\)|\d{1,3}[.)])(?=\s|$)\s*+")
_INLINE_ITEM = re.compile(r":\s*+(?:\(\d{1,3}\)|\d{1,3}[.)])(?=\s|$)")
_ITEM_BREAK = re.compile(r"[,;.]?\s++(?:\(\d{1,3}\)|\d{1,3}[.)])\s++")
_ORPHAN = re.compile(r"^\s*+(?:\(\d{1,3}\)|\d{1,3}[.)])\s*+$")


@dataclass(frozen=True, slots=True)
class FramedClause:
    """One clause's plain text, its heading path, and its frame."""

    text: str
    headings: tuple[str, ...]
    frame: Frame


def framed_clauses(title: str, body: str) -> tuple[FramedClause, ...]:
    """Every licensing clause of a node body, in order, with its own frame."""
    units = atomic_units(body)
    found: list[FramedClause] = []
    lead_in: str | None = None
    lead_end = -1
    header: list[str] | None = None
    for index, unit in enumerate(units):
        text = unit.text
        if unit.kind == "heading":
            lead_in, header = None, None
            continue
        if unit.kind == "row":
            cells = _cells(body, unit)
            if header is None or _new_table(units, index, body):
                header = cells
                continue
            found.extend(_row_clauses(title, unit, cells, header))
            continue
        header = None
        if unit.kind == "paragraph" and lead_in is not None and _blank_between(body, lead_end, unit.start):
            lead_in = None
        inline = _INLINE_ITEM.search(text)
        if inline is not None and unit.kind == "paragraph":
            lead_in, lead_end = text[: inline.start()].strip(), unit.end
            text = text[inline.start() + 1 :]
        elif unit.kind == "paragraph" and _ends_with_colon(body, unit):
            lead_in, lead_end = text.rstrip().rstrip(":").strip(), unit.end
            continue
        if _ORPHAN.match(text):
            continue
        text = _ENUMERATOR.sub("", text, count=1)
        context = (*unit.headings, lead_in) if lead_in and unit.kind in ("item", "paragraph") else unit.headings
        frame = frame_of((title, *context))
        items = _ITEM_BREAK.split(text) if lead_in and unit.kind == "paragraph" else [text]
        for item in items:
            item = item.strip().rstrip(",;").strip()
            if item:
                found.append(FramedClause(item, tuple(context), frame))
        if unit.kind == "paragraph" and lead_in is not None:
            lead_end = unit.end
    found.extend(_whole_sentences(title, body, units))
    return tuple(found)


def _whole_sentences(title: str, body: str, atoms: Sequence[Unit]) -> list[FramedClause]:
    """Sentences cut into several atoms, whole: a claim may restate all of one, never pool two."""
    cut = {(unit.start, unit.end) for unit in atoms}
    return [
        FramedClause(unit.text, unit.headings, frame_of((title, *unit.headings)))
        for unit in sentence_units(body)
        if unit.kind == "paragraph" and (unit.start, unit.end) not in cut and not _INLINE_ITEM.search(unit.text)
    ]


def _ends_with_colon(body: str, unit: Unit) -> bool:
    """The unit ends its paragraph with a colon (the atoms keep it out of the unit's text)."""
    tail = body[unit.end : unit.end + 3]
    return unit.text.rstrip().endswith(":") or tail.lstrip(" \t").startswith(":")


def _cells(body: str, unit: Unit) -> list[str]:
    raw = body[unit.start : unit.end].strip().strip("|")
    return [cell.strip() for cell in raw.split("|")]


def _new_table(units: Sequence[Unit], index: int, body: str) -> bool:
    """The row opens a new table: the unit before it is not a row, or a blank line separates them."""
    before = units[index - 1] if index else None
    return before is None or before.kind != "row" or _blank_between(body, before.end, units[index].start)


def _row_clauses(title: str, unit: Unit, cells: Sequence[str], header: Sequence[str]) -> list[FramedClause]:
    label = cells[0] if cells else ""
    clauses = []
    for column, cell in enumerate(cells[1:], 1):
        if not cell:
            continue
        named = header[column] if column < len(header) else ""
        context = (*unit.headings, header[0] if header else "", named)
        clauses.append(
            FramedClause(f"{label} {cell}".strip(), tuple(c for c in context if c), frame_of((title, *context)))
        )
    return clauses


def _blank_between(body: str, end: int, start: int) -> bool:
    return end >= 0 and "\n\n" in body[end:start].replace("\r", "")
