"""The zettelkasten (canon): notes and sources of local and federated projects as ``zk:`` nodes.

``.zettelkasten/<project>/notes/<id>.md`` becomes ``zk:<project>:<id>``; a
federated root declared as ``{lab: ../lab/.zettelkasten}`` contributes
``zk:lab.<project>:<id>`` (the alias rides in the source segment, so local
project names contain no dot). Citations become citation tethers (the grounded
channel), links and ``files`` become typed edges, and the project's debate map
marks the claims it lists ``contested``.

Scope: ``projects=None`` loads every local project and every project of every
declared federated root; a list loads exactly those names (``research``,
``lab.research``). Files of a local project must stay inside the workspace;
files of a federated project must stay inside their federated root.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Any

from adapters.base import Diagnostic, Edge, Family, LoadResult, Node, Skipped, Tether, TetherKind
from adapters.file_memo import FileMemo
from adapters.frontmatter import Record, StoreFileError, capped_body, parse_front_matter, read_text
from adapters.ids import BadAddress, check_address, check_id, make_address, path_address
from adapters.paths import (
    PathEscape,
    check_relative,
    display_path,
    list_store_dirs,
    list_store_files,
    resolve_inside,
    under,
)
from adapters.skips import drop, skipped_for
from adapters.store_patch import FolderRead, each_parse, keys_of, rereads
from adapters.zk_debate import ContestedClaim, DebateMap, load_debate
from adapters.zk_sources import read_source

NOTE_TYPES = frozenset({"claim", "finding", "method", "quote", "concept", "question", "synthesis"})
LINK_RELS = frozenset({"supports", "contradicts", "refines", "related"})
CLAIM_STRENGTHS = frozenset({"strong", "moderate", "weak"})
_KNOWN_FIELDS = frozenset({"id", "type", "title", "claim_strength", "cross", "citations", "links", "files", "tags"})
_FOLDER_REFUSED = frozenset({"bad-id", "path-escape"})
"""Codes :meth:`ZettelkastenAdapter.project_dirs` gives a project folder (or root) it leaves out whole."""


@dataclass(frozen=True, slots=True)
class ZkProject:
    """One project to load: its address key, its directory and the root its files must stay in."""

    key: str
    directory: Path
    containment: Path


_PATH, _DST = attrgetter("path"), attrgetter("dst")
_ParsedNote = tuple[Node | None, tuple["_Ref", ...], tuple[Diagnostic, ...]]
"""One note file's parse: its node (None when unusable), the references it makes, its diagnostics."""


@dataclass(frozen=True, slots=True)
class _NotesRead:
    """One project's notes as a load read them, per file in listing order, kept for the next load to patch:
    each parse, the references and diagnostics and skips it added, whether its node was admitted; and the
    admitted nodes in order."""

    files: FolderRead
    values: tuple[_ParsedNote, ...]
    refs: tuple[tuple[_Ref, ...], ...]
    diags: tuple[tuple[Diagnostic, ...], ...]
    skipped: tuple[tuple[Skipped, ...], ...]
    admitted: tuple[bool, ...]
    nodes: dict[str, Node]


@dataclass(frozen=True, slots=True)
class _Ref:
    """A reference a note makes inside the loaded scope, checked once every project is read."""

    src: str
    dst: str
    field: str
    path: str
    line: int


