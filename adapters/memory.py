"""The memory tree (practice): ``.memory/tree/<id>.md`` entries as ``mem:tree:<id>`` nodes.

Each entry is YAML front matter plus a Markdown body. Pins become git tethers
(the grounded channel), runs become run tethers (the measured channel), and
the tree shape, related entries, citations and pins become typed edges. A
parent's ``child`` edges are computed across files, so expanding a plan
reaches its phases without every file listing its children. ``supersedes:`` and
``superseded-by:`` (memory ids or addresses) become the same relation edges an
ADR's status links do, mirrored on the target within the tree, so an entry that
another one supersedes carries the supersession disclosure even when its own
front matter says nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import chain
from pathlib import Path
from typing import Any

from adapters.base import Diagnostic, Edge, Family, LoadResult, Node, Skipped, Tether, TetherKind
from adapters.file_memo import FileMemo
from adapters.frontmatter import MAX_BODY_BYTES, Record, StoreFileError, capped_body, parse_front_matter, read_text
from adapters.ids import BadAddress, check_address, check_file_id, check_id, make_address, path_address
from adapters.paths import PathEscape, check_relative, display_path, list_store_files, resolve_inside, under
from adapters.skips import drop
from adapters.store_patch import FolderRead, each_parse, keys_of, rereads

__all__ = ["MAX_BODY_BYTES", "MEMORY_KINDS", "MEMORY_STATUSES", "MemoryAdapter", "Pin"]

MEMORY_KINDS = frozenset(
    {"root", "plan", "phase", "decision", "experiment", "checkpoint", "anti-pattern", "note", "annotation"}
)
MEMORY_STATUSES = frozenset({"active", "done", "superseded", "abandoned"})
_SHA = re.compile(r"[0-9a-f]{4,40}")
_KNOWN_FIELDS = frozenset(
    {
        "id",
        "kind",
        "title",
        "status",
        "parent",
        "created",
        "pins",
        "runs",
        "cites",
        "related",
        "tags",
        "supersedes",
        "superseded-by",
    }
)
_SUPERSESSION = {"supersedes": "superseded-by", "superseded-by": "supersedes"}  # a relation and its mirror


@dataclass(frozen=True, slots=True)
class Pin:
    """A ``path@sha`` git pin as written in an entry (path relative to the code repository root)."""

    path: str
    sha: str


@dataclass(frozen=True, slots=True)
class _Entry:
    id: str
    address: str
    kind: str
    title: str
    body: str
    body_line: int
    path: str
    parent: str | None
    pins: tuple[Pin, ...]
    runs: tuple[str, ...]
    cites: tuple[str, ...]
    related: tuple[str, ...]
    meta: dict[str, Any]
    supersession: tuple[tuple[str, str], ...] = ()  # (rel, address): supersedes / superseded-by


_ParsedEntry = tuple[_Entry | None, tuple[Diagnostic, ...], tuple[Skipped, ...]]
"""One entry file's parse: the entry (None when unusable), its diagnostics and its skip."""


@dataclass(frozen=True, slots=True)
class _TreeRead:
    """The tree as a load read it, kept for the next load to patch: per file in listing order its parse, the
    diagnostics and skips it added and whether it was admitted; then the entries, the dangling-parent
    warnings, the relations between entries, and the nodes (by address, with each one's place)."""

    files: FolderRead
    values: tuple[_ParsedEntry, ...]
    diags: tuple[tuple[Diagnostic, ...], ...]
    skipped: tuple[tuple[Skipped, ...], ...]
    admitted: tuple[bool, ...]
    entries: dict[str, _Entry]
    dangling: tuple[Diagnostic, ...]
    children: dict[str, list[str]]
    mirrored: dict[str, list[Edge]]
    nodes: tuple[Node, ...]
    position: dict[str, int]


def _relations(
    entries: dict[str, _Entry], dangling: list[Diagnostic]
) -> tuple[dict[str, list[str]], dict[str, list[Edge]]]:
    """Each entry's children and the supersession edges mirrored onto it; a parent not in the tree is a
    warning in ``dangling``."""
    children: dict[str, list[str]] = {}
    for entry in entries.values():
        if entry.parent is None:
            continue
        if entry.parent not in entries:
            message = f"parent {entry.parent} is not in the memory tree"
            dangling.append(Diagnostic(entry.path, 1, "dangling-ref", message, "warning", "parent"))
        children.setdefault(entry.parent, []).append(entry.address)
    mirrored: dict[str, list[Edge]] = {}
    for entry in entries.values():
        for rel, dst in entry.supersession:
            if dst in entries and dst != entry.address:
                mirrored.setdefault(dst, []).append(Edge(dst, entry.address, _SUPERSESSION[rel]))
    return children, mirrored


