"""Architecture Decision Records read in place: each ADR file is a memory ``decision``.

Every layout found in public repositories is understood, and they may be
mixed in one folder (see :mod:`adapters.adr_record`): Nygard / adr-tools
(``## Status`` section), MADR 2 (``* Status:`` bullets, as Log4brains writes),
MADR 3 and 4 (YAML front matter), bold ``**Status:**`` lines. File names may be
numbered (``0005-use-postgres.md``), dated (``20201103-use-lunr-for-search.md``)
or ``adr-``prefixed (``adr-001.md``), see :mod:`adapters.adr_names`.

``doc/adr/0005-use-postgres.md`` becomes ``mem:adr:0005-use-postgres`` (the
source's ``name`` replaces ``adr``). The body is the file after its title,
headings kept, so every section is a headed unit; a MADR 3/4 record's front
matter lines open it, so its status is in the text. The status is read as a
phrase (:mod:`adapters.adr_status`): the record's own words are kept in
``meta.adr_status`` (``pending``, ``on hold``, ``partly superseded``), their
canonical state in ``meta.adr_state`` and the memory status in ``meta.status``.
A record that is not current (superseded, deprecated, rejected, reverted)
keeps its verified status and every answer citing it discloses the word
(:mod:`synapse_server.navigation.supersession`). Links in the status become
``supersedes``, ``superseded-by``, ``amends``, ``amended-by`` (or the link's own
verb) edges, each mirrored on its target. The file itself is the tether: a git
pin at the last commit that changed it, or a content hash while it has
uncommitted edits (see :mod:`adapters.file_tethers`).

Which files are records: in a folder named like an ADR folder (``adr``,
``decisions``, …) a numbered file or one that states a status; anywhere else
(the repository root, ``docs/``) only a file named ``adr-NNN…`` or a numbered
one that states a status. READMEs, indexes and templates never are. Every other
Markdown file of the folder is reported as skipped, with why.

Diagnostic codes: ``adr-status`` (warning: a status no known phrase matches),
``adr-title`` (warning: no ``#`` title; the file name stands in),
``dangling-ref`` (warning, field ``status``: a link names no ADR of the folder).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from adapters.adr_names import RecordName, adr_folder, not_a_record, record_name
from adapters.adr_record import INVERSE, Link, parse_record
from adapters.adr_status import read_status
from adapters.base import Diagnostic, Edge, Family, LoadResult, Node, Skipped
from adapters.file_tethers import FileTethers, provenance_of
from adapters.frontmatter import StoreFileError
from adapters.ids import BadAddress, make_address
from adapters.paths import display_path, under
from adapters.skips import drop
from adapters.source_files import SourceText, check_folder, read_source, walk_files

NOT_A_RECORD = "not a record (README, index or template)"
NO_STATUS = "not named as a record and states no status"


class AdrAdapter:
    """One folder of ADRs as ``mem:<name>:<file stem>`` decisions."""

    family: Family = "memory"

    def __init__(self, folder: Path, workspace_root: Path, repo_dir: Path | None, name: str = "adr") -> None:
        self.folder = under(workspace_root, folder)
        self.root = workspace_root
        self.repo_dir = repo_dir
        self.name = name
        self.by_convention = adr_folder(self.folder.name) and self.folder != self.root

    def load(self) -> LoadResult:
        problem = check_folder(self.folder, self.root, "ADR folder")
        if problem is not None:
            return LoadResult((), (problem,))
        files, diagnostics = walk_files(self.folder, (".md", ".markdown"), self.root, recursive=False)
        skipped = [Skipped(d.path, "a link out of the workspace") for d in diagnostics if d.code == "path-escape"]
        tethers = FileTethers(self.root, self.repo_dir)
        tethers.prepare(display_path(path, self.root) for path in files)
        nodes: dict[str, Node] = {}
        links: dict[str, list[Link]] = {}
        for path in files:
            try:
                source = read_source(path, self.root)
            except StoreFileError as exc:
                drop(exc.diagnostic, diagnostics, skipped)
                continue
            parsed = self._node(source, path.stem, tethers, diagnostics, skipped)
            if parsed is not None:
                nodes[parsed[0].address], links[parsed[0].address] = parsed
        records = _linked(nodes, links, self.name, diagnostics)
        return LoadResult(records, tuple(diagnostics), files_read=len(records), skipped=tuple(skipped))

    def _node(
        self,
        source: SourceText,
        stem: str,
        tethers: FileTethers,
        diagnostics: list[Diagnostic],
        skipped: list[Skipped],
    ) -> tuple[Node, list[Link]] | None:
        record = parse_record(source)
        named = record_name(stem)
        if not_a_record(stem):
            skipped.append(Skipped(source.path, NOT_A_RECORD))
            return None
        if not self._is_record(named, record.status_text):
            skipped.append(Skipped(source.path, NO_STATUS))
            return None
        try:
            address = make_address("mem", self.name, stem)
        except BadAddress as exc:
            drop(
                Diagnostic(source.path, 1, "bad-id", f"ADR file name {stem!r}: {exc}", "warning"), diagnostics, skipped
            )
            return None
        if record.title is None:
            diagnostics.append(
                Diagnostic(source.path, 1, "adr-title", "no '# Title' line; the file name stands in", "warning")
            )
        status = read_status(record.status_text)
        if status is not None and status.state is None:
            message = (
                f"status {status.word!r} is not a status phrase Synapse knows (see docs/sources.md); left unmapped"
            )
            diagnostics.append(Diagnostic(source.path, record.status_line, "adr-status", message, "warning", "status"))
        tether = tethers.tether(source.path, source.data)
        number = named.number if named is not None and named.number is not None else record.title_number
        created = record.fields["date"][0] if "date" in record.fields else (named.date if named else None)
        meta: dict[str, Any] = {
            "id": stem,
            "kind": "decision",
            "status": status.memory if status else None,
            "adr_status": status.word if status else None,
            "adr_state": status.state if status else None,
            "adr_status_text": record.status_text[:500] if record.status_text else None,
            "adr_number": number,
            "layout": record.layout,
            "created": created,
            "deciders": record.fields["deciders"][0] if "deciders" in record.fields else None,
            "chosen_option": record.chosen_option,
            "tags": (),
            "pins": (f"{tether.target}@{tether.ref}",) if tether.kind == "git-pin" else (),
            "source_kind": "adr",
        }
        node = Node(
            address=address,
            type="decision",
            title=record.title or stem,
            body=record.body,
            family="memory",
            provenance=(provenance_of(tether),),
            tethers=(tether,),
            meta=meta,
            path=source.path,
            line=1,
        )
        return node, record.links

    def _is_record(self, named: RecordName | None, status_text: str | None) -> bool:
        """A record by its name or by its status (see the module doc for where each counts)."""
        style = named.style if named is not None else None
        if style == "adr-prefixed" or (self.by_convention and style is not None):
            return True
        return status_text is not None and (self.by_convention or style is not None)


def _linked(
    nodes: dict[str, Node], links: dict[str, list[Link]], name: str, diagnostics: list[Diagnostic]
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
            if link.rel in INVERSE:
                edges[dst].append(Edge(dst, src, INVERSE[link.rel]))
    out = [replace(node, edges=tuple(dict.fromkeys(edges[address]))) for address, node in nodes.items()]
    return tuple(sorted(out, key=lambda node: node.address))