class ZettelkastenAdapter:
    """Loads notes, sources and debate maps of the projects in scope."""

    family: Family = "zk"

    def __init__(
        self,
        zk_root: Path,
        projects: list[str] | None,
        federation: dict[str, Path],
        workspace_root: Path,
        code_name: str | None = None,
        memo: FileMemo | None = None,
    ) -> None:
        self.zk_root = under(workspace_root, zk_root)
        # Each note's and source record's parse, kept for the next load (see FileMemo).
        self.memo = FileMemo() if memo is None else memo
        self.projects = projects
        self.federation = {alias: under(workspace_root, root) for alias, root in federation.items()}
        self.workspace_root = workspace_root
        self.code_name = code_name

    def project_dirs(self) -> tuple[list[ZkProject], list[Diagnostic]]:
        """The projects in scope, sorted by key, and the problems met finding them."""
        found: dict[str, ZkProject] = {}
        diagnostics: list[Diagnostic] = []
        if self.projects is None:
            self._scan(None, self.zk_root, self.workspace_root, found, diagnostics)
            for alias in sorted(self.federation):
                if self._alias_ok(alias, diagnostics):
                    root = self.federation[alias]
                    self._scan(alias, root, root, found, diagnostics)
        else:
            for name in dict.fromkeys(self.projects):
                self._named(name, found, diagnostics)
        return [found[key] for key in sorted(found)], diagnostics

    def load(self) -> LoadResult:
        projects, diagnostics = self.project_dirs()
        skipped = [skipped_for(d) for d in diagnostics if d.code in _FOLDER_REFUSED]
        nodes: dict[str, Node] = {}
        refs: list[_Ref] = []
        debates: list[DebateMap] = []
        for project in projects:
            self._load_project(project, nodes, refs, diagnostics, skipped)
            debates.append(load_debate(project.directory, project.key, self.workspace_root, project.containment))
        # Mapped, not looped: after a patched read these walks over every node and reference are what is left.
        read = len(set(map(_PATH, nodes.values())))
        read += sum(1 for debate in debates if debate.path is not None and debate.skipped is None)
        skipped.extend(debate.skipped for debate in debates if debate.skipped is not None)
        loaded = {project.key for project in projects}
        missing = set(map(_DST, refs)).difference(nodes)
        for ref in refs if missing else ():
            if ref.dst in missing and ref.dst.split(":")[1] in loaded:
                message = f"{ref.field} target {ref.dst} is not in the zettelkasten"
                diagnostics.append(Diagnostic(ref.path, ref.line, "dangling-ref", message, "warning", ref.field))
        for debate in debates:
            diagnostics.extend(debate.diagnostics)
            _apply_debate(debate, nodes, loaded, diagnostics, self.memo)
        ordered = tuple(map(nodes.__getitem__, sorted(nodes)))
        return LoadResult(ordered, tuple(diagnostics), files_read=read, skipped=tuple(skipped))

    def load_debates(self) -> dict[str, DebateMap]:
        """Every in-scope project's debate map, keyed by project key (for the debate view)."""
        projects, _ = self.project_dirs()
        return {p.key: load_debate(p.directory, p.key, self.workspace_root, p.containment) for p in projects}

    def _scan(
        self, alias: str | None, root: Path, containment: Path, found: dict[str, ZkProject], diags: list[Diagnostic]
    ) -> None:
        shown = display_path(root, self.workspace_root)
        try:
            resolve_inside(self.workspace_root if alias is None else containment, root)
        except PathEscape as exc:
            diags.append(Diagnostic(shown, 1, "path-escape", f"zettelkasten root {exc.reason}"))
            return
        if not root.is_dir():
            diags.append(Diagnostic(shown, 1, "missing-store", "no zettelkasten directory", "info"))
            return
        dirs, refused = list_store_dirs(root, containment)
        for path, reason in refused:
            diags.append(Diagnostic(display_path(path, self.workspace_root), 1, "path-escape", reason))
        for directory in dirs:
            if self._name_ok(directory.name, directory, diags):
                key = directory.name if alias is None else f"{alias}.{directory.name}"
                found[key] = ZkProject(key, directory, containment)

    def _named(self, name: str, found: dict[str, ZkProject], diags: list[Diagnostic]) -> None:
        alias, dot, local = name.partition(".")
        if dot:
            if alias not in self.federation:
                diags.append(Diagnostic(name, 1, "missing-store", f"no federated root is declared for {alias!r}"))
                return
            containment, directory = self.federation[alias], self.federation[alias] / local
        else:
            containment, directory = self.workspace_root, self.zk_root / name
        shown = display_path(directory, self.workspace_root)
        if not self._name_ok(local if dot else name, directory, diags):
            return
        try:
            resolve_inside(containment, directory)
        except PathEscape as exc:
            diags.append(Diagnostic(shown, 1, "path-escape", f"project {name!r} {exc.reason}"))
            return
        if not directory.is_dir():
            diags.append(Diagnostic(shown, 1, "missing-store", f"project {name!r} has no directory", "warning"))
            return
        found[name] = ZkProject(name, directory, containment)

    def _name_ok(self, name: str, directory: Path, diags: list[Diagnostic]) -> bool:
        try:
            check_id(name)
        except BadAddress as exc:
            diags.append(Diagnostic(display_path(directory, self.workspace_root), 1, "bad-id", str(exc), "warning"))
            return False
        if "." in name:
            message = f"project name {name!r} holds a dot, which is reserved for federated aliases"
            diags.append(Diagnostic(display_path(directory, self.workspace_root), 1, "bad-id", message, "warning"))
            return False
        return True

    def _alias_ok(self, alias: str, diags: list[Diagnostic]) -> bool:
        return self._name_ok(alias, self.federation[alias], diags)

    def _load_project(
        self,
        project: ZkProject,
        nodes: dict[str, Node],
        refs: list[_Ref],
        diags: list[Diagnostic],
        skipped: list[Skipped],
    ) -> None:
        notes, refused = list_store_files(project.directory / "notes", ".md", project.containment, self.memo)
        sources, refused_sources = list_store_files(
            project.directory / "sources", ".yaml", project.containment, self.memo
        )
        for path, reason in refused + refused_sources:
            drop(Diagnostic(display_path(path, self.workspace_root), 1, "path-escape", reason), diags, skipped)
        read = self._notes(project, notes)
        nodes.update(read.nodes)  # a project's addresses are its own: no note of another project is displaced
        refs.extend(chain.from_iterable(read.refs))
        diags.extend(chain.from_iterable(read.diags))
        skipped.extend(chain.from_iterable(read.skipped))
        for path in sources:
            source, found = self.memo.parse(
                path, partial(self._parse_source, path, project), partial(_source_reads, path)
            )
            if source is None:
                drop(found[0], diags, skipped)
                continue
            diags.extend(found)
            _admit(source, nodes, diags, skipped)

    def _notes(self, project: ZkProject, notes: list[Path]) -> _NotesRead:
        """The project's notes: the earlier load's read patched at the files an event named, where that
        gives what reading every note gives (see :mod:`adapters.store_patch`), else every note read."""
        key = ("zk notes", project.key, str(project.directory))
        earlier = self.memo.carried(key)
        reread = rereads(self.memo, project.directory / "notes", earlier and earlier.files, notes)
        parsed: dict[str, _ParsedNote] = {}
        read = None if reread is None else self._patched_notes(project, earlier, notes, reread, parsed)
        if read is None:
            read = self._read_notes(project, notes, parsed)
        self.memo.carry(key, read)
        return read

    def _read_notes(self, project: ZkProject, notes: list[Path], parsed: dict[str, _ParsedNote]) -> _NotesRead:
        """Every note parsed (or reused from the memo), admitted in listing order; ``parsed`` holds notes an
        abandoned patch already parsed."""
        keys = keys_of(notes)
        own: dict[str, Node] = {}
        values: list[_ParsedNote] = []
        refs: list[tuple[_Ref, ...]] = []
        diags: list[tuple[Diagnostic, ...]] = []
        skipped: list[tuple[Skipped, ...]] = []
        admitted: list[bool] = []
        for value in each_parse(self.memo, notes, keys, partial(self._parse_note, project=project.key), parsed):
            node, made, found = value
            its_diags: list[Diagnostic] = []
            its_skips: list[Skipped] = []
            if node is None:
                drop(found[0], its_diags, its_skips)
                ok = False
            else:
                its_diags.extend(found)
                ok = _admit(node, own, its_diags, its_skips)
            values.append(value)
            refs.append(made if ok else ())
            diags.append(tuple(its_diags))
            skipped.append(tuple(its_skips))
            admitted.append(ok)
        files = FolderRead.of(notes, keys, self.memo)
        return _NotesRead(files, tuple(values), tuple(refs), tuple(diags), tuple(skipped), tuple(admitted), own)

    def _patched_notes(
        self,
        project: ZkProject,
        earlier: _NotesRead,
        notes: list[Path],
        reread: list[int],
        parsed: dict[str, _ParsedNote],
    ) -> _NotesRead | None:
        """``earlier`` with the notes at ``reread`` parsed again, or None where one no longer fits in place:
        it broke, was a duplicate, or now gives another address (then another note may be admitted instead)."""
        values, refs, diags = list(earlier.values), list(earlier.refs), list(earlier.diags)
        own = dict(earlier.nodes)
        keys = earlier.files.keys
        for at in reread:
            path = notes[at]
            value = parsed[keys[at]] = self.memo.parse(path, partial(self._parse_note, path, project.key))
            node, made, found = value
            old = values[at][0]
            if node is None or old is None or not earlier.admitted[at]:
                return None
            if (node.address, node.path, node.line) != (old.address, old.path, old.line):
                return None
            values[at], refs[at], diags[at] = value, made, found
            own[node.address] = node
        self.memo.reuse_files(keys, but=[keys[at] for at in reread])
        files = earlier.files.again(notes, reread, self.memo)
        return _NotesRead(files, tuple(values), tuple(refs), tuple(diags), earlier.skipped, earlier.admitted, own)

    def _parse_note(self, path: Path, project: str) -> tuple[Node | None, tuple[_Ref, ...], tuple[Diagnostic, ...]]:
        """One note file on its own: its node, the references it makes and its warnings; or no node and the
        one diagnostic that made the file unusable."""
        shown = display_path(path, self.workspace_root)
        try:
            doc = parse_front_matter(read_text(path, shown), shown)
            body = capped_body(doc.body, shown, doc.body_line, doc.record.warnings)
            node, made = _note_node(doc.record, body, doc.body_line, path.stem, project, self.code_name)
        except StoreFileError as exc:
            return None, (), (exc.diagnostic,)
        return node, tuple(made), tuple(doc.record.warnings)

    def _parse_source(self, path: Path, project: ZkProject) -> tuple[Node | None, tuple[Diagnostic, ...]]:
        try:
            node, warnings = read_source(path, project.key, project.containment, self.workspace_root)
        except StoreFileError as exc:
            return None, (exc.diagnostic,)
        return node, tuple(warnings)