class MemoryAdapter:
    """Loads every entry of one memory store; a malformed entry is a diagnostic, never a failure.

    ``memo`` (a :class:`FileMemo` made from the previous load's) lets a reload parse only the entry files
    that changed and keep the nodes whose entry, children and mirrored edges are the same.
    """

    family: Family = "memory"

    def __init__(self, memory_dir: Path, workspace_root: Path, code_name: str, memo: FileMemo | None = None) -> None:
        self.memory_dir = under(workspace_root, memory_dir)
        self.workspace_root = workspace_root
        self.code_name = code_name
        self.memo = FileMemo() if memo is None else memo

    def load(self) -> LoadResult:
        diagnostics: list[Diagnostic] = []
        tree = self.memory_dir / "tree"
        shown = display_path(tree, self.workspace_root)
        try:
            resolve_inside(self.workspace_root, tree)
        except PathEscape as exc:
            return LoadResult((), (Diagnostic(shown, 1, "path-escape", f"memory tree {exc.reason}"),))
        if not tree.is_dir():
            return LoadResult((), (Diagnostic(shown, 1, "missing-store", "no memory tree directory", "info"),))
        files, refused = list_store_files(tree, ".md", self.workspace_root, self.memo)
        skipped: list[Skipped] = []
        for path, reason in refused:
            drop(Diagnostic(display_path(path, self.workspace_root), 1, "path-escape", reason), diagnostics, skipped)
        key = ("memory tree", str(tree))
        earlier = self.memo.carried(key)
        reread = rereads(self.memo, tree, earlier and earlier.files, files)
        parsed: dict[str, _ParsedEntry] = {}
        read = None if reread is None else self._patched(earlier, files, reread, parsed)
        if read is None:
            read = self._read_all(files, parsed)
        self.memo.carry(key, read)
        diagnostics.extend(chain.from_iterable(read.diags))
        diagnostics.extend(read.dangling)
        skipped.extend(chain.from_iterable(read.skipped))
        return LoadResult(read.nodes, tuple(diagnostics), files_read=len(read.entries), skipped=tuple(skipped))

    def _read_all(self, files: list[Path], parsed: dict[str, _ParsedEntry]) -> _TreeRead:
        """Every entry file parsed (or reused from the memo) and admitted in listing order, then the nodes;
        ``parsed`` holds files an abandoned patch already parsed."""
        keys = keys_of(files)
        entries: dict[str, _Entry] = {}
        values: list[_ParsedEntry] = []
        diags: list[tuple[Diagnostic, ...]] = []
        skips: list[tuple[Skipped, ...]] = []
        admitted: list[bool] = []
        for value in each_parse(self.memo, files, keys, self._parse, parsed):
            entry, warnings, dropped = value
            its_diags, its_skips = list(warnings), list(dropped)
            first = None if entry is None else entries.get(entry.address)
            if entry is not None and first is not None:
                message = f"id {entry.id!r} is already used by {first.path}"
                drop(Diagnostic(entry.path, 1, "duplicate-id", message, "error", "id"), its_diags, its_skips)
            elif entry is not None:
                entries[entry.address] = entry
            values.append(value)
            diags.append(tuple(its_diags))
            skips.append(tuple(its_skips))
            admitted.append(entry is not None and first is None)
        dangling: list[Diagnostic] = []
        children, mirrored = _relations(entries, dangling)
        nodes = self._nodes(entries, children, mirrored)
        return _TreeRead(
            FolderRead.of(files, keys, self.memo),
            tuple(values),
            tuple(diags),
            tuple(skips),
            tuple(admitted),
            entries,
            tuple(dangling),
            children,
            mirrored,
            nodes,
            {node.address: at for at, node in enumerate(nodes)},
        )

    def _patched(
        self, earlier: _TreeRead, files: list[Path], reread: list[int], parsed: dict[str, _ParsedEntry]
    ) -> _TreeRead | None:
        """``earlier`` with the entries at ``reread`` parsed again, or None where one no longer fits in place.

        In place means the same address from the same file, admitted before, with the same parent and the
        same supersession links: then no other entry's children, mirrored edges or dangling warnings move,
        and only the re-read entries' nodes are built again.
        """
        values, diags, entries = list(earlier.values), list(earlier.diags), dict(earlier.entries)
        keys = earlier.files.keys
        for at in reread:
            path = files[at]
            value = parsed[keys[at]] = self.memo.parse(path, partial(self._parse, path))
            entry, warnings, dropped = value
            old = values[at][0]
            if entry is None or old is None or not earlier.admitted[at] or dropped:
                return None
            if (entry.address, entry.path, entry.parent, entry.supersession) != (
                old.address,
                old.path,
                old.parent,
                old.supersession,
            ):
                return None
            values[at], diags[at], entries[entry.address] = value, warnings, entry
        nodes = list(earlier.nodes)
        moved = {entry.address for at in reread if (entry := values[at][0]) is not None}
        for address in moved:
            nodes[earlier.position[address]] = self._derived(entries[address], earlier.children, earlier.mirrored)
        self.memo.reuse_files(keys, but=[keys[at] for at in reread])
        self.memo.reuse_derived(entries, but=moved)
        return replace(
            earlier,
            files=earlier.files.again(files, reread, self.memo),
            values=tuple(values),
            diags=tuple(diags),
            entries=entries,
            nodes=tuple(nodes),
        )

    def _parse(self, path: Path) -> tuple[_Entry | None, tuple[Diagnostic, ...], tuple[Skipped, ...]]:
        """One entry file on its own: the entry (None when unusable), its diagnostics and its skip."""
        shown = display_path(path, self.workspace_root)
        diagnostics: list[Diagnostic] = []
        skipped: list[Skipped] = []
        try:
            doc = parse_front_matter(read_text(path, shown), shown)
            body = capped_body(doc.body, shown, doc.body_line, doc.record.warnings)
            entry = self._entry(doc.record, body, doc.body_line, path.stem)
        except StoreFileError as exc:
            drop(exc.diagnostic, diagnostics, skipped)
            return None, tuple(diagnostics), tuple(skipped)
        return entry, tuple(doc.record.warnings), ()

    def _entry(self, rec: Record, body: str, body_line: int, stem: str) -> _Entry:
        ident = _ident(rec)
        if ident != stem:
            rec.warn("id", "id-mismatch", f"id {ident!r} differs from the file name {stem!r}.md")
        kind = rec.text("kind", required=True) or ""
        if kind not in MEMORY_KINDS:
            rec.warn("kind", "bad-field", f"kind {kind!r} is not one of {', '.join(sorted(MEMORY_KINDS))}")
        title = rec.text("title")
        if title is None:
            rec.warn("title", "missing-field", "no title; the id stands in for it")
            title = ident
        status = rec.text("status")
        if status is not None and status not in MEMORY_STATUSES:
            rec.warn("status", "bad-field", f"status {status!r} is not one of {', '.join(sorted(MEMORY_STATUSES))}")
        parent = rec.text("parent")
        parent_address = _mem_ref(rec, "parent", parent) if parent is not None else None
        pins = tuple(_pin(rec, text) for text in rec.texts("pins"))
        runs = tuple(_run_id(rec, text) for text in rec.texts("runs"))
        cites = tuple(_address(rec, "cites", text) for text in rec.texts("cites"))
        related = tuple(_mem_ref(rec, "related", text) for text in rec.texts("related"))
        supersession = tuple(
            (rel, _mem_ref(rec, rel, text)) for rel in _SUPERSESSION for text in _one_or_many(rec, rel)
        )
        tags = rec.texts("tags")
        meta: dict[str, Any] = {key: rec.value(key) for key in rec.fields() if key not in _KNOWN_FIELDS}
        meta.update(
            id=ident,
            kind=kind,
            status=status,
            created=rec.text("created"),
            parent=parent,
            tags=tags,
            pins=tuple(f"{pin.path}@{pin.sha}" for pin in pins),
            runs=runs,
            body_line=body_line,
        )
        return _Entry(
            id=ident,
            address=make_address("mem", "tree", ident),
            kind=kind,
            title=title,
            body=body,
            body_line=body_line,
            path=rec.path,
            parent=parent_address,
            pins=pins,
            runs=runs,
            cites=cites,
            related=related,
            meta=meta,
            supersession=supersession,
        )

    def _nodes(
        self, entries: dict[str, _Entry], children: dict[str, list[str]], mirrored: dict[str, list[Edge]]
    ) -> tuple[Node, ...]:
        nodes = [self._derived(entry, children, mirrored) for entry in entries.values()]
        return tuple(sorted(nodes, key=lambda node: node.address))

    def _derived(self, entry: _Entry, children: dict[str, list[str]], mirrored: dict[str, list[Edge]]) -> Node:
        """The entry's node, reused from the earlier load while the entry, its children and mirrored edges are."""
        kids, mirror = tuple(sorted(children.get(entry.address, ()))), tuple(mirrored.get(entry.address, ()))
        build = partial(self._node, entry, kids, mirror)
        return self.memo.derive(entry.address, (entry, kids, mirror, self.code_name), build)

    def _node(self, entry: _Entry, children: Sequence[str], mirrored: Sequence[Edge] = ()) -> Node:
        src = entry.address
        edges: list[Edge] = []
        if entry.parent is not None:
            edges.append(Edge(src, entry.parent, "parent"))
        edges.extend(Edge(src, child, "child") for child in children)
        edges.extend(Edge(src, dst, "related") for dst in entry.related)
        edges.extend(Edge(src, dst, "cites") for dst in entry.cites)
        edges.extend(Edge(src, dst, rel) for rel, dst in entry.supersession if dst != src)
        edges.extend(mirrored)
        edges.extend(Edge(src, path_address("repo", self.code_name, pin.path), "pins") for pin in entry.pins)
        edges.extend(Edge(src, make_address("data", "runs", run), "runs") for run in entry.runs)
        tethers = [Tether(TetherKind.GIT_PIN, pin.path, pin.sha) for pin in entry.pins]
        tethers.extend(Tether(TetherKind.RUN, run) for run in entry.runs)
        provenance = [f"file:{pin.path}@{pin.sha[:7]}" for pin in entry.pins]
        provenance.extend(f"run:{run}" for run in entry.runs)
        return Node(
            address=src,
            type=entry.kind,
            title=entry.title,
            body=entry.body,
            family="memory",
            provenance=tuple(provenance),
            tethers=tuple(tethers),
            edges=tuple(dict.fromkeys(edges)),
            meta=entry.meta,
            path=entry.path,
            line=1,
        )


