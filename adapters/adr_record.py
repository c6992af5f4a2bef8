"""One ADR file's text read into its parts: title, number, status, date, deciders, chosen option, relations, body.

Pure functions over the text that was read (no file or git access), for every
layout found in public repositories:

- **Nygard / adr-tools**: ``# 3. Title`` (or ``# ADR 003: Title``), a ``Date:``
  line, a ``## Status`` section whose first line is the status and whose links
  are relations (``Superseded by [5. …](0005-….md)``);
- **MADR 2**: ``* Status: …`` / ``- Date: …`` / ``* Deciders: …`` bullets under
  the title (Log4brains writes the same);
- **MADR 3 and 4**: YAML front matter (``status``, ``date``, ``deciders`` or
  ``decision-makers``); the front matter's own lines open the body, so the
  status is readable and citable where a person reads the record;
- ``**Status:** Accepted`` and ``Status: Accepted`` lines, bold or not;
- MADR's ``Chosen option: "…", because …`` line, kept as ``chosen_option``.

Every repeated pattern here is a plain string operation or a possessive
pattern over one line, so a hostile file costs time linear in its length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from adapters.links import MARKDOWN_LINK
from adapters.source_files import SourceText

__all__ = ["INVERSE", "Link", "ParsedRecord", "parse_record"]

INVERSE = {
    "supersedes": "superseded-by",
    "superseded-by": "supersedes",
    "amends": "amended-by",
    "amended-by": "amends",
}
"""Relations mirrored on the record they name."""

_FIELD_KEYS = {
    "status": "status",
    "date": "date",
    "deciders": "deciders",
    "decision-makers": "deciders",
    "decision makers": "deciders",
}
_TITLE_NUMBER = re.compile(r"(?:adr[-\s]?+)?(\d++)\s*+[.:\u2013\u2014-]\s++", re.IGNORECASE)
_MAX_FRONT_LINES = 12
_PREAMBLE_LINES = 12


@dataclass(frozen=True, slots=True)
class Link:
    """A relation link in the status: its verb (``superseded-by``), the linked file's stem, the file line."""

    rel: str
    target: str
    line: int


@dataclass(frozen=True, slots=True)
class ParsedRecord:
    """What one ADR file says; ``status_text`` is the status as written (None: it states none)."""

    title: str | None
    title_number: int | None
    status_text: str | None
    status_line: int
    fields: dict[str, tuple[str, int]]
    links: list[Link] = field(default_factory=list)
    chosen_option: str | None = None
    body: str = ""
    layout: str = "nygard"


def parse_record(source: SourceText) -> ParsedRecord:
    """The parts of one ADR file (any of the layouts above)."""
    lines = source.body.split("\n")
    fields = _front_fields(source)
    title, number, title_index = _title(lines)
    status_text, status_line, links = _status_section(lines, source.body_line)
    head = lines[title_index + 1 : title_index + 1 + _PREAMBLE_LINES] if title_index >= 0 else lines[:_PREAMBLE_LINES]
    offset = title_index + 1 if title_index >= 0 else 0
    for key, value, index in _preamble(head):
        fields.setdefault(key, (value, source.body_line + offset + index))
    if status_text is None and "status" in fields:
        status_text, status_line = fields["status"]
        links += [Link(rel, target, status_line) for rel, target in relations(status_text)]
    body = "\n".join(lines[title_index + 1 :]).strip() if title_index >= 0 else source.body.strip()
    front = _front_lines(source)
    if front:
        body = "\n".join(front) + ("\n\n" + body if body else "")
    madr = source.record is not None or "decision outcome" in source.body.lower()
    return ParsedRecord(
        title=title,
        title_number=number,
        status_text=status_text,
        status_line=status_line,
        fields=fields,
        links=links,
        chosen_option=_chosen_option(lines),
        body=body,
        layout="madr" if madr else "nygard",
    )


def relations(text: str) -> list[tuple[str, str]]:
    """(rel, target stem) for each Markdown link to another record in ``text``."""
    out: list[tuple[str, str]] = []
    start = 0
    for match in MARKDOWN_LINK.finditer(text):
        verb = re.sub(r"[^a-z ]", "", text[start : match.start()].lower()).strip()
        start = match.end()
        target = match.group(2).split("#", 1)[0]
        if not target.lower().endswith((".md", ".markdown")) or "://" in target:
            continue
        rel = "-".join(verb.split()[-2:]) if verb else "related"
        rel = rel if rel in INVERSE else ("-".join(verb.split()) or "related")
        out.append((rel, PurePosixPath(target).stem))
    return out


