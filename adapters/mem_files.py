"""memdsl ``.mem`` workspaces read in place: each declaration is a memory entry ``mem:<name>:<id>``.

``boundary privacy.no_family_in_public { … }`` becomes
``mem:<name>:privacy.no_family_in_public`` of type ``boundary`` (a 0.9
namespaced kind, ``coding.project_rule``, is the type as written). The body is
:mod:`adapters.mem_body`: the statement verbatim, then every field as a
citable line. Relations (``supersedes``, ``conflicts_with``, ``refines``, … as
fields or inside a ``relations { … }`` block, any field whose ids name other
declarations, and 0.9 full ids ``kind:name``) become edges with ``_`` written
``-``, and ``supersedes`` / ``superseded_by`` are mirrored on their target (so
a declaration another one supersedes carries the supersession disclosure);
``subject`` links to a declared ``entity``. The status is the top-level
``status`` or, in 0.8+ files, ``lifecycle { status: … }``. Every declaration
of a file shares the file's tether (a git pin when committed unchanged, else a
content hash).

Not memory, and reported as skipped: ``.memdsl/proposals/`` (proposals await a
person's review), and, below the folder searched, another project's test
inputs (:func:`left_out`). A file that cannot be read is one diagnostic and
one skip; a declaration that cannot be parsed is one ``mem-syntax`` error.

Diagnostic codes: ``mem-syntax`` (error: a declaration that cannot be read,
with its line and column), ``duplicate-id`` (error), ``dangling-ref``
(warning, field ``relations``: a relation names no declaration).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from adapters.base import Diagnostic, Edge, Family, LoadResult, Node, Skipped, Tether
from adapters.file_tethers import FileTethers, provenance_of
from adapters.frontmatter import StoreFileError
from adapters.ids import BadAddress, make_address
from adapters.mem_body import body_lines
from adapters.mem_parse import Declaration, parse_mem
from adapters.paths import display_path, under
from adapters.skips import drop, skipped_for
from adapters.source_files import check_folder, read_source, walk_files

STATEMENT_FIELDS = ("rule", "claim", "statement", "decision", "value", "text", "description", "question", "goal")
RELATION_FIELDS = frozenset(
    {"supersedes", "superseded_by", "conflicts_with", "refines", "depends_on", "relates_to", "related_to",
     "derived_from", "contradicts", "supports", "related", "blocks", "resolves", "part_of", "revision_of"}
)  # fmt: skip
_STATUS = {"active": "active", "superseded": "superseded", "done": "done", "retracted": "abandoned",
           "archived": "abandoned", "abandoned": "abandoned", "deprecated": "superseded"}  # fmt: skip
_NOT_EXTRA = frozenset(
    {*STATEMENT_FIELDS, "force", "scope", "subject", "exceptions", "guard", "evidence", "status", "lifecycle"}
)
_NOT_LINKS = frozenset({"exceptions", "evidence", "guard", "lifecycle", "access_policy", "relations"})
TEST_FOLDERS = frozenset(
    {"test", "tests", "testdata", "test_data", "test-data", "fixtures", "__tests__", "__fixtures__"}
)
"""Folder names that hold a project's test inputs: whatever ``.mem`` files sit below one are not anyone's memory."""
BROKEN_WORDS = frozenset({"broken", "invalid", "malformed", "corrupt", "corrupted"})
"""Words that name deliberately bad input (``examples/lint-demo/broken.mem``, ``invalid/``)."""
TEST_FIXTURE = "a test fixture"
BROKEN_EXAMPLE = "a deliberately broken example"
PROPOSAL = "a proposal awaiting review"


def left_out(folder: Sequence[str], mem_names: Iterable[str]) -> str | None:
    """Why the ``.mem`` files of a folder are not memory, or None when they are.

    ``folder`` is the folder's path below the folder searched (``()`` for that
    folder itself, which is never left out: naming a folder reads it) and
    ``mem_names`` the names of its ``.mem`` files. Left out: anything below a
    test folder (:data:`TEST_FOLDERS`), anything below a folder whose name holds
    a :data:`BROKEN_WORDS` word, and a folder whose every ``.mem`` file does
    (memdsl's own ``examples/lint-demo/broken.mem``).
    """
    if any(part.lower() in TEST_FOLDERS for part in folder):
        return TEST_FIXTURE
    if any(_broken(part) for part in folder):
        return BROKEN_EXAMPLE
    names = list(mem_names)
    if folder and names and all(_broken(PurePosixPath(name).stem) for name in names):
        return BROKEN_EXAMPLE
    return None


def _broken(name: str) -> bool:
    return not BROKEN_WORDS.isdisjoint(re.split(r"[^a-z0-9]+", name.lower()))


class MemFilesAdapter:
    """Every ``.mem`` file under ``path`` (a folder, searched recursively, or one file)."""

    family: Family = "memory"

    def __init__(self, path: Path, workspace_root: Path, repo_dir: Path | None, name: str = "mem") -> None:
        self.path = under(workspace_root, path)
        self.root = workspace_root
        self.repo_dir = repo_dir
        self.name = name

    def load(self) -> LoadResult:
        problem = check_folder(self.path, self.root, ".mem source")
        if problem is not None:
            return LoadResult((), (problem,), 0)
        files, diagnostics, skipped = self._files()
        tethers = FileTethers(self.root, self.repo_dir)
        tethers.prepare(display_path(p, self.root) for p in files)
        decls: dict[str, tuple[Declaration, str, Tether]] = {}
        read = 0
        for path in files:
            try:
                source = read_source(path, self.root, front_matter=False)
            except StoreFileError as exc:
                drop(exc.diagnostic, diagnostics, skipped)
                continue
            read += 1
            found, errors = parse_mem(source.text)
            for error in errors:
                diagnostics.append(
                    Diagnostic(source.path, error.line, "mem-syntax", f"{error.message} (column {error.column})")
                )
            tether = tethers.tether(source.path, source.data)
            for decl in found:
                if decl.id in decls:
                    message = f"declaration id {decl.id!r} is already used in {decls[decl.id][1]}"
                    diagnostics.append(Diagnostic(source.path, decl.line, "duplicate-id", message))
                    continue
                decls[decl.id] = (decl, source.path, tether)
        nodes = []
        for decl, shown, tether in decls.values():
            node = self._node(decl, shown, tether, decls, diagnostics)
            if node is not None:
                nodes.append(node)
        ordered = tuple(sorted(_mirrored(nodes), key=lambda n: n.address))
        return LoadResult(ordered, tuple(diagnostics), read, tuple(skipped))

    def _files(self) -> tuple[list[Path], list[Diagnostic], list[Skipped]]:
        """The files to read, the walk's refusals, and what is left out (proposals, other projects' test inputs)."""
        if self.path.is_file():
            return [self.path], [], []
        found, refused = walk_files(self.path, (".mem",), self.root, recursive=True)
        skipped = [skipped_for(d) for d in refused]
        proposals, _ = walk_files(self.path / ".memdsl", (".mem",), self.root, recursive=True)
        skipped += [Skipped(display_path(p, self.root), PROPOSAL) for p in proposals]
        by_folder: dict[Path, list[Path]] = {}
        for path in found:
            by_folder.setdefault(path.parent, []).append(path)
        files: list[Path] = []
        for folder, paths in by_folder.items():
            reason = left_out(folder.relative_to(self.path).parts, (p.name for p in paths))
            if reason is None:
                files.extend(paths)
            else:
                skipped.extend(Skipped(display_path(p, self.root), reason) for p in paths)
        return sorted(files, key=lambda p: display_path(p, self.root)), refused, skipped

    def _node(
        self, decl: Declaration, shown: str, tether: Tether, decls: Mapping[str, Any], diags: list[Diagnostic]
    ) -> Node | None:
        try:
            address = make_address("mem", self.name, decl.id)
        except BadAddress as exc:
            diags.append(Diagnostic(shown, decl.line, "bad-id", f"declaration id {decl.id!r}: {exc}", "warning"))
            return None
        fields = decl.fields
        lifecycle = next(iter(_blocks(fields.get("lifecycle"))), {})
        status_text = _scalar(fields.get("status")) or _scalar(lifecycle.get("status"))
        meta: dict[str, Any] = {
            "id": decl.id,
            "kind": decl.kind,
            "module": decl.module,
            "status": _STATUS.get((status_text or "active").lower()),
            "mem_status": status_text,
            "as_of": _scalar(fields.get("as_of")) or _scalar(lifecycle.get("as_of")),
            "force": _scalar(fields.get("force")),
            "scope": _scalar(fields.get("scope")),
            "subject": _scalar(fields.get("subject")),
            "exceptions": tuple(_list(fields.get("exceptions"))),
            "evidence": tuple(_evidence(fields.get("evidence"))),
            "tags": tuple(_list(fields.get("tags"))),
            "pins": (f"{tether.target}@{tether.ref}",) if tether.kind == "git-pin" else (),
            "source_kind": "mem",
        }
        meta.update({k: v for k, v in fields.items() if k not in _NOT_EXTRA and k not in meta})
        statement_key = next((k for k in STATEMENT_FIELDS if _scalar(fields.get(k))), None)
        return Node(
            address=address,
            type=decl.kind,
            title=f"{decl.kind} {decl.id}",
            body="\n".join(body_lines(decl.kind, fields, statement_key)).strip(),
            family="memory",
            provenance=(provenance_of(tether),),
            tethers=(tether,),
            edges=tuple(dict.fromkeys(self._edges(decl, address, shown, decls, diags))),
            meta=meta,
            path=shown,
            line=decl.line,
        )

    def _edges(
        self, decl: Declaration, address: str, shown: str, decls: Mapping[str, Any], diags: list[Diagnostic]
    ) -> list[Edge]:
        """Edges for relation fields (top level or in ``relations { … }``) and fields naming declarations."""
        pairs = [(k, v, k in RELATION_FIELDS) for k, v in decl.fields.items() if k not in _NOT_LINKS]
        for block in _blocks(decl.fields.get("relations")):
            pairs += [(k, v, True) for k, v in block.items()]
        edges: list[Edge] = []
        for key, value, relation in pairs:
            targets = _list(value)
            resolved = [_resolve(target, decls) for target in targets]
            if not relation and not (targets and all(r is not None for r in resolved)):
                continue
            for target, found in zip(targets, resolved, strict=True):
                if found is not None and found != decl.id:
                    edges.append(Edge(address, make_address("mem", self.name, found), key.replace("_", "-")))
                elif found is None:
                    message = f"{key} names {target!r}, which is not a declaration of this workspace"
                    diags.append(Diagnostic(shown, decl.line, "dangling-ref", message, "warning", "relations"))
        return edges


def _resolve(target: str, decls: Mapping[str, Any]) -> str | None:
    """The declaration id ``target`` names: a bare id, or a 0.9 full id ``kind:id`` whose kind matches."""
    if target in decls:
        return target
    kind, _, ident = target.partition(":")
    if ident in decls and decls[ident][0].kind == kind:
        return ident
    return None


_MIRROR = {"supersedes": "superseded-by", "superseded-by": "supersedes"}


def _mirrored(nodes: list[Node]) -> list[Node]:
    """Each ``supersedes`` edge also as ``superseded-by`` on its target, and the other way round."""
    extra: dict[str, list[Edge]] = {}
    for node in nodes:
        for edge in node.edges:
            if edge.rel in _MIRROR:
                extra.setdefault(edge.dst, []).append(Edge(edge.dst, edge.src, _MIRROR[edge.rel]))
    return [
        replace(n, edges=tuple(dict.fromkeys((*n.edges, *extra[n.address])))) if n.address in extra else n
        for n in nodes
    ]


def _scalar(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return [value] if isinstance(value, str) else []


def _blocks(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        return [value]
    return [b for b in value if isinstance(b, dict)] if isinstance(value, list) else []


def _evidence(value: Any) -> list[dict[str, str]]:
    return [{k: v for k, v in b.items() if isinstance(v, str)} for b in _blocks(value)]