def _source_reads(path: Path, parsed: tuple[Node | None, tuple[Diagnostic, ...]]) -> list[Path]:
    """The cached text a source record names: whether it exists (and where it resolves) is part of its parse."""
    node = parsed[0]
    text = node.meta.get("text") if node is not None else None
    return [path.parent / text] if isinstance(text, str) else []


def _admit(node: Node, nodes: dict[str, Node], diags: list[Diagnostic], skipped: list[Skipped]) -> bool:
    """Keep the first node for an address; a later one is a ``duplicate-id`` error and its file a skip."""
    first = nodes.get(node.address)
    if first is None:
        nodes[node.address] = node
        return True
    message = f"{node.type} id {node.meta['id']!r} is already used by {first.path}"
    drop(Diagnostic(node.path or "", 1, "duplicate-id", message, "error", "id"), diags, skipped)
    return False


def _note_node(
    rec: Record, body: str, body_line: int, stem: str, project: str, code_name: str | None
) -> tuple[Node, list[_Ref]]:
    """The note's node plus the in-store references it makes (checked for dangling targets later)."""
    refs: list[_Ref] = []
    ident = rec.text("id", required=True) or ""
    try:
        address = make_address("zk", project, check_id(ident))
    except BadAddress as exc:
        raise rec.error("id", "bad-id", f"note id {ident!r} cannot be an address segment: {exc}") from None
    if ident != stem:
        rec.warn("id", "id-mismatch", f"note id {ident!r} differs from the file name {stem!r}.md")
    kind = rec.text("type")
    if kind is None:
        rec.warn("type", "missing-field", "no type; 'note' stands in for it")
    elif kind not in NOTE_TYPES:
        rec.warn("type", "bad-field", f"type {kind!r} is not one of {', '.join(sorted(NOTE_TYPES))}")
    title = rec.text("title")
    if title is None:
        rec.warn("title", "missing-field", "no title; the id stands in for it")
    strength = rec.text("claim_strength")
    if strength is not None and strength not in CLAIM_STRENGTHS:
        rec.warn("claim_strength", "bad-field", f"claim_strength {strength!r} is not strong, moderate or weak")
    tethers: list[Tether] = []
    edges: list[Edge] = []
    provenance: list[str] = []
    for item in rec.records("citations"):
        source_project, source_id = _zk_target(item, "source", project)
        locator, quote = item.text("locator"), item.text("quote")
        tethers.append(Tether(TetherKind.CITATION, source_id, locator, quote, source_project))
        dst = make_address("zk", source_project, source_id)
        edges.append(Edge(address, dst, "cites"))
        provenance.append(f"cite:{source_id}" + (f"@{locator}" if locator else ""))
        refs.append(_Ref(address, dst, "citations", rec.path, item.line))
    for item in rec.records("links"):
        rel = item.text("rel") or "related"
        link_project, link_id = _zk_target(item, "to", project)
        if rel not in LINK_RELS:
            item.warn("rel", "bad-field", f"link rel {rel!r} is not one of {', '.join(sorted(LINK_RELS))}; skipped")
            continue
        dst = make_address("zk", link_project, link_id)
        edges.append(Edge(address, dst, rel))
        refs.append(_Ref(address, dst, "links", rec.path, item.line))
    files = tuple(_file(rec, text) for text in rec.texts("files"))
    if code_name is not None:
        edges.extend(Edge(address, path_address("repo", code_name, path), "files") for path in files)
    meta: dict[str, Any] = {key: rec.value(key) for key in rec.fields() if key not in _KNOWN_FIELDS}
    meta.update(
        id=ident,
        project=project,
        type=kind or "note",
        claim_strength=strength,
        cross=bool(rec.flag("cross")),
        files=files,
        tags=rec.texts("tags"),
        contested=False,
        body_line=body_line,
    )
    node = Node(
        address=address,
        type=kind or "note",
        title=title or ident,
        body=body,
        family="zk",
        provenance=tuple(provenance),
        tethers=tuple(tethers),
        edges=tuple(dict.fromkeys(edges)),
        meta=meta,
        path=rec.path,
        line=1,
    )
    return node, refs


