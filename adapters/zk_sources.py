"""Zettelkasten source records: ``sources/<source-id>.yaml`` as ``zk:<project>:<source-id>`` nodes.

A source is the bibliographic record a note's citation names, plus (optionally)
a cached full text and its sha256 so a quoted passage can be checked verbatim.
Sources share the address space of their project's notes: ``zk:research:paper-17``
reads naturally next to ``zk:research:20260706-1832-claim``. Because of that a
source id that repeats a note id is refused as ``duplicate-id`` (the note is
kept), so the two never collide silently.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from adapters.base import Diagnostic, Node, Tether, TetherKind
from adapters.frontmatter import Record, StoreFileError, parse_yaml_record, read_text
from adapters.ids import BadAddress, check_id, make_address
from adapters.paths import PathEscape, check_relative, display_path, resolve_inside

_SHA256 = re.compile(r"[0-9a-f]{64}")


def read_source(path: Path, project: str, containment: Path, workspace_root: Path) -> tuple[Node, list[Diagnostic]]:
    """One source record file as a node plus its warnings; raises :class:`StoreFileError` when unusable.

    ``meta["text_file"]`` is the workspace-relative path of the cached text,
    already checked to stay inside ``containment``; the citation resolver reads
    it from there.
    """
    shown = display_path(path, workspace_root)
    try:
        resolve_inside(containment, path)
    except PathEscape as exc:
        raise StoreFileError(Diagnostic(shown, 1, "path-escape", exc.reason)) from None
    rec = parse_yaml_record(read_text(path, shown), shown)
    ident = rec.text("id", required=True) or ""
    try:
        address = make_address("zk", project, check_id(ident))
    except BadAddress as exc:
        raise rec.error("id", "bad-id", f"source id {ident!r} cannot be an address segment: {exc}") from None
    if ident != path.stem:
        rec.warn("id", "id-mismatch", f"source id {ident!r} differs from the file name {path.name!r}")
    title = rec.text("title")
    if title is None:
        rec.warn("title", "missing-field", "no title; the id stands in for it")
    year = rec.text("year")
    url = rec.text("url")
    authors = _authors(rec)
    sha = rec.text("sha256")
    if sha is not None and not _SHA256.fullmatch(sha.lower()):
        raise rec.error("sha256", "bad-field", "sha256 is not 64 hex digits")
    text, text_path = _cached_text(rec, path.parent, containment)
    lines = [f"# {title or ident}", ""]
    if authors:
        lines.append(f"- authors: {', '.join(authors)}")
    if year:
        lines.append(f"- year: {year}")
    if url:
        lines.append(f"- url: {url}")
    provenance = [f"source:{ident}"] + ([f"url:{url}"] if url else [])
    node = Node(
        address=address,
        type="source",
        title=title or ident,
        body="\n".join(lines).rstrip(),
        family="zk",
        provenance=tuple(provenance),
        tethers=(Tether(TetherKind.CITATION, ident, project=project),),
        meta={
            "id": ident,
            "project": project,
            "year": year,
            "authors": authors,
            "url": url,
            "text": text,
            "text_file": display_path(text_path, workspace_root) if text_path is not None else None,
            "sha256": sha.lower() if sha else None,
        },
        path=shown,
        line=1,
    )
    return node, rec.warnings


def _authors(rec: Record) -> tuple[str, ...]:
    node = rec.raw("authors")
    if isinstance(node, yaml.ScalarNode):
        single = rec.text("authors")
        return (single,) if single else ()
    return rec.texts("authors")


def _cached_text(rec: Record, sources_dir: Path, containment: Path) -> tuple[str | None, Path | None]:
    """The ``text:`` path, relative to ``sources/`` and refused if it leaves the store."""
    text = rec.text("text")
    if text is None:
        return None, None
    try:
        relative = check_relative(text)
        resolved = resolve_inside(containment, sources_dir / relative)
    except (ValueError, PathEscape) as exc:
        raise rec.error("text", "bad-field", f"cached text path: {exc}") from None
    if not resolved.is_file():
        rec.warn("text", "dangling-ref", f"cached text {text!r} does not exist; quotes will be unverifiable")
    return relative, sources_dir / relative
