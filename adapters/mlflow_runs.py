"""An MLflow tracking folder (``mlruns/``, the file store) read in place: runs, and the model registry beside them.

The on-disk layout MLflow's file store writes: ``<experiment_id>/meta.yaml``
names the experiment; ``<experiment_id>/<run_id>/meta.yaml`` holds the run
(name, status, times, lifecycle stage) beside ``params/``, ``metrics/``
(``timestamp value step`` lines), ``tags/``, ``artifacts/``, ``inputs/``
(dataset links to ``<experiment_id>/datasets/<id>/meta.yaml``) and, from
MLflow 3, ``outputs/`` (links to the experiment's logged models,
``<experiment_id>/models/m-…/meta.yaml``). Every run is ``data:runs:<run_id>``;
the registry (``mlruns/models/``) is read by :mod:`adapters.mlflow_registry`.
Deleted runs and experiments are left out, and reported as skipped.

A run is ``measured`` only where a recorded digest verifies against bytes:

- a tag ``sha256/<path>`` whose value is a sha256 — ``artifacts/<file>`` is the
  run's own artifact, any other path is workspace-relative — becomes a
  content-hash tether;
- a dataset whose digest is a full sha256 and whose source is a local file in
  the workspace becomes a content-hash tether on that file;
- any other dataset digest (MLflow's default 8-character digests hash a
  sample or the source description, not the bytes) is recorded as a tether
  that cannot be verified, so the run stays ``inferred`` — never guessed.

A run whose files are committed to git is ``grounded``: every file its node
is rendered from (its ``meta.yaml``, ``params/``, ``metrics/``, ``tags/``,
``inputs/`` and ``outputs/`` links, the experiment's ``meta.yaml`` and the
dataset and logged-model records it names) is pinned at the last commit that
changed it when its bytes are the blob at ``HEAD``, and each artifact it lists
must be tracked. One file that is untracked or has uncommitted edits, and the
run has no pins at all: its status is then its digests' alone.

Every run without pins carries a run tether, the worst of its digests: a run
that records no digest at all is ``unverifiable`` (``inferred``), and the
check says so. A pinned run keeps its digests and run tether only when all of
them can be checked, so it is measured while they verify, and grounded by its
pins when it recorded none (:func:`adapters.runs_body.run_tethers`).
Metrics, parameters and tags render as one citable line each
(:mod:`adapters.runs_body`), with a verification line saying what the status
rests on and, for a run that is not measured, what measured needs.
Diagnostic codes: ``yaml`` (error: a meta.yaml that cannot be read),
``missing-record`` (warning: a run folder without meta.yaml).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from adapters.base import Diagnostic, Family, LoadResult, Node, Skipped, Tether, TetherKind
from adapters.file_tethers import FileTethers, provenance_of
from adapters.frontmatter import StoreFileError, load_yaml, read_text
from adapters.ids import BadAddress, make_address
from adapters.mlflow_registry import MODELS_FOLDER, mlflow_time, read_registry
from adapters.paths import PathEscape, check_relative, display_path, read_regular_bytes, resolve_inside, under
from adapters.runs_body import MetricHistory, figure_sections, run_tethers, verification_line
from adapters.skips import drop
from adapters.source_files import check_folder

RUN_STATUS = {1: "RUNNING", 2: "SCHEDULED", 3: "FINISHED", 4: "FAILED", 5: "KILLED"}
HOW_TO_MEASURE = "in MLflow: a run tag sha256/<path> for each file, or a dataset whose digest is a full sha256"
"""How an MLflow run records a digest Synapse can verify, said on every run that is not measured."""
NOT_RUNS = frozenset({"datasets", "models"})
"""Folders inside an experiment that are not runs: dataset records and MLflow 3's logged models."""
DELETED = "deleted in MLflow"
_SHA256 = re.compile(r"[0-9a-f]{64}")
_MAX_ARTIFACTS = 200
_MAX_VALUE_CHARS = 2000


