"""memdsl ``.mem`` workspaces read in place: each declaration is a memory entry ``mem:<name>:<id>``.

``boundary privacy.no_family_in_public { … }`` becomes
``mem:mem:privacy.no_family_in_public`` of type ``boundary``. The body opens
with the declaration's statement verbatim (``rule``, ``claim``, ``statement``,
…) and lists what binds it: a boundary reads ``Rule (hard, must obey): …``
so its force survives into the evidence, then scope, subject, exceptions,
guard and each evidence quote. Relations (``supersedes``, ``conflicts_with``,
``refines``, … — any field whose ids name other declarations) become edges
with ``_`` written ``-``, and ``supersedes`` / ``superseded_by`` are mirrored
on their target (so a declaration another one supersedes carries the
supersession disclosure); ``subject`` links to a declared ``entity``. Every
declaration of a file shares the file's tether (a git pin when committed
unchanged, else a content hash). ``.memdsl/proposals/`` is never read:
proposals are not memory until a person approves them.

Diagnostic codes: ``mem-syntax`` (error: a declaration that cannot be read,
with its line and column), ``duplicate-id`` (error), ``dangling-ref``
(warning, field ``relations``: a relation names no declaration).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from adapters.base import Diagnostic, Edge, Family, LoadResult, Node, Tether
from adapters.file_tethers import FileTethers, provenance_of
from adapters.frontmatter import StoreFileError
from adapters.ids import BadAddress, make_address
from adapters.mem_parse import Declaration, parse_mem
from adapters.paths import display_path, under
from adapters.source_files import check_folder, read_source, walk_files

STATEMENT_FIELDS = ("rule", "claim", "statement", "decision", "value", "text", "description", "question", "goal")
RELATION_FIELDS = frozenset(
    {"supersedes", "superseded_by", "conflicts_with", "refines", "depends_on", "relates_to", "derived_from",
     "contradicts", "supports", "related", "blocks", "resolves"}
)  # fmt: skip
_STATUS = {"active": "active", "superseded": "superseded", "done": "done", "retracted": "abandoned",
           "archived": "abandoned", "abandoned": "abandoned", "deprecated": "superseded"}  # fmt: skip
_NOT_EXTRA = frozenset({*STATEMENT_FIELDS, "force", "scope", "subject", "exceptions", "guard", "evidence", "status"})


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
            return LoadResult((), (problem,))
        diagnostics: list[Diagnostic] = []
        if self.path.is_file():
            files = [self.path]
        else:
            files, diagnostics = walk_files(self.path, (".mem",), self.root, recursive=True)
        tethers = FileTethers(self.root, self.repo_dir)
        tethers.prepare(display_path(p, self.root) for p in files)
        decls: dict[str, tuple[Declaration, str, Tether]] = {}
        for path in files:
            try:
                source = read_source(path, self.root, front_matter=False)
            except StoreFileError as exc:
                diagnostics.append(exc.diagnostic)
                continue
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
        return LoadResult(tuple(sorted(_mirrored(nodes), key=lambda n: n.address)), tuple(diagnostics))

    def _node(
        self, decl: Declaration, shown: str, tether: Tether, decls: Mapping[str, Any], diags: list[Diagnostic]
    ) -> Node | None:
        try:
            address = make_address("mem", self.name, decl.id)
        except BadAddress as exc:
            diags.append(Diagnostic(shown, decl.line, "bad-id", f"declaration id {decl.id!r}: {exc}", "warning"))
            return None
        fields = decl.fields
        edges: list[Edge] = []
        for key, value in fields.items():
            targets = [value] if isinstance(value, str) else value if isinstance(value, list) else []
            ids = [t for t in targets if isinstance(t, str)]
            if key in RELATION_FIELDS or (key != "exceptions" and ids and all(t in decls for t in ids)):
                for target in ids:
                    if target in decls and target != decl.id:
                        edges.append(Edge(address, make_address("mem", self.name, target), key.replace("_", "-")))
                    elif key in RELATION_FIELDS:
                        message = f"{key} names {target!r}, which is not a declaration of this workspace"
                        diags.append(Diagnostic(shown, decl.line, "dangling-ref", message, "warning", "relations"))
        status_text = _scalar(fields.get("status"))
        meta: dict[str, Any] = {
            "id": decl.id,
            "kind": decl.kind,
            "status": _STATUS.get((status_text or "active").lower()),
            "mem_status": status_text,
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
        statement = next((_scalar(fields[k]) for k in STATEMENT_FIELDS if _scalar(fields.get(k))), None)
        return Node(
            address=address,
            type=decl.kind,
            title=f"{decl.kind} {decl.id}",
            body=_body(decl, statement, meta),
            family="memory",
            provenance=(provenance_of(tether),),
            tethers=(tether,),
            edges=tuple(dict.fromkeys(edges)),
            meta=meta,
            path=shown,
            line=decl.line,
        )


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


def _body(decl: Declaration, statement: str | None, meta: Mapping[str, Any]) -> str:
    lines: list[str] = []
    force = meta.get("force")
    if statement:
        if decl.kind == "boundary":
            binding = "must obey" if force == "hard" else "should obey"
            lines.append(f"Rule ({force or 'unstated force'}, {binding}): {statement}")
            lines.append("")
        lines.append(statement)
        lines.append("")
    for key in ("force", "scope", "subject", "status"):
        if key == "force" and decl.kind == "boundary":
            continue
        value = meta.get(key) if key != "status" else meta.get("mem_status")
        if value:
            lines.append(f"- {key}: {value}")
    if meta.get("exceptions"):
        lines.append(f"- exceptions: {', '.join(meta['exceptions'])}")
    guard = decl.fields.get("guard")
    if isinstance(guard, dict):
        for key, value in guard.items():
            shown = ", ".join(f'"{v}"' for v in _list(value)) or str(value)
            lines.append(f"- guard {key.replace('_', ' ')}: {shown}")
    for item in meta.get("evidence", ()):
        where = f" ({item['source']})" if item.get("source") else ""
        if item.get("quote"):
            lines.append(f'- evidence{where}: "{item["quote"]}"')
    return "\n".join(lines).strip()


def _scalar(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return [value] if isinstance(value, str) else []


def _evidence(value: Any) -> list[dict[str, str]]:
    blocks = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
    return [{k: v for k, v in b.items() if isinstance(v, str)} for b in blocks if isinstance(b, dict)]
