"""How ADR files and folders are named in the wild: the rules detection and the adapter share.

Kept apart from :mod:`adapters.adr` (which loads GitPython) so ``adopt``'s
detection can ask them cheaply. Names seen in public repositories:

- ``0005-use-postgres.md`` (adr-tools, MADR): a sequence number;
- ``20201103-use-lunr-for-search.md`` (Log4brains) or ``2024-03-01-x.md``:
  a date, which is not a number of the record;
- ``adr-001.md``, ``ADR-007-use-fastapi.md``: the ADR number after an ``adr``
  prefix, often at the repository root or in a general docs folder.

A folder named like an ADR folder (``adr``, ``adrs``, ``decisions``, …) is
given the benefit of the doubt: a file there is a record when its name is
numbered or it states a status. Anywhere else (the repository root, ``docs/``)
only a file whose name says it is an ADR (``adr-NNN…``) is one, so a
``ROADMAP.md`` with a status line is never read as a decision.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

__all__ = ["ADR_FOLDER_NAMES", "RecordName", "adr_folder", "not_a_record", "record_name"]

ADR_FOLDER_NAMES = frozenset(
    {
        "adr",
        "adrs",
        "decisions",
        "decision-records",
        "decision_records",
        "architecture-decisions",
        "architecture-decision-records",
        "architectural-decisions",
    }
)
"""Folder names (lower case) that hold decision records by convention."""

_DATE = re.compile(r"(\d{4})-?(\d{2})-?(\d{2})[-_].")
_NUMBER = re.compile(r"(\d++)[-_].")
_ADR_PREFIX = re.compile(r"adr[-_ ]?+(\d++)(?:[-_ ].*)?", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True, slots=True)
class RecordName:
    """What a file name says: the record's number, or the date it was written (ISO), and the naming style."""

    style: str  # "numbered" | "dated" | "adr-prefixed"
    number: int | None = None
    date: str | None = None


def record_name(stem: str) -> RecordName | None:
    """What ``stem`` (a file name without ``.md``) says about a record; None for a name no ADR tool writes."""
    prefixed = _ADR_PREFIX.fullmatch(stem)
    if prefixed is not None:
        return RecordName("adr-prefixed", int(prefixed.group(1)))
    dated = _DATE.match(stem)
    if dated is not None:
        day = _iso_date(*dated.groups())
        if day is not None:
            return RecordName("dated", date=day)
    numbered = _NUMBER.match(stem)
    if numbered is not None:
        return RecordName("numbered", int(numbered.group(1)))
    return None


def adr_folder(name: str) -> bool:
    """Whether a folder called ``name`` holds decision records by convention."""
    return name.lower() in ADR_FOLDER_NAMES


def not_a_record(stem: str) -> bool:
    """A README, an index, a table of contents or a template that sits beside the records."""
    name = stem.lower()
    return name in ("readme", "index", "toc", "contents", "summary") or "template" in name


def _iso_date(year: str, month: str, day: str) -> str | None:
    if not year.startswith(("19", "20")):
        return None
    try:
        return dt.date(int(year), int(month), int(day)).isoformat()
    except ValueError:
        return None
