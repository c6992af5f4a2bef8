"""The citation resolver: does the cited source exist, and does its cached text hold the quote?

Findings: the source record resolves in the citation's project (``ok``); a
quote is found verbatim in the cached full text (``ok``) or is not
(``failed``: the citation is refuted); no source record (``unresolved``); a
quote but no cached text to read (``unverifiable``); a cached text whose bytes
no longer hash to the record's sha256 (``stale``).

Verbatim means: after Unicode NFC normalisation and collapsing every run of
whitespace (line breaks included) to one space, the quote is a substring of
the text, case-sensitive, punctuation-sensitive. Reflowing a paragraph does
not break a quote; changing a word, its case or its punctuation does. The
text hash is only checked when a quote needs the text: a citation without a
quote relies on the bibliographic record alone.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from adapters.base import Node, Tether, TetherCheck
from adapters.paths import read_regular_bytes

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class SourceRecord:
    """What the resolver needs about one source: its cached text (absolute path) and recorded sha256."""

    project: str
    id: str
    text_path: Path | None = None
    sha256: str | None = None


@dataclass(frozen=True, slots=True)
class _Text:
    sha256: str
    normalised: str | None  # None when the bytes are not UTF-8


def normalise_quote(text: str) -> str:
    """The form quotes and texts are compared in: NFC, whitespace runs collapsed, ends stripped."""
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def source_records(nodes: Iterable[Node], workspace_root: Path) -> dict[tuple[str, str], SourceRecord]:
    """The catalog of ``(project, source id)`` -> record, built from the zettelkasten's source nodes."""
    catalog: dict[tuple[str, str], SourceRecord] = {}
    for node in nodes:
        if node.family != "zk" or node.type != "source":
            continue
        project, ident = str(node.meta.get("project")), str(node.meta.get("id"))
        text_file = node.meta.get("text_file")
        text_path = workspace_root / str(text_file) if text_file else None
        catalog[(project, ident)] = SourceRecord(project, ident, text_path, node.meta.get("sha256"))
    return catalog


class CitationResolver:
    """Checks :attr:`TetherKind.CITATION` tethers (``target`` = source id, ``project``, optional ``quote``)."""

    def __init__(self, sources: Mapping[tuple[str, str], SourceRecord]) -> None:
        self.sources = sources
        self._texts: dict[Path, _Text | None] = {}

    def check(self, tether: Tether) -> TetherCheck:
        project, ident = tether.project or "", tether.target
        name = f"zk:{project}:{ident}"
        record = self.sources.get((project, ident))
        if record is None:
            return TetherCheck(tether, "unresolved", f"source {name} has no record")
        if not tether.quote:
            return TetherCheck(tether, "ok", f"source {name} resolves")
        if record.text_path is None:
            return TetherCheck(tether, "unverifiable", f"source {name} has no cached text to check the quote")
        text = self._text(record.text_path)
        if text is None:
            return TetherCheck(tether, "unverifiable", f"cached text of {name} is missing")
        if record.sha256 is not None and text.sha256 != record.sha256.lower():
            detail = f"cached text of {name} hashes to {text.sha256[:12]}, record says {record.sha256[:12]}"
            return TetherCheck(tether, "stale", detail)
        if text.normalised is None:
            return TetherCheck(tether, "unverifiable", f"cached text of {name} is not UTF-8")
        if normalise_quote(tether.quote) in text.normalised:
            return TetherCheck(tether, "ok", f"quote found verbatim in the cached text of {name}")
        return TetherCheck(tether, "failed", f"quote not found verbatim in the cached text of {name}")

    def _text(self, path: Path) -> _Text | None:
        if path not in self._texts:
            try:
                data = read_regular_bytes(path)
            except OSError:
                self._texts[path] = None
                return None
            try:
                normalised: str | None = normalise_quote(data.decode("utf-8-sig"))
            except UnicodeDecodeError:
                normalised = None
            self._texts[path] = _Text(hashlib.sha256(data).hexdigest(), normalised)
        return self._texts[path]
