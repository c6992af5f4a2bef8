"""Experiment runs (data): ``runs/<id>/run.yaml`` records as ``data:runs:<id>`` nodes.

A run is ``measured`` evidence when every input and output it recorded still
hashes to the recorded sha256, so each becomes a content-hash tether and the
run itself carries one run tether. A ``run.yaml`` committed to git and
unchanged since is also pinned at the last commit that changed it, so a run
that recorded no input or output is ``grounded`` by its record (what it says is
what the committed file says) and one that did is measured while its hashes
verify (:func:`adapters.runs_body.run_tethers`); an untracked or edited record
has no pin. The body is a readable rendering in which
the ``notes`` text appears verbatim, so a restatement of it can be matched
against the run exactly; figures are rendered as they were written in the
YAML (``1.10`` stays ``1.10``), one citable line each under the sections of
:mod:`adapters.runs_body`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from adapters.base import Diagnostic, Family, LoadResult, Node, Skipped, Tether, TetherKind
from adapters.file_tethers import FileTethers, provenance_of
from adapters.frontmatter import Record, StoreFileError, parse_yaml_record, read_text
from adapters.ids import BadAddress, check_id, make_address
from adapters.paths import PathEscape, check_relative, display_path, list_store_dirs, resolve_inside, under
from adapters.runs_body import MetricHistory, figure_sections, run_tethers, verification_line
from adapters.skips import drop

_SHA256 = re.compile(r"[0-9a-f]{64}")
_COMMIT = re.compile(r"[0-9a-f]{4,40}")


class RunsAdapter:
    """Loads every ``run.yaml`` under the runs directory; a malformed record is a diagnostic.

    ``repo_dir`` (the code repository, None without git) pins committed records.
    """

    family: Family = "data"

    def __init__(self, runs_dir: Path, workspace_root: Path, repo_dir: Path | None = None) -> None:
        self.runs_dir = under(workspace_root, runs_dir)
        self.workspace_root = workspace_root
        self.repo_dir = repo_dir

    def load(self) -> LoadResult:
        shown = display_path(self.runs_dir, self.workspace_root)
        try:
            resolve_inside(self.workspace_root, self.runs_dir)
        except PathEscape as exc:
            return LoadResult((), (Diagnostic(shown, 1, "path-escape", f"runs directory {exc.reason}"),))
        if not self.runs_dir.is_dir():
            return LoadResult((), (Diagnostic(shown, 1, "missing-store", "no runs directory", "info"),))
        diagnostics: list[Diagnostic] = []
        skipped: list[Skipped] = []
        dirs, refused = list_store_dirs(self.runs_dir, self.workspace_root)
        for path, reason in refused:
            drop(Diagnostic(display_path(path, self.workspace_root), 1, "path-escape", reason), diagnostics, skipped)
        files = FileTethers(self.workspace_root, self.repo_dir)
        files.prepare_folder(shown)
        nodes: dict[str, Node] = {}
        for run_dir in dirs:
            node = self._read(run_dir, files, diagnostics, skipped)
            if node is None:
                continue
            if node.address in nodes:
                message = f"run id {node.meta['id']!r} is already used by {nodes[node.address].path}"
                drop(Diagnostic(node.path or "", 1, "duplicate-id", message, "error", "id"), diagnostics, skipped)
                continue
            nodes[node.address] = node
        ordered = tuple(nodes[key] for key in sorted(nodes))
        return LoadResult(ordered, tuple(diagnostics), files_read=len(nodes), skipped=tuple(skipped))

    def _read(
        self, run_dir: Path, files: FileTethers, diagnostics: list[Diagnostic], skipped: list[Skipped]
    ) -> Node | None:
        path = run_dir / "run.yaml"
        shown = display_path(path, self.workspace_root)
        if not path.exists() and not path.is_symlink():
            missing = Diagnostic(shown, 1, "missing-record", "run directory without run.yaml", "warning")
            drop(missing, diagnostics, skipped)
            return None
        try:
            resolve_inside(self.workspace_root, path)
            text = read_text(path, shown)
            record = parse_yaml_record(text, shown)
            pin = files.pin(shown, text.encode("utf-8"))  # the bytes as read; a BOM is dropped, so never pinned
            node = _run_node(record, run_dir.name, pin)
        except PathEscape as exc:
            drop(Diagnostic(shown, 1, "path-escape", exc.reason), diagnostics, skipped)
            return None
        except StoreFileError as exc:
            drop(exc.diagnostic, diagnostics, skipped)
            return None
        diagnostics.extend(record.warnings)
        return node


def _run_node(rec: Record, dir_name: str, pin: Tether | None = None) -> Node:
    ident = rec.text("id", required=True) or ""
    try:
        address = make_address("data", "runs", check_id(ident))
    except BadAddress as exc:
        raise rec.error("id", "bad-id", f"run id {ident!r} cannot be an address segment: {exc}") from None
    if ident != dir_name:
        rec.warn("id", "id-mismatch", f"run id {ident!r} differs from its directory {dir_name!r}")
    title = rec.text("title") or ident
    command = rec.text("command")
    started = rec.text("started")
    notes = rec.text("notes")
    code = rec.record("code")
    commit = code.text("commit") if code is not None else None
    if commit is not None and not _COMMIT.fullmatch(commit.lower()):
        rec.warn("code", "bad-field", f"code commit {commit!r} is not a hex sha")
    params = _figures(rec, "params")
    metrics = _figures(rec, "metrics")
    inputs = tuple(_hashed(item, "inputs") for item in rec.records("inputs"))
    outputs = tuple(_hashed(item, "outputs") for item in rec.records("outputs"))
    lines = [f"# {title}", ""]
    if notes:
        lines += [notes.rstrip(), ""]
    if command:
        lines.append(f"- command: {command}")
    if started:
        lines.append(f"- started: {started}")
    if commit:
        lines.append(f"- code commit: {commit}")
    lines += [f"- input: {path}" for path, _ in inputs]
    lines += [f"- output: {path}" for path, _ in outputs]
    hashes = [Tether(TetherKind.CONTENT_HASH, path, sha) for path, sha in inputs + outputs]
    lines.append(verification_line(hashes, committed=pin is not None))
    lines += figure_sections(
        {key: MetricHistory(text) for key, (text, _) in metrics.items()},
        {key: text for key, (text, _) in params.items()},
    )
    return Node(
        address=address,
        type="run",
        title=title,
        body="\n".join(lines).rstrip(),
        family="data",
        provenance=(
            f"run:{ident}",
            *((provenance_of(pin),) if pin else ()),
            *(f"hash:{path}@{sha[:12]}" for path, sha in inputs + outputs),
        ),
        tethers=run_tethers(ident, hashes, (pin,) if pin else None),
        meta={
            "id": ident,
            "command": command,
            "started": started,
            "code_commit": commit,
            "notes": notes,
            "params": {key: value for key, (_, value) in params.items()},
            "metrics": {key: value for key, (_, value) in metrics.items()},
            "inputs": tuple(path for path, _ in inputs),
            "outputs": tuple(path for path, _ in outputs),
            "committed": pin is not None,
        },
        path=rec.path,
        line=1,
    )


def _figures(rec: Record, key: str) -> dict[str, tuple[str, Any]]:
    """``params``/``metrics``: name -> (the value as written, the value as data)."""
    table = rec.record(key)
    if table is None:
        return {}
    out: dict[str, tuple[str, Any]] = {}
    for name in table.fields():
        node = table.raw(name)
        value = table.value(name)
        text = node.value if isinstance(node, yaml.ScalarNode) else json.dumps(value, sort_keys=True, default=str)
        out[name] = (str(text), value)
    return out


def _hashed(item: Record, key: str) -> tuple[str, str]:
    path = item.text("path", required=True) or ""
    sha = (item.text("sha256", required=True) or "").lower()
    if not _SHA256.fullmatch(sha):
        raise item.error("sha256", "bad-field", f"{key} sha256 of {path!r} is not 64 hex digits")
    try:
        return check_relative(path), sha
    except ValueError as exc:
        raise item.error("path", "bad-field", f"{key} path: {exc}") from None