class MlflowAdapter:
    """Runs of every live experiment under one ``mlruns/`` folder; ``repo_dir`` (the code repository) pins them."""

    family: Family = "data"

    def __init__(self, folder: Path, workspace_root: Path, repo_dir: Path | None = None) -> None:
        self.folder = under(workspace_root, folder)
        self.root = workspace_root
        self.repo_dir = repo_dir
        self._read: dict[Path, bytes] = {}
        """Every file read in this load and its bytes: what a run's pins are checked against."""
        self._order: list[Path] = []
        """The same files in reading order, so a run's own files are the ones read since it began."""
        self._files = FileTethers(workspace_root, None)

    def load(self) -> LoadResult:
        problem = check_folder(self.folder, self.root, "mlruns folder")
        if problem is not None:
            return LoadResult((), (problem,))
        self._read, self._order = {}, []
        self._files = FileTethers(self.root, self.repo_dir)
        self._files.prepare_folder(display_path(self.folder, self.root))
        diagnostics: list[Diagnostic] = []
        skipped: list[Skipped] = []
        nodes: dict[str, Node] = {}
        for experiment in _subdirs(self.folder):
            if experiment.name == MODELS_FOLDER:
                continue  # the model registry, read below
            meta = self._yaml(experiment / "meta.yaml", diagnostics, skipped)
            if meta is None:
                continue
            if meta.get("lifecycle_stage", "active") != "active":
                skipped.append(Skipped(display_path(experiment / "meta.yaml", self.root), "a deleted experiment"))
                continue
            name = str(meta.get("name") or experiment.name)
            datasets = {
                d.name: self._yaml(d / "meta.yaml", diagnostics, skipped) or {}
                for d in _subdirs(experiment / "datasets")
            }
            logged = self._logged_models(experiment / "models")
            for run_dir in _subdirs(experiment):
                if run_dir.name in NOT_RUNS or not self._inside(run_dir, diagnostics):
                    continue
                if not (run_dir / "meta.yaml").is_file():
                    shown = display_path(run_dir, self.root)
                    drop(
                        Diagnostic(shown, 1, "missing-record", "run folder without meta.yaml", "warning"),
                        diagnostics,
                        skipped,
                    )
                    continue
                node = self._run(run_dir, name, experiment, datasets, logged, diagnostics, skipped)
                if node is not None:
                    nodes.setdefault(node.address, node)
        runs = len(nodes)
        registry = read_registry(
            self.folder / MODELS_FOLDER,
            self.root,
            nodes,
            lambda path: self._yaml(path, diagnostics, skipped),
            self._values,
            self._pins,
        )
        skipped += [Skipped(display_path(path, self.root), reason) for path, reason in registry.skipped]
        for address, edges in registry.run_edges.items():
            if address in nodes:
                nodes[address] = replace(nodes[address], edges=(*nodes[address].edges, *edges))
        for node in registry.nodes:
            nodes.setdefault(node.address, node)
        ordered = tuple(nodes[key] for key in sorted(nodes))
        return LoadResult(ordered, tuple(diagnostics), files_read=runs + registry.files_read, skipped=tuple(skipped))

    def _run(
        self,
        run_dir: Path,
        experiment: str,
        experiment_dir: Path,
        datasets: dict[str, dict[str, Any]],
        logged: dict[str, tuple[str, Path]],
        diags: list[Diagnostic],
        skipped: list[Skipped],
    ) -> Node | None:
        first_read = len(self._order)
        meta = self._yaml(run_dir / "meta.yaml", diags, skipped)
        if meta is None:
            return None
        if meta.get("lifecycle_stage", "active") != "active":
            skipped.append(Skipped(display_path(run_dir / "meta.yaml", self.root), DELETED))
            return None
        run_id = str(meta.get("run_id") or run_dir.name)
        try:
            address = make_address("data", "runs", run_id)
        except BadAddress as exc:
            shown = display_path(run_dir / "meta.yaml", self.root)
            drop(Diagnostic(shown, 1, "bad-id", f"run id {run_id!r}: {exc}", "warning"), diags, skipped)
            return None
        params = self._values(run_dir / "params")
        tags = self._values(run_dir / "tags")
        metrics = _metrics(self._values(run_dir / "metrics"))
        run_name = str(meta.get("run_name") or tags.get("mlflow.runName") or run_id[:8])
        raw_status = meta.get("status")
        status = RUN_STATUS.get(raw_status, str(raw_status)) if isinstance(raw_status, int) else str(raw_status or "")
        started = mlflow_time(meta.get("start_time"))
        artifacts = _artifacts(run_dir / "artifacts")
        tethers: list[Tether] = []
        for key, value in sorted(tags.items()):
            if key.startswith("sha256/") and _SHA256.fullmatch(value.strip().lower()):
                target = self._hashed_path(run_dir, key.removeprefix("sha256/"))
                if target is not None:
                    tethers.append(Tether(TetherKind.CONTENT_HASH, target, value.strip().lower()))
        used, records = self._inputs(run_dir, experiment_dir, datasets, tethers)
        note = tags.get("mlflow.note.content", "").strip()
        lines = [f"# {experiment} / {run_name}", ""]
        if note:
            lines += [note, ""]
        lines.append(f"- experiment: {experiment}")
        if status:
            lines.append(f"- status: {status}")
        if started:
            lines.append(f"- started: {started}")
        lines += [f"- dataset {d['name']} ({d['context']}): digest {d['digest']}" for d in used]
        lines += [f"- artifact: {path}" for path in artifacts]
        models = self._outputs(run_dir, logged)
        lines += [f"- logged model: {model_name} ({model_id})" for model_id, (model_name, _) in models]
        records += [experiment_dir / "meta.yaml", *(path for _, (_, path) in models)]
        read = [*self._order[first_read:], *records]  # this run's own files, then the records it names
        listed = (run_dir / "artifacts" / path for path in artifacts)
        pins = self._pins(read) if all(self._files.tracked(display_path(a, self.root)) for a in listed) else None
        lines.append(verification_line(tethers, HOW_TO_MEASURE, committed=pins is not None))
        shown_tags = {k: v for k, v in sorted(tags.items()) if not k.startswith(("mlflow.", "sha256/"))}
        lines += figure_sections(
            {key: history for key, (history, _) in sorted(metrics.items())}, dict(sorted(params.items())), shown_tags
        )
        shown = display_path(run_dir / "meta.yaml", self.root)
        hashes = [t for t in tethers if t.kind is TetherKind.CONTENT_HASH]
        committed = (provenance_of(pins[0]),) if pins else ()  # the run's meta.yaml, read first
        return Node(
            address=address,
            type="run",
            title=f"{experiment} / {run_name}",
            body="\n".join(lines).rstrip(),
            family="data",
            provenance=(f"run:{run_id}", *committed, *(f"hash:{t.target}@{(t.ref or '')[:12]}" for t in hashes)),
            tethers=run_tethers(run_id, hashes, pins),
            meta={
                "id": run_id,
                "experiment": experiment,
                "experiment_id": experiment_dir.name,
                "run_name": run_name,
                "status": status,
                "started": started,
                "notes": note or None,
                "params": params,
                "metrics": {key: value for key, (_, value) in metrics.items()},
                "tags": {k: v for k, v in tags.items() if not k.startswith("mlflow.")},
                "datasets": used,
                "artifacts": artifacts,
                "logged_models": tuple(model_id for model_id, _ in models),
                "committed": pins is not None,
                "inputs": tuple(t.target for t in hashes),
                "outputs": (),
                "source_kind": "mlflow",
            },
            path=shown,
            line=1,
        )

    def _inputs(
        self, run_dir: Path, experiment_dir: Path, datasets: dict[str, dict[str, Any]], tethers: list[Tether]
    ) -> tuple[list[dict[str, Any]], list[Path]]:
        """The run's dataset inputs and the dataset records they name; each digest is a tether, verifiable only
        when it is a sha256 of a local file."""
        used: list[dict[str, Any]] = []
        records: list[Path] = []
        for link in _subdirs(run_dir / "inputs"):
            info = self._yaml(link / "meta.yaml", [], [])
            if not info or info.get("source_type") != "DATASET":
                continue
            source_id = str(info.get("source_id"))
            dataset = datasets.get(source_id, {})
            if source_id in datasets:
                records.append(experiment_dir / "datasets" / source_id / "meta.yaml")
            context = str((info.get("tags") or {}).get("mlflow.data.context", "input"))
            digest = str(dataset.get("digest") or "")
            name = str(dataset.get("name") or info.get("source_id"))
            local = self._local_source(dataset.get("source"))
            if local is not None and _SHA256.fullmatch(digest.lower()):
                tethers.append(Tether(TetherKind.CONTENT_HASH, local, digest.lower()))
            else:  # recorded, but not a hash of bytes Synapse can read: it cannot verify, so it supports nothing
                tethers.append(Tether(TetherKind.CONTENT_HASH, local or f"dataset:{name}", digest or None))
            used.append({"name": name, "context": context, "digest": digest, "source": local})
        return used, records

    def _logged_models(self, folder: Path) -> dict[str, tuple[str, Path]]:
        """MLflow 3's logged models of an experiment (``models/m-…/meta.yaml``): model id -> its name and record."""
        names: dict[str, tuple[str, Path]] = {}
        for model_dir in _subdirs(folder):
            info = self._yaml(model_dir / "meta.yaml", [], [])
            if info:
                model_id = str(info.get("model_id") or model_dir.name)
                names[model_id] = (str(info.get("name") or model_dir.name), model_dir / "meta.yaml")
        return names

    def _outputs(self, run_dir: Path, logged: dict[str, tuple[str, Path]]) -> list[tuple[str, tuple[str, Path]]]:
        """(model id, (name, record)) of each model the run logged (``outputs/<id>/meta.yaml``, MLflow 3)."""
        found: list[tuple[str, tuple[str, Path]]] = []
        for link in _subdirs(run_dir / "outputs"):
            info = self._yaml(link / "meta.yaml", [], [])
            if info and info.get("destination_type") == "MODEL_OUTPUT":
                model_id = str(info.get("destination_id") or link.name)
                found.append((model_id, logged.get(model_id, (model_id, link / "meta.yaml"))))
        return found

    def _pins(self, paths: Iterable[Path]) -> tuple[Tether, ...] | None:
        """A git pin for each of ``paths`` that was read, or None unless every one is committed unchanged.

        All or nothing: a run rendered partly from a file nobody committed (or
        edited since) says something no commit says, so it gets no pin at all.
        """
        pins: list[Tether] = []
        for path in dict.fromkeys(paths):
            data = self._read.get(path)
            if data is None:
                continue  # not read (absent, or unreadable and left out of the body)
            pin = self._files.pin(display_path(path, self.root), data)
            if pin is None:
                return None
            pins.append(pin)
        return tuple(pins) or None

    def _local_source(self, raw: Any) -> str | None:
        """A dataset source that names a file in the workspace, workspace-relative; None otherwise."""
        try:
            source = json.loads(raw) if isinstance(raw, str) else {}
        except json.JSONDecodeError:
            return None
        for key in ("path", "uri", "url"):
            value = source.get(key) if isinstance(source, dict) else None
            if not isinstance(value, str):
                continue
            parsed = urlparse(value)
            if parsed.scheme not in ("", "file"):
                continue
            candidate = Path(unquote(parsed.path)) if parsed.scheme == "file" else self.root / value
            try:
                resolved = resolve_inside(self.root, candidate)
            except PathEscape:
                return None
            return display_path(resolved, self.root)
        return None

    def _hashed_path(self, run_dir: Path, raw: str) -> str | None:
        try:
            relative = check_relative(raw)
        except ValueError:
            return None
        base = run_dir if relative.startswith("artifacts/") else self.root
        try:
            return display_path(resolve_inside(self.root, base / relative), self.root)
        except PathEscape:
            return None

    def _values(self, folder: Path) -> dict[str, str]:
        """``params/``, ``metrics/`` or ``tags/``: one file per key (keys with ``/`` are nested folders).

        A file that is not a regular file or not UTF-8 is left out (and so is not rendered, nor pinned).
        """
        out: dict[str, str] = {}
        if not folder.is_dir():
            return out
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if not os.path.islink(os.path.join(dirpath, d)))
            for name in sorted(filenames):
                path = Path(dirpath) / name
                if path.is_symlink():
                    continue
                try:
                    data = read_regular_bytes(path)
                    text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
                except (OSError, UnicodeDecodeError):
                    continue
                self._keep(path, data)
                out[path.relative_to(folder).as_posix()] = text[:_MAX_VALUE_CHARS].strip()
        return out

    def _keep(self, path: Path, data: bytes) -> None:
        self._read[path] = data
        self._order.append(path)

    def _inside(self, path: Path, diags: list[Diagnostic]) -> bool:
        try:
            resolve_inside(self.root, path)
        except PathEscape as exc:
            diags.append(Diagnostic(display_path(path, self.root), 1, "path-escape", exc.reason))
            return False
        return True

    def _yaml(self, path: Path, diags: list[Diagnostic], skipped: list[Skipped]) -> dict[str, Any] | None:
        """A metadata file as a mapping; one that cannot be read is a diagnostic and a skipped file."""
        shown = display_path(path, self.root)
        if not path.is_file() or not self._inside(path, diags):
            return None
        try:  # the store files' reader: no aliases, deep nesting or tags that cannot be built
            text = read_text(path, shown)
            # the bytes as read (a BOM is not kept, so a file with one never matches its blob: no pin, never a wrong one)
            self._keep(path, text.encode("utf-8"))
            data = load_yaml(text, shown)
        except StoreFileError as exc:
            found = exc.diagnostic
            drop(Diagnostic(shown, found.line, "yaml", f"cannot read MLflow metadata: {found.message}"), diags, skipped)
            return None
        if not isinstance(data, dict):
            drop(Diagnostic(shown, 1, "yaml", "MLflow metadata is not a mapping"), diags, skipped)
            return None
        return data


