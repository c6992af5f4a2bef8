"""A markdown folder or an Obsidian vault read in place as one zettelkasten project.

``vault/Event sourcing.md`` becomes ``zk:<project>:event-sourcing`` (the id is
the file name made into an address segment, in Unicode's composed form: a
name written on macOS as ``So`` + combining diaeresis reads ``sönke``; a second
file with the same name in another folder keeps its folder:
``zk:<project>:drafts/event-sourcing``). Front matter is optional; ``title``,
``type``, ``tags``, ``aliases`` and ``claim_strength`` are read when present,
else the first ``#`` heading is the title and the type is ``note``. Every
property, those five included, is also a ``- key: value`` line of a
``## Properties`` section after the text (:mod:`adapters.note_properties`), so
a note that is only properties still says something a reader can cite.
``[[wikilinks]]`` — with ``|alias`` and ``#heading``, in the text or in a
property value — and relative Markdown links to other notes become
``links-to`` edges (``![[embeds]]`` of notes become ``embeds``); ``#tags`` in
the text or front matter become ``tagged`` edges to one ``tag/<name>`` node
per tag, which lists its notes. Tethers: a git pin when the file is committed
unchanged, a content hash otherwise.

Diagnostic codes: ``dangling-ref`` (warning, field ``wikilinks`` or the
property's name: a link names no note of the vault), ``duplicate-id``
(warning: two files slug to the same name and folder). A file that cannot be
read (binary, not UTF-8, too large, broken front matter) keeps its error and
is listed in ``skipped`` with the reason.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote

from adapters.base import Diagnostic, Edge, Family, LoadResult, Node, Skipped
from adapters.file_tethers import FileTethers, provenance_of
from adapters.frontmatter import Record, StoreFileError
from adapters.ids import BadAddress, encode_id, make_address
from adapters.links import MARKDOWN_LINK, WIKILINK, LineNumbers
from adapters.note_properties import properties_section, read_properties
from adapters.paths import display_path, under
from adapters.skips import drop, skipped_for
from adapters.source_files import SourceText, check_folder, read_source, walk_files

NOTE_TYPES = frozenset({"claim", "finding", "method", "quote", "concept", "question", "synthesis"})
_TAG = re.compile(r"(?<![\w&/#\[])#([A-Za-z_][\w/-]*)")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"`[^`\n]*`")


@dataclass(frozen=True, slots=True)
class _Link:
    rel: str
    target: str
    line: int
    field: str  # ``wikilinks`` for a link in the text, else the property holding it


@dataclass(frozen=True, slots=True)
class _Note:
    node: Node
    links: tuple[_Link, ...]
    tags: tuple[str, ...]
    aliases: tuple[str, ...]


def slug(text: str) -> str:
    """A file name or tag as an address segment: composed Unicode, separators become ``-``, lower case.

    What an address still cannot hold (``%``, quotes, parentheses) is percent-encoded by
    :func:`adapters.ids.encode_id`, the one escaping function.
    """
    plain = re.sub(r"[\s:{},]+", "-", unicodedata.normalize("NFC", text).strip()).strip("-").lower()
    return encode_id(plain)


def link_key(name: str) -> str:
    """How a link target is matched to a note name: composed Unicode, case-insensitive, as Obsidian does."""
    return unicodedata.normalize("NFC", name).strip().casefold()


class NotesAdapter:
    """Every ``.md`` file under ``folder`` (hidden folders and ``skip`` folders aside) as ``zk:<project>:…``."""

    family: Family = "zk"

    def __init__(
        self,
        folder: Path,
        workspace_root: Path,
        repo_dir: Path | None,
        project: str,
        code_name: str | None = None,
        skip: tuple[Path, ...] = (),
    ) -> None:
        self.folder = under(workspace_root, folder)
        self.root = workspace_root
        self.repo_dir = repo_dir
        self.project = project
        self.code_name = code_name
        self.skip = tuple(display_path(under(workspace_root, p), workspace_root).rstrip("/") + "/" for p in skip)

    def load(self) -> LoadResult:
        problem = check_folder(self.folder, self.root, "notes folder")
        if problem is not None:
            return LoadResult((), (problem,), 0)
        files, diagnostics = walk_files(self.folder, (".md", ".markdown"), self.root, recursive=True)
        skipped = [skipped_for(d) for d in diagnostics]
        files = [f for f in files if not display_path(f, self.root).startswith(self.skip)]
        tethers = FileTethers(self.root, self.repo_dir)
        tethers.prepare(display_path(path, self.root) for path in files)
        notes: dict[str, _Note] = {}
        for path in files:
            try:
                source = read_source(path, self.root)
            except StoreFileError as exc:
                drop(exc.diagnostic, diagnostics, skipped)
                continue
            if source.record is not None:
                diagnostics.extend(source.record.warnings)
            note = self._note(source, path, tethers, notes, diagnostics, skipped)
            if note is not None:
                notes[note.node.address] = note
        nodes = self._linked(notes, diagnostics)
        return LoadResult(nodes, tuple(diagnostics), len(notes), tuple(skipped))

    def _note(
        self,
        source: SourceText,
        path: Path,
        tethers: FileTethers,
        seen: dict[str, _Note],
        diags: list[Diagnostic],
        skipped: list[Skipped],
    ) -> _Note | None:
        rel = path.relative_to(self.folder).with_suffix("").as_posix()
        try:
            address = make_address("zk", self.project, slug(path.stem))
            if address in seen:
                address = make_address("zk", self.project, slug(rel))
        except BadAddress as exc:
            drop(Diagnostic(source.path, 1, "bad-id", f"note name {path.stem!r}: {exc}", "warning"), diags, skipped)
            return None
        if address in seen:
            message = f"note {rel!r} has the same id as {seen[address].node.path}; skipped"
            drop(Diagnostic(source.path, 1, "duplicate-id", message, "warning"), diags, skipped)
            return None
        rec = source.record
        kind = _text(rec, "type")
        title = _text(rec, "title") or _heading(source.body) or unicodedata.normalize("NFC", path.stem)
        # code is not prose: no tags or links inside it; blanking keeps every line number in place
        prose = _CODE_SPAN.sub(" ", _FENCE.sub(lambda m: "\n" * m.group().count("\n"), source.body))
        tags = tuple(dict.fromkeys([*_texts(rec, "tags"), *(m.group(1) for m in _TAG.finditer(prose))]))
        tags = tuple(t.lstrip("#") for t in tags if t.lstrip("#"))
        aliases = _texts(rec, "aliases") + _texts(rec, "alias")
        links: list[_Link] = []
        lines = LineNumbers(prose, source.body_line)
        for match in WIKILINK.finditer(prose):
            rel_name = "embeds" if match.group(1) else "links-to"
            target = match.group(2).strip() or path.stem
            links.append(_Link(rel_name, target, lines.line(match.start()), "wikilinks"))
        for match in MARKDOWN_LINK.finditer(prose):
            file = match.group(2).partition("#")[0]
            if not file.endswith(".md") or prose[match.start() - 1 : match.start()] == "!":
                continue  # a link to a web page or an attachment, or an image
            target = posixpath.normpath(posixpath.join(posixpath.dirname(source.path), unquote(file)))
            links.append(_Link("links-to", "/" + target, lines.line(match.start()), "wikilinks"))
        props = read_properties(rec) if rec is not None else ()
        for prop in props:
            links.extend(_Link(link.rel, link.target, prop.line, prop.key) for link in prop.links)
        section = properties_section(props)
        body = f"{source.body}\n\n{section}" if source.body and section else source.body or section
        tether = tethers.tether(source.path, source.data)
        strength = _text(rec, "claim_strength")
        meta: dict[str, Any] = {
            "id": address.split(":", 2)[2],
            "project": self.project,
            "type": kind if kind in NOTE_TYPES else "note",
            "claim_strength": strength if strength in ("strong", "moderate", "weak") else None,
            "cross": False,
            "files": (),
            "tags": tags,
            "aliases": aliases,
            "properties": {prop.key: prop.text for prop in props},
            "contested": False,
            "body_line": source.body_line,
            "source_kind": "notes",
        }
        node = Node(
            address=address,
            type=meta["type"],
            title=title,
            body=body,
            family="zk",
            provenance=(provenance_of(tether),),
            tethers=(tether,),
            meta=meta,
            path=source.path,
            line=1,
        )
        return _Note(node, tuple(links), tags, aliases)

    def _linked(self, notes: dict[str, _Note], diags: list[Diagnostic]) -> tuple[Node, ...]:
        """Resolve links by file name, folder path or alias (case-insensitive, as Obsidian does); add tag nodes.

        A Markdown link's relative path that names no note falls back to its file name, as Obsidian's
        "shortest path" links do.
        """
        by_name: dict[str, str] = {}
        for address, note in notes.items():
            path = PurePosixPath(note.node.path or "")
            for key in (path.stem, *note.aliases):
                by_name.setdefault(link_key(key), address)
            by_name.setdefault(link_key("/" + path.as_posix()), address)
            inner = (self.root / path).relative_to(self.folder).with_suffix("").as_posix()
            by_name.setdefault(link_key(inner), address)
        tagged: dict[str, list[str]] = {}
        out: dict[str, Node] = {}
        for address, note in notes.items():
            edges: list[Edge] = []
            for link in note.links:
                dst = _resolve(by_name, link.target)
                if dst is None:
                    if not PurePosixPath(link.target).suffix or link.target.lower().endswith(".md"):
                        where = "" if link.field == "wikilinks" else f" in property {link.field!r}"
                        message = f"link [[{link.target.lstrip('/')}]]{where} names no note in this vault"
                        diags.append(
                            Diagnostic(note.node.path or "", link.line, "dangling-ref", message, "warning", link.field)
                        )
                    continue  # an embedded image or attachment is not a note
                if dst != address:
                    edges.append(Edge(address, dst, link.rel))
            for tag in note.tags:
                tag_address = self._tag_address(tag)
                if tag_address is not None:
                    edges.append(Edge(address, tag_address, "tagged"))
                    tagged.setdefault(tag_address, []).append(address)
            out[address] = replace(note.node, edges=tuple(dict.fromkeys(edges)))
        for tag_address, members in tagged.items():
            name = tag_address.split(":", 2)[2].removeprefix("tag/")
            titles = ", ".join(out[m].title for m in members)
            out[tag_address] = Node(
                address=tag_address,
                type="tag",
                title=f"#{name}",
                body=f"Notes tagged #{name}: {titles}.",
                family="zk",
                edges=tuple(Edge(tag_address, m, "tags") for m in members),
                meta={"id": tag_address.split(":", 2)[2], "project": self.project, "type": "tag", "tags": (name,)},
            )
        return tuple(out[key] for key in sorted(out))

    def _tag_address(self, tag: str) -> str | None:
        try:
            return make_address("zk", self.project, "tag/" + slug(tag))
        except BadAddress:
            return None


def _resolve(by_name: dict[str, str], target: str) -> str | None:
    """The note a link names: as written, without ``.md``, else (a Markdown link's path) by its file name."""
    key = link_key(target)
    found = by_name.get(key) or by_name.get(key.removesuffix(".md"))
    if found is None and target.startswith("/"):
        found = by_name.get(link_key(PurePosixPath(target).name).removesuffix(".md"))
    return found


def _text(rec: Record | None, key: str) -> str | None:
    if rec is None or key not in rec.fields():
        return None
    value = rec.value(key)
    return str(value) if isinstance(value, str | int | float) else None


def _texts(rec: Record | None, key: str) -> tuple[str, ...]:
    """A list field or a single (comma- or space-separated) string, as Obsidian accepts both."""
    if rec is None or key not in rec.fields():
        return ()
    value = rec.value(key)
    if isinstance(value, list):
        return tuple(str(v) for v in value if v is not None)
    if isinstance(value, str):
        return tuple(part for part in re.split(r"[,\s]+", value) if part)
    return ()


def _heading(body: str) -> str | None:
    """The first ``# `` heading, unless a lower heading comes first: then it names a section, not the note."""
    for line in body.split("\n"):
        if line.startswith("# "):
            return line[2:].strip() or None
        if line.startswith("##"):
            return None
    return None