def _zk_target(item: Record, key: str, project: str) -> tuple[str, str]:
    """(project, id) of a citation source or link target: a bare id in ``project`` or a ``zk:`` address."""
    text = item.text(key, required=True) or ""
    try:
        if ":" not in text:
            return project, check_id(text)
        parsed = check_address(text)
    except BadAddress as exc:
        raise item.error(key, "bad-id", f"{key} {text!r}: {exc}") from None
    if parsed.store != "zk":
        raise item.error(key, "bad-field", f"{key} {text!r} is not a zettelkasten address")
    return parsed.source, parsed.id


def _file(rec: Record, text: str) -> str:
    try:
        return check_relative(text)
    except ValueError as exc:
        raise rec.error("files", "bad-field", str(exc)) from None


def _apply_debate(
    debate: DebateMap, nodes: dict[str, Node], loaded: set[str], diags: list[Diagnostic], memo: FileMemo
) -> None:
    """Mark each listed claim ``contested`` and link it to its counter-evidence.

    The marked node is the earlier load's object while the claim's node and the entry are unchanged
    (``memo.derive``): a reload otherwise made every contested claim a new object, which everything
    downstream then had to index again.
    """
    for entry in debate.contested:
        node = nodes.get(entry.claim)
        if node is None:
            if entry.claim.split(":")[1] not in loaded:
                continue  # a claim of a project outside this scope
            message = f"contested claim {entry.claim} is not in the zettelkasten"
            diags.append(Diagnostic(debate.path or "", entry.line, "dangling-ref", message, "warning", "claim"))
            continue
        key = ("contested", debate.path, entry.line, entry.claim)
        nodes[node.address] = memo.derive(key, (node, entry), partial(_contested, node, entry))


def _contested(node: Node, entry: ContestedClaim) -> Node:
    meta = dict(node.meta)
    meta["contested"] = True
    record = {"rationale": entry.rationale, "counter_evidence": entry.counter_evidence}
    meta["debate"] = (*meta.get("debate", ()), record)
    extra = tuple(Edge(node.address, dst, "contested-by") for dst in entry.counter_evidence)
    return replace(node, meta=meta, edges=tuple(dict.fromkeys(node.edges + extra)))
