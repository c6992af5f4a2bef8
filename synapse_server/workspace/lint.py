"""``synapse lint``: code-style diagnostics for every store of a workspace.

Each finding is one line, ``path:line: severity[code] message``, with the path
relative to the workspace, followed by a summary ``N files, E error(s), W
warning(s)``. Lint builds on the adapters (which parse the stores and report
malformed files) and the tether resolvers (which check pins, hashes and
citations); it adds only the cross-store checks no single adapter can make.

Codes lint adds (severity):

- ``dangling-parent`` (error): a memory entry's ``parent`` is not in the tree.
- ``parent-cycle`` (error): a memory entry's ``parent`` chain loops back to itself.
- ``git-outside`` (error): the code store's git directory lies outside the workspace (refused).
- ``git-worktree`` (info): the code store is a linked git worktree, so its git directory lies elsewhere (fine).
- ``dangling-related`` (error): a ``related`` entry names no memory entry.
- ``dangling-cite`` (error): a ``cites`` address resolves to no node.
- ``dangling-run`` (error): a memory entry names a run that is not in the runs store.
- ``dangling-link`` (error): a note's ``links`` target is not in its zettelkasten.
- ``dangling-debate-ref`` (error): a debate entry's claim or counter-evidence does not exist.
- ``unknown-project`` (error): ``projects`` in the config names no zettelkasten project.
- ``missing-federation`` (error): a ``federation`` root in the config is not a directory.
- ``stale-pin`` (error): a ``path@sha`` pin names a commit or path that does not exist.
- ``outdated-pin`` (warning): the pinned blob exists but HEAD's committed file differs.
- ``unverifiable-pin`` (warning): pins exist but the code store has no git history.
- ``run-hash-mismatch`` (error): a run's input or output no longer hashes to its recorded sha256.
- ``run-file-missing`` (error): a run's recorded input or output is absent.
- ``unknown-commit`` (warning): a run's ``code.commit`` is not in the repository.
- ``missing-source`` (error): a citation names a source with no record.
- ``refuted-quote`` (error): a quote is not found verbatim in its source's cached text.
- ``source-text-mismatch`` (error): a cached source text no longer hashes to the record's sha256.
- ``missing-text`` (warning): a source record's ``text`` file does not exist.
- ``unknown-file`` (warning): a note's ``files`` path is not tracked at HEAD.

- ``empty-store`` (warning): a store the config names explicitly, or an adopted source, holds no entry.
- ``load-failed`` (error): a store or source could not be read at all (its adapter raised); the others still are.

Adapter codes pass through unchanged: ``unreadable``, ``binary``, ``encoding``,
``front-matter``, ``yaml``, ``missing-field``, ``bad-field``, ``bad-id``,
``id-mismatch``, ``duplicate-id``, ``path-escape``, ``missing-record``, and
the source kinds' codes (``adr-status``, ``adr-title``, ``mem-syntax``,
``too-large``, ``body-too-large``, see docs/sources.md), and the code store's
(``bad-id``, ``parse-error``, ``duplicate-id``: the code store is read like every
other store, so a file it drops is a finding, never silence). Their ``dangling-ref`` findings are
refined into the codes above; ``info`` findings (an absent optional store, a
code store with no repository or no commit yet) are kept apart and shown only
with ``--verbose``. ``serve --check`` reports the same three counts.

Before the summary, one line per store and ``sources:`` entry says how many
files it read and which it skipped, grouped by why (:mod:`.source_report`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.base import Diagnostic, Node, Severity, TetherCheck, TetherKind
from adapters.code import locate_git_dir
from adapters.frontmatter import Record, StoreFileError, parse_front_matter, parse_yaml_record, read_text
from adapters.resolvers import GitRepoLookup, Resolvers, sha256_file, workspace_resolvers
from adapters.zettelkasten import ZettelkastenAdapter
from synapse_server.workspace.config import CONFIG_RELPATH, Config, Workspace
from synapse_server.workspace.loading import StoreLoad, load_each
from synapse_server.workspace.source_kinds import SOURCE_KINDS
from synapse_server.workspace.source_report import SourceReport, source_reports
from synapse_server.workspace.sources import collisions

__all__ = ["LintReport", "lint_workspace"]

_REFINED: dict[str, tuple[str, Severity]] = {
    "links": ("dangling-link", "error"),
    "claim": ("dangling-debate-ref", "error"),
    "text": ("missing-text", "warning"),
}
"""Adapter ``dangling-ref`` findings, by field, and the lint code (severity) each becomes."""
_RECHECKED = frozenset({"parent", "citations"})
"""``dangling-ref`` fields lint re-reports from its own checks (with more specific codes)."""
_CODE_STORE_NOTES = frozenset({"no-repo"})
"""Code store findings that are info: a folder with no repository or no commit yet has no code, which is fine."""
_CODE_STORE_OWN = frozenset({"git-outside"})
"""Code store findings lint makes itself, with more detail (:meth:`_Linter._git_dir`)."""


@dataclass(frozen=True)
class LintReport:
    """Every diagnostic (sorted by path, line, code), the number of store files examined, and each store's account."""

    diagnostics: tuple[Diagnostic, ...]
    files: int
    notes: tuple[Diagnostic, ...] = ()
    """``info`` findings (an absent optional store), shown by ``lint --verbose``."""
    sources: tuple[SourceReport, ...] = ()
    """Per store and ``sources:`` entry: files read, files skipped by reason (or why none were read)."""

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "warning")

    @property
    def summary(self) -> str:
        return f"{self.files} files, {self.errors} error(s), {self.warnings} warning(s)"

    @property
    def infos(self) -> int:
        return len(self.notes)

    def lines(self, verbose: bool = False) -> list[str]:
        """The text report: one line per diagnostic (and info note when verbose), each store's account, the summary."""
        shown = sorted((*self.diagnostics, *self.notes), key=_order) if verbose else list(self.diagnostics)
        summary = f"{self.summary}, {self.infos} info" if verbose else self.summary
        accounts = ["stores:", *(f"  {report.line()}" for report in self.sources)] if self.sources else []
        return [d.format() for d in shown] + accounts + [summary]

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "errors": self.errors,
            "warnings": self.warnings,
            "info": self.infos,
            "summary": self.summary,
            "diagnostics": [
                {"path": d.path, "line": d.line, "severity": d.severity, "code": d.code, "message": d.message}
                | ({"field": d.field} if d.field else {})
                for d in self.diagnostics
            ],
            "sources": [report.model_dump(mode="json") for report in self.sources],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def lint_workspace(workspace: Workspace) -> LintReport:
    """Check every store of ``workspace``; never raises for bad store content."""
    return _Linter(workspace).run()


