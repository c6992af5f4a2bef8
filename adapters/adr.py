"""Architecture Decision Records read in place: each ADR file is a memory ``decision``.

Two layouts are understood, and may be mixed in one folder:

- **Nygard / adr-tools**: ``# 1. Title``, a ``Date:`` line, then ``## Status``
  (``Accepted``, ``Superseded by [3. …](0003-….md)``, ``Amends [2. …](…)``),
  ``## Context``, ``## Decision``, ``## Consequences``.
- **MADR**: optional YAML front matter (``status``, ``date``, ``deciders``) or
  the older ``* Status:`` / ``* Date:`` / ``* Deciders:`` bullets, ``# Title``,
  ``## Context and Problem Statement``, ``## Decision Outcome``, ….

``doc/adr/0005-use-postgres.md`` becomes ``mem:adr:0005-use-postgres`` (the
source's ``name`` replaces ``adr``). The body is the file after its title,
headings kept, so every section is a headed unit. Status maps onto the
memory vocabulary (accepted, proposed, partly superseded → active; superseded,
deprecated → superseded; rejected, reverted → abandoned) with the ADR's own word
kept in ``meta.adr_status``: a record that is not current keeps its verified
status and every answer citing it discloses the word
(:mod:`synapse_server.navigation.supersession`). Links in the status section become ``supersedes``,
``superseded-by``, ``amends``, ``amended-by`` (or the link's own verb) edges,
and each is mirrored on its target. The file itself is the tether: a git pin
at the last commit that changed it, or a content hash while it has uncommitted
edits (see :mod:`adapters.file_tethers`).

Diagnostic codes: ``adr-status`` (warning: a status the mapping does not
know), ``adr-title`` (warning: no ``#`` title; the file name stands in),
``dangling-ref`` (warning, field ``status``: a link names no ADR of the folder).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from adapters.base import Diagnostic, Edge, Family, LoadResult, Node
from adapters.file_tethers import FileTethers, provenance_of
from adapters.frontmatter import StoreFileError
from adapters.ids import BadAddress, make_address
from adapters.links import MARKDOWN_LINK
from adapters.paths import display_path, under
from adapters.source_files import SourceText, check_folder, read_source, walk_files

STATUS_MAP: dict[str, str] = {
    "accepted": "active",
    "proposed": "active",
    "superseded": "superseded",
    "deprecated": "superseded",
    "rejected": "abandoned",
    "reverted": "abandoned",
    "partly superseded": "active",  # still partly in force; the supersession disclosure says which record replaces it
}
_INVERSE = {
    "supersedes": "superseded-by",
    "superseded-by": "supersedes",
    "amends": "amended-by",
    "amended-by": "amends",
}
_NUMBERED = re.compile(r"(\d++)[-_].+")
_TITLE_NUMBER = re.compile(r"(\d++)\.\s++")
_BULLET = re.compile(r"[*-]\s+(status|date|deciders)\s*:\s*(.*)", re.IGNORECASE)
_DATE_LINE = re.compile(r"date\s*:\s*(.+)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Link:
    rel: str
    target: str  # the linked file's stem
    line: int


class AdrAdapter:
    """One folder of ADRs as ``mem:<name>:<file stem>`` decisions."""

    family: Family = "memory"

    def __init__(self, folder: Path, workspace_root: Path, repo_dir: Path | None, name: str = "adr") -> None:
        self.folder = under(workspace_root, folder)
        self.root = workspace_root
        self.repo_dir = repo_dir
        self.name = name

    def load(self) -> LoadResult:
        problem = check_folder(self.folder, self.root, "ADR folder")
        if problem is not None:
            return LoadResult((), (problem,))
        files, diagnostics = walk_files(self.folder, (".md", ".markdown"), self.root, recursive=False)
        tethers = FileTethers(self.root, self.repo_dir)
        tethers.prepare(display_path(path, self.root) for path in files)
        nodes: dict[str, Node] = {}
        links: dict[str, list[_Link]] = {}
        for path in files:
            try:
                source = read_source(path, self.root)
            except StoreFileError as exc:
                diagnostics.append(exc.diagnostic)
                continue
            parsed = self._node(source, path.stem, tethers, diagnostics)
            if parsed is not None:
                nodes[parsed[0].address], links[parsed[0].address] = parsed
        return LoadResult(_linked(nodes, links, self.name, diagnostics), tuple(diagnostics))

    def _node(
        self, source: SourceText, stem: str, tethers: FileTethers, diagnostics: list[Diagnostic]
    ) -> tuple[Node, list[_Link]] | None:
        lines = source.body.split("\n")
        fields = _front_fields(source)
        title, number, title_index = _title(lines)
        status_text, status_line, links = _status_section(lines, source.body_line)
        for key, value, line in _preamble(lines[: title_index + 8] if title_index >= 0 else lines[:12]):
            fields.setdefault(key, (value, source.body_line + line))
        if status_text is None and "status" in fields:
            status_text, status_line = fields["status"]
            links += [_Link(rel, target, status_line) for rel, target in _relations(status_text)]
        if (not _NUMBERED.fullmatch(stem) and status_text is None) or _not_a_record(stem):
            return None  # a README, an index or a template sitting beside the records
        try:
            address = make_address("mem", self.name, stem)
        except BadAddress as exc:
            diagnostics.append(Diagnostic(source.path, 1, "bad-id", f"ADR file name {stem!r}: {exc}", "warning"))
            return None
        if title is None:
            diagnostics.append(
                Diagnostic(source.path, 1, "adr-title", "no '# Title' line; the file name stands in", "warning")
            )
        word = _status_word(status_text)
        status = STATUS_MAP.get(word or "")
        if word is not None and status is None:
            message = f"status {word!r} is not one of {', '.join(sorted(STATUS_MAP))}; left unmapped"
            diagnostics.append(Diagnostic(source.path, status_line, "adr-status", message, "warning", "status"))
        body = "\n".join(lines[title_index + 1 :]).strip() if title_index >= 0 else source.body
        tether = tethers.tether(source.path, source.data)
        number_match = _NUMBERED.fullmatch(stem)
        meta: dict[str, Any] = {
            "id": stem,
            "kind": "decision",
            "status": status,
            "adr_status": word,
            "adr_number": int(number) if number else (int(number_match.group(1)) if number_match else None),
            "layout": "madr" if source.record is not None or "decision outcome" in source.body.lower() else "nygard",
            "created": fields["date"][0] if "date" in fields else None,
            "deciders": fields["deciders"][0] if "deciders" in fields else None,
            "tags": (),
            "pins": (f"{tether.target}@{tether.ref}",) if tether.kind == "git-pin" else (),
            "source_kind": "adr",
        }
        node = Node(
            address=address,
            type="decision",
            title=title or stem,
            body=body,
            family="memory",
            provenance=(provenance_of(tether),),
            tethers=(tether,),
            meta=meta,
            path=source.path,
            line=1,
        )
        return node, links


def _not_a_record(stem: str) -> bool:
    name = stem.lower()
    return name in ("readme", "index", "toc", "contents") or "template" in name


def _front_fields(source: SourceText) -> dict[str, tuple[str, int]]:
    """MADR front matter fields as (text, line); lists (deciders) are joined with commas."""
    record = source.record
    if record is None:
        return {}
    out: dict[str, tuple[str, int]] = {}
    for key in ("status", "date", "deciders"):
        value = record.value(key) if key in record.fields() else None
        if value is None:
            continue
        text = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        out[key] = (text, record.line_of(key))
    return out


def _title(lines: list[str]) -> tuple[str | None, str | None, int]:
    """(title, adr-tools number, index of the title line) of the first ``# `` heading.

    ``# 3. Use Postgres ##`` reads as number ``3``, title ``Use Postgres``: closing ``#``s are dropped. Plain
    string operations, not one pattern with lazy and optional parts, so a long title line costs its length.
    """
    for index, line in enumerate(lines):
        text = line.strip()[1:].lstrip() if line.startswith("# ") else ""
        if not text:
            continue
        number = _TITLE_NUMBER.match(text)
        if number is not None:
            text = text[number.end() :]
        return text.rstrip("#").rstrip() or text[:1], number.group(1) if number else None, index
    return None, None, -1


def _preamble(lines: list[str]) -> list[tuple[str, str, int]]:
    """``Date:`` lines (adr-tools) and ``* Status:`` bullets (older MADR) before the first section."""
    found: list[tuple[str, str, int]] = []
    for index, line in enumerate(lines):
        text = line.strip()
        if text.startswith("## "):
            break
        bullet = _BULLET.fullmatch(text)
        if bullet:
            found.append((bullet.group(1).lower(), bullet.group(2).strip(), index))
            continue
        date = _DATE_LINE.fullmatch(text)
        if date:
            found.append(("date", date.group(1).strip(), index))
    return found


def _status_section(lines: list[str], first_line: int) -> tuple[str | None, int, list[_Link]]:
    """The ``## Status`` section's first line, its file line, and the relation links it holds."""
    inside = False
    status: str | None = None
    line_no = 1
    links: list[_Link] = []
    for index, line in enumerate(lines):
        text = line.strip()
        if text.startswith("## "):
            if inside:
                break
            inside = text[3:].strip().lower() == "status"
            continue
        if not inside or not text:
            continue
        if status is None:
            status, line_no = text, first_line + index
        links += [_Link(rel, target, first_line + index) for rel, target in _relations(text)]
    return status, line_no, links