def _front_fields(source: SourceText) -> dict[str, tuple[str, int]]:
    """MADR front matter fields as (text, line); lists (deciders) are joined with commas."""
    record = source.record
    if record is None:
        return {}
    out: dict[str, tuple[str, int]] = {}
    for key in record.fields():
        name = _FIELD_KEYS.get(key.lower())
        value = record.value(key) if name is not None and key in record else None
        if name is None or value is None or name in out:
            continue
        text = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        out[name] = (text, record.line_of(key))
    return out


def _front_lines(source: SourceText) -> list[str]:
    """The front matter's top-level ``key: value`` lines with a value, as written (``status: "proposed"``)."""
    if source.record is None:
        return []
    lines = source.text.split("\n")
    found: list[str] = []
    for line in lines[1:]:
        if line.strip() in ("---", "..."):
            break
        key, colon, value = line.partition(":")
        if colon and key and not key[0].isspace() and key[0] not in "-#" and value.strip() not in ("", "|", ">"):
            found.append(line.rstrip())
            if len(found) == _MAX_FRONT_LINES:
                break
    return found


def _title(lines: list[str]) -> tuple[str | None, int | None, int]:
    """(title, number, index of the title line) of the first ``# `` heading.

    ``# 3. Use Postgres ##`` reads as number 3, title ``Use Postgres``, and so do ``# ADR 003: Use Postgres``
    and ``# 0003 – Use Postgres``: closing ``#``s are dropped.
    """
    for index, line in enumerate(lines):
        text = line.strip()[1:].lstrip() if line.startswith("# ") else ""
        if not text:
            continue
        number = _TITLE_NUMBER.match(text)
        if number is not None and number.end() < len(text):
            text = text[number.end() :]
        else:
            number = None
        text = MARKDOWN_LINK.sub(r"\1", text).rstrip("#").rstrip() or text[:1]  # a link in a title reads as its text
        return text, int(number.group(1)) if number else None, index
    return None, None, -1


def field_line(text: str) -> tuple[str, str] | None:
    """``* Status: accepted``, ``- Date: 2020-11-03``, ``**Status:** ✅ Accepted`` → (field, value); else None."""
    key, colon, _ = text.replace("**", "").replace("__", "").strip().lstrip("*-+").strip().partition(":")
    name = _FIELD_KEYS.get(key.strip().lower()) if colon else None
    value = text.partition(":")[2].strip().lstrip("*_").strip()  # as written: emphasis inside the value stays
    if name is None or not value:
        return None
    return name, value


def _preamble(lines: list[str]) -> list[tuple[str, str, int]]:
    """Field lines (bullets, bold or plain ``Key: value``) before the first section."""
    found: list[tuple[str, str, int]] = []
    for index, line in enumerate(lines):
        if line.startswith("## "):
            break
        parsed = field_line(line)
        if parsed is not None:
            found.append((*parsed, index))
    return found


def _status_section(lines: list[str], first_line: int) -> tuple[str | None, int, list[Link]]:
    """The ``## Status`` section's first line, its file line, and the relation links it holds."""
    inside = False
    status: str | None = None
    line_no = 1
    links: list[Link] = []
    for index, line in enumerate(lines):
        text = line.strip()
        if text.startswith("## "):
            if inside:
                break
            inside = text[3:].strip().strip("#").strip().lower() == "status"
            continue
        if not inside or not text:
            continue
        if status is None:
            status, line_no = text, first_line + index
        links += [Link(rel, target, first_line + index) for rel, target in relations(text)]
    return status, line_no, links


def _chosen_option(lines: list[str]) -> str | None:
    """MADR's ``Chosen option: "X", because …`` (bold or not): ``X``; the first one in the file."""
    for line in lines:
        plain = line.replace("**", "").replace("__", "").strip().lstrip("*-+").strip()
        head, colon, rest = plain.partition(":")
        if not colon or head.strip().lower() != "chosen option":
            continue
        choice = rest.strip()
        quote = choice[:1]
        end = choice.find(quote, 1) if quote in ('"', "'") else -1
        if end > 0:
            return choice[1:end].strip() or None
        return choice.split(", because", 1)[0].rstrip(" .") or None
    return None