def _subdirs(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(
        (p for p in folder.iterdir() if p.is_dir() and not p.is_symlink() and not p.name.startswith(".")),
        key=lambda p: p.name,
    )


def _metrics(values: dict[str, str]) -> dict[str, tuple[MetricHistory, float | None]]:
    """Each metric's latest value (as written, and as a number) with its history's length and step.

    A metric file holds one ``timestamp value step`` line per logged value; the
    latest is the one MLflow shows for the run: the highest step, then the
    latest timestamp, then the last line.
    """
    out: dict[str, tuple[MetricHistory, float | None]] = {}
    for key, text in values.items():
        rows = [line.split() for line in text.splitlines() if len(line.split()) >= 2]
        if not rows:
            continue
        last = max(enumerate(rows), key=lambda pair: (_integer(pair[1], 2), _integer(pair[1], 0), pair[0]))[1]
        written = last[1]
        try:
            value: float | None = float(written)
        except ValueError:
            value = None
        step = last[2] if len(last) > 2 and last[2].lstrip("-").isdigit() else None
        out[key] = (MetricHistory(written, len(rows), step), value)
    return out


def _integer(row: list[str], index: int) -> int:
    """A row's timestamp or step as a number; absent or unreadable counts as 0."""
    try:
        return int(row[index]) if index < len(row) else 0
    except ValueError:
        return 0


def _artifacts(folder: Path) -> tuple[str, ...]:
    found: list[str] = []
    if folder.is_dir():
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if not os.path.islink(os.path.join(dirpath, d)))
            found.extend((Path(dirpath) / f).relative_to(folder).as_posix() for f in sorted(filenames))
            if len(found) >= _MAX_ARTIFACTS:
                break
    return tuple(found[:_MAX_ARTIFACTS])