def _relations(text: str) -> list[tuple[str, str]]:
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
        rel = rel if rel in _INVERSE else ("-".join(verb.split()) or "related")
        out.append((rel, PurePosixPath(target).stem))
    return out


def _status_word(text: str | None) -> str | None:
    if not text:
        return None
    word = re.sub(r"[^a-z]", " ", MARKDOWN_LINK.sub(" ", text.lower())).split()
    if word[:2] == ["partly", "superseded"] or word[:2] == ["partially", "superseded"]:
        return "partly superseded"
    return word[0] if word else None


def _linked(
    nodes: dict[str, Node], links: dict[str, list[_Link]], name: str, diagnostics: list[Diagnostic]
) -> tuple[Node, ...]:
    """Attach relation edges (and their mirrors on the targets); a link to no record is a warning."""
    edges: dict[str, list[Edge]] = {address: [] for address in nodes}
    for src, found in links.items():
        for link in found:
            try:
                dst = make_address("mem", name, link.target)
            except BadAddress:
                dst = ""
            if dst not in nodes:
                message = f"{link.rel} link to {link.target!r} names no ADR in this folder"
                diagnostics.append(
                    Diagnostic(nodes[src].path or "", link.line, "dangling-ref", message, "warning", "status")
                )
                continue
            edges[src].append(Edge(src, dst, link.rel))
            if link.rel in _INVERSE:
                edges[dst].append(Edge(dst, src, _INVERSE[link.rel]))
    out = [replace(node, edges=tuple(dict.fromkeys(edges[address]))) for address, node in nodes.items()]
    return tuple(sorted(out, key=lambda node: node.address))