@dataclass
class _Linter:
    workspace: Workspace
    found: list[Diagnostic] = field(default_factory=list)
    infos: list[Diagnostic] = field(default_factory=list)
    files: set[str] = field(default_factory=set)
    _records: dict[str, Record | None] = field(default_factory=dict)
    _code: set[str] | None = None

    def run(self) -> LintReport:
        ws = self.workspace
        loads = load_each(ws)
        stores = [load for load in loads if load.kind != "code"]
        code = next(load for load in loads if load.kind == "code")
        nodes = [node for load in stores for node in load.result.nodes]
        self._adapter_diagnostics([d for load in stores for d in load.result.diagnostics])
        self._code_store(code)
        self._lost([load for load in loads if load.failure is not None])
        self._empty_stores(stores)
        self._adapter_diagnostics(collisions([(load.family, load.result.nodes) for load in stores]))
        self.files.update(node.path for node in nodes if node.path)
        lookup = GitRepoLookup(ws.code_dir, ws.root)
        try:
            resolvers = workspace_resolvers(ws.root, ws.code_dir, nodes)
            known = {node.address for node in nodes}
            self._config()
            self._git_dir()
            self._parent_cycles([n for n in nodes if n.family == "memory"])
            self._memory([n for n in nodes if n.family == "memory"], known, resolvers)
            self._notes([n for n in nodes if n.family == "zk"], known, resolvers, lookup)
            self._runs([n for n in nodes if n.family == "data"], resolvers, lookup)
            zk_adapter = ZettelkastenAdapter(ws.zettelkasten_dir, None, ws.federation_dirs, ws.root, ws.code_name)
            for debate in zk_adapter.load_debates().values():
                if debate.path is not None:
                    self.files.add(debate.path)
                    for entry in debate.contested:
                        for ref in entry.counter_evidence:
                            if ref not in known:
                                message = f"counter-evidence {ref} is not in the zettelkasten"
                                self._add(debate.path, entry.line, "dangling-debate-ref", message)
        finally:
            lookup.close()
        unique = {(d.path, d.line, d.severity, d.code, d.message): d for d in self.found}
        ordered = sorted(unique.values(), key=_order)
        notes = sorted({(d.path, d.line, d.code, d.message): d for d in self.infos}.values(), key=_order)
        return LintReport(tuple(ordered), len(self.files), tuple(notes), tuple(source_reports(loads)))

    # -- checks ---------------------------------------------------------------------------------------------

    def _adapter_diagnostics(self, diagnostics: Iterable[Diagnostic]) -> None:
        for d in diagnostics:
            if d.severity == "info":
                self.infos.append(d)
                continue
            if d.code == "dangling-ref":
                if d.field in _RECHECKED:
                    continue
                if d.field in _REFINED:
                    code, severity = _REFINED[d.field]
                    d = Diagnostic(d.path, d.line, code, d.message, severity, d.field)
            self.found.append(d)
            if d.path:
                self.files.add(d.path)

    def _code_store(self, code: StoreLoad) -> None:
        """The code store's findings, like any store's: a file it drops is a finding (never counted as a store file).

        Lint used to read the code store only to resolve citations, so the files it dropped never reached the
        report; now every finding does, except the absence of a repository (an info note) and a git directory
        outside the workspace (reported by :meth:`_git_dir` with more detail).
        """
        for d in code.result.diagnostics:
            if d.code in _CODE_STORE_OWN:
                continue
            if d.code in _CODE_STORE_NOTES:
                self.infos.append(Diagnostic(d.path, d.line, d.code, d.message, "info", d.field))
            elif d.severity == "info":
                self.infos.append(d)
            else:
                self.found.append(d)
        if code.failure is None:  # a lost code store cannot tell a dangling citation of code from a good one
            self._code = {node.address.split(":", 2)[2] for node in code.result.nodes}

    def _lost(self, failed: list[StoreLoad]) -> None:
        """A store whose adapter raised is one error on its folder; the other stores were read."""
        for load in failed:
            assert load.failure is not None
            message = f"{load.label} failed to load ({load.failure.describe()}); nothing from it is read"
            self._add(load.folder, 1, "load-failed", message)

    def _empty_stores(self, stores: list[StoreLoad]) -> None:
        """A store the user pointed at that yields nothing is a warning, not silence (it is likely misconfigured).

        An adopted source's entry is checked by its kind (``SourceKind.lint``), which warns when it read nothing.
        """
        ws = self.workspace
        shown = CONFIG_RELPATH.as_posix()
        folders = {"memory": ws.memory_dir, "zettelkasten": ws.zettelkasten_dir, "runs": ws.runs_dir}
        loaded = {load.kind: load.result.nodes for load in stores if load.source is None}
        found = {
            "memory": bool(loaded.get("memory")),
            "zettelkasten": any(n.type != "source" for n in loaded.get("zettelkasten", ())),
            "runs": bool(loaded.get("runs")),
        }
        for key, folder in folders.items():
            if found[key] or key not in ws.config.model_fields_set:
                continue
            moved = getattr(ws.config, key) != Config.model_fields[key].default
            if moved or _holds_files(folder):  # pointed somewhere, or at a folder whose files are not entries
                message = f"{key}: {getattr(ws.config, key)!r} holds nothing Synapse reads (expected {_LAYOUT[key]})"
                self._add(shown, self._config_line(f"{key}:"), "empty-store", message, "warning")
        for load in stores:
            if load.source is None or load.failure is not None:
                continue
            for code, message in SOURCE_KINDS[load.source.kind].lint(load.source, load.result):
                self._add(shown, self._config_line("sources:"), code, message, "warning")

    def _config(self) -> None:
        ws = self.workspace
        if ws.config_path is None:
            return
        shown = CONFIG_RELPATH.as_posix()
        self.files.add(shown)
        local = set(ws.local_projects())
        federation = ws.federation_dirs
        for alias, root in federation.items():
            if not root.is_dir():
                message = f"federation root {alias!r} ({ws.config.federation[alias]}) is not a directory"
                self._add(shown, self._config_line(f"{alias}:", "federation:"), "missing-federation", message)
        for name in ws.config.projects or []:
            alias, dot, project = name.partition(".")
            exists = (federation[alias] / project).is_dir() if dot and alias in federation else name in local
            if not exists:
                message = f"project {name!r} is not a zettelkasten project in this workspace"
                self._add(shown, self._config_line("projects:"), "unknown-project", message)

    def _git_dir(self) -> None:
        """A git directory outside the workspace is refused by the code store; a linked worktree is said to be fine."""
        place = locate_git_dir(self.workspace.code_dir, self.workspace.root)
        if place is None or place[0] == "inside":
            return
        state, detail = place
        if state == "worktree":
            self._add(".git", 1, "git-worktree", f"{detail} (expected for a worktree; the code store reads it)", "info")
        else:
            self._add(".git", 1, "git-outside", f"code store refused: {detail}")

    def _parent_cycles(self, nodes: list[Node]) -> None:
        """Entries whose ``parent`` chain returns to itself: the tree has no root along that chain."""
        parent = {n.address: e.dst for n in nodes for e in n.edges if e.rel == "parent"}
        path_of = {n.address: n.path or "" for n in nodes}
        reported: set[str] = set()
        for start in sorted(parent):
            chain: list[str] = []
            seen: set[str] = set()
            here: str | None = start
            while here is not None and here not in seen and here not in reported:
                seen.add(here)
                chain.append(here)
                here = parent.get(here)
            if here is None or here in reported or here not in seen:
                reported.update(seen)
                continue
            loop = chain[chain.index(here) :]
            shown = " -> ".join(a.removeprefix("mem:tree:") for a in [*loop, here])
            for member in loop:
                path = path_of[member]
                self._add(path, self._line(path, "parent"), "parent-cycle", f"parent chain loops: {shown}")
            reported.update(seen)

    def _memory(self, nodes: list[Node], known: set[str], resolvers: Resolvers) -> None:
        for node in nodes:
            path = node.path or ""
            for edge in node.edges:
                if edge.rel == "parent" and edge.dst not in known:
                    self._add(path, self._line(path, "parent"), "dangling-parent", f"parent {edge.dst} does not exist")
                elif edge.rel == "related" and edge.dst not in known:
                    message = f"related entry {edge.dst} does not exist"
                    self._add(path, self._line(path, "related"), "dangling-related", message)
                elif edge.rel == "cites" and not self._resolves(edge.dst, known):
                    self._add(path, self._line(path, "cites"), "dangling-cite", f"cited {edge.dst} does not exist")
            for tether in node.tethers:
                if tether.kind is TetherKind.GIT_PIN:
                    self._pin(path, resolvers.resolve(tether))
                elif tether.kind is TetherKind.RUN and f"data:runs:{tether.target}" not in known:
                    # A run that exists but fails its hashes is reported once, on the run itself.
                    message = f"run {tether.target} is not in the runs store"
                    self._add(path, self._line(path, "runs"), "dangling-run", message)

    def _pin(self, path: str, check: TetherCheck) -> None:
        pin = f"pin {check.tether.target}@{check.tether.ref}"
        line = self._line(path, "pins")
        detail = _detail(check)
        if check.state == "stale":
            self._add(path, line, "stale-pin", f"{pin} does not resolve: {detail}")
        elif check.state == "outdated":
            self._add(path, line, "outdated-pin", f"{pin} is outdated: {detail}", "warning")
        elif check.state == "unverifiable":
            self._add(path, line, "unverifiable-pin", f"{pin} cannot be checked: {detail}", "warning")

    def _notes(self, nodes: list[Node], known: set[str], resolvers: Resolvers, lookup: GitRepoLookup) -> None:
        head = lookup.head()
        for node in nodes:
            path = node.path or ""
            if node.type == "source":
                self._source_text(node)
                continue
            for tether in node.tethers:
                if tether.kind is not TetherKind.CITATION:
                    continue  # an adopted note's own file tether: read a moment ago, so it verifies
                check = resolvers.resolve(tether)
                line = self._citation_line(path, tether.target, tether.quote)
                name = f"zk:{tether.project}:{tether.target}"
                if check.state == "unresolved":
                    self._add(path, line, "missing-source", f"cited source {name} has no record")
                elif check.state == "failed":
                    message = f"quote {tether.quote!r} is not in the cached text of {name}"
                    self._add(path, line, "refuted-quote", message)
            for file in node.meta.get("files", ()):
                if head is not None and lookup.blob(head, str(file)) is None:
                    message = f"file {file} is not tracked at HEAD"
                    self._add(path, self._line(path, "files"), "unknown-file", message, "warning")

    def _source_text(self, node: Node) -> None:
        text_file, recorded = node.meta.get("text_file"), node.meta.get("sha256")
        if not text_file or not recorded:
            return
        target = self.workspace.root / str(text_file)
        if target.is_file() and sha256_file(target) != recorded:
            message = f"cached text {text_file} no longer hashes to the recorded sha256"
            self._add(
                node.path or "", self._line(node.path or "", "sha256", yaml=True), "source-text-mismatch", message
            )

    def _runs(self, nodes: list[Node], resolvers: Resolvers, lookup: GitRepoLookup) -> None:
        for node in nodes:
            path = node.path or ""
            for tether in node.tethers:
                if tether.kind is not TetherKind.CONTENT_HASH:
                    continue
                check = resolvers.resolve(tether)
                line = self._run_file_line(path, tether.target)
                if check.state == "stale":
                    message = f"{tether.target} no longer matches its recorded sha256: {_detail(check)}"
                    self._add(path, line, "run-hash-mismatch", message)
                elif check.state == "unresolved":
                    self._add(path, line, "run-file-missing", f"recorded file {tether.target} is absent")
            commit = node.meta.get("code_commit")
            if commit and lookup.head() is not None and lookup.commit(str(commit).lower()) is None:
                message = f"code commit {commit} is not in the repository"
                self._add(path, self._line(path, "code", yaml=True), "unknown-commit", message, "warning")

    # -- helpers --------------------------------------------------------------------------------------------

    def _resolves(self, address: str, known: set[str]) -> bool:
        if address in known:
            return True
        store, _, rest = address.partition(":")
        name, _, ident = rest.partition(":")
        if store != "repo" or name != self.workspace.code_name:
            return False
        return self._code is None or ident in self._code

    def _add(self, path: str, line: int, code: str, message: str, severity: Severity = "error") -> None:
        self.found.append(Diagnostic(path, line, code, message, severity))

    def _record(self, path: str, yaml: bool = False) -> Record | None:
        """The parsed front matter (or YAML file) of a store file, for field line numbers."""
        if path not in self._records:
            target = self.workspace.root / path
            try:
                text = read_text(target, path)
                self._records[path] = parse_yaml_record(text, path) if yaml else parse_front_matter(text, path).record
            except StoreFileError:
                self._records[path] = None
        return self._records[path]

    def _line(self, path: str, key: str, yaml: bool = False) -> int:
        record = self._record(path, yaml)
        return record.line_of(key) if record is not None else 1

    def _citation_line(self, path: str, source: str, quote: str | None) -> int:
        record = self._record(path)
        if record is None:
            return 1
        for item in _safe_records(record, "citations"):
            named = str(item.text("source"))
            if (named == source or named.endswith(f":{source}")) and item.text("quote") == quote:
                return item.line
        return record.line_of("citations")

    def _run_file_line(self, path: str, target: str) -> int:
        record = self._record(path, yaml=True)
        if record is None:
            return 1
        for key in ("inputs", "outputs"):
            for item in _safe_records(record, key):
                if item.text("path") == target:
                    return item.line
        return record.line

    def _config_line(self, *needles: str) -> int:
        """The first config line that starts with one of ``needles`` (after indentation), else 1."""
        path = self.workspace.config_path
        if path is None:
            return 1
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if any(line.lstrip().startswith(needle) for needle in needles):
                return number
        return 1


_LAYOUT = {
    "memory": "<memory>/tree/<id>.md with front matter",
    "runs": "<runs>/<run-id>/run.yaml",
    "zettelkasten": "<zettelkasten>/<project>/notes/<id>.md",
}


def _holds_files(folder: Path) -> bool:
    """Any regular file under ``folder`` (a fresh workspace's empty store folders hold none)."""
    try:
        return folder.is_dir() and any(p.is_file() for p in folder.rglob("*"))
    except OSError:
        return False


def _order(d: Diagnostic) -> tuple[str, int, str, str]:
    return (d.path, d.line, d.code, d.message)


def _detail(check: TetherCheck) -> str:
    """A resolver's detail without the ``path...: `` prefix the message already names."""
    head, sep, rest = check.detail.partition(": ")
    return rest if sep and head.startswith(check.tether.target) else check.detail


def _safe_records(record: Record, key: str) -> Iterator[Record]:
    try:
        yield from record.records(key)
    except StoreFileError:
        return