def _ident(rec: Record) -> str:
    ident = rec.text("id", required=True) or ""
    try:
        return check_file_id(ident)
    except BadAddress as exc:
        raise rec.error("id", "bad-id", f"id {ident!r} cannot be an address segment: {exc}") from None


def _pin(rec: Record, text: str) -> Pin:
    path, at, sha = text.rpartition("@")
    if not at or not _SHA.fullmatch(sha.lower()):
        raise rec.error("pins", "bad-field", f"pin {text!r} is not path@sha (4-40 hex digits)")
    try:
        return Pin(check_relative(path), sha.lower())
    except ValueError as exc:
        raise rec.error("pins", "bad-field", str(exc)) from None


def _run_id(rec: Record, text: str) -> str:
    if ":" in text:
        address = _address(rec, "runs", text)
        if not address.startswith("data:runs:"):
            raise rec.error("runs", "bad-field", f"run {text!r} is not a data:runs: address")
        return address.removeprefix("data:runs:")
    try:
        return check_id(text)
    except BadAddress as exc:
        raise rec.error("runs", "bad-id", f"run id {text!r}: {exc}") from None


def _one_or_many(rec: Record, key: str) -> tuple[str, ...]:
    """``supersedes: deci-x`` or ``supersedes: [deci-x, deci-y]``: one record replacing one is the common case."""
    single = rec.value(key) if key in rec.fields() else None
    if isinstance(single, str):
        return (rec.text(key) or "",) if single else ()
    return rec.texts(key)


def _mem_ref(rec: Record, key: str, text: str) -> str:
    """A memory id (``expe-9f8e7d6c``) or a full address, as a canonical address."""
    if ":" in text:
        return _address(rec, key, text)
    try:
        return make_address("mem", "tree", text)
    except BadAddress as exc:
        raise rec.error(key, "bad-id", f"{key} {text!r}: {exc}") from None


def _address(rec: Record, key: str, text: str) -> str:
    try:
        parsed = check_address(text)
    except BadAddress as exc:
        raise rec.error(key, "bad-field", f"{key} entry {text!r} is not a canonical address: {exc}") from None
    return make_address(parsed.store, parsed.source, parsed.id)
