"""MLflow's model registry as the file store writes it, read in place: each model and each version a data node.

The layout (``mlruns/models/``, beside the experiments)::

    models/<name>/meta.yaml                  name, description, creation time, aliases (MLflow 2.9+)
    models/<name>/aliases/<alias>            the version an alias points at (older writers)
    models/<name>/tags/<key>                 the model's tags
    models/<name>/version-<n>/meta.yaml      version, run_id, source, status, current_stage, description
    models/<name>/version-<n>/tags/<key>     the version's tags

``data:models:<name>`` is the registered model and ``data:models:<name>/version-<n>``
each version; a name with spaces or other separators is percent-encoded in the
address (``Random%20Forest``). A version's edges name the run that produced it
(``source-run``, mirrored on the run as ``registered-as``) and its model
(``version-of`` / ``has-version``). A version is evidence exactly as good as
that run: while its own files (``meta.yaml``, ``tags/``) are not all committed
unchanged, or the run's are not, its only tether is the run tether, so it is
``measured`` when every digest the run recorded verifies and ``inferred``
otherwise (the check says why); when both are committed it carries its own
git pins and every tether of the run (grounded, or measured as the run is). A
model likewise carries its versions' tethers beside the pins of its own files
and its versions' records, or only its versions' run tethers. Nothing here
reads model artifacts: the registry's own records are small YAML files.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.base import Edge, Node, Tether, TetherKind
from adapters.ids import BadAddress, encode_id, make_address
from adapters.paths import display_path

__all__ = ["MODELS_FOLDER", "Registry", "mlflow_time", "read_registry"]

MODELS_FOLDER = "models"
"""The registry's folder inside ``mlruns/``: not an experiment."""

_VERSION = re.compile(r"version-(\d{1,9})")
ReadYaml = Callable[[Path], dict[str, Any] | None]
ReadValues = Callable[[Path], dict[str, str]]
PinFiles = Callable[[Iterable[Path]], tuple[Tether, ...] | None]
"""The git pins of files already read, or None unless every one is committed unchanged."""


@dataclass
class Registry:
    """The registry's nodes, the edges to add to runs (``registered-as``), and the files read and left out."""

    nodes: list[Node] = field(default_factory=list)
    run_edges: dict[str, list[Edge]] = field(default_factory=dict)
    files_read: int = 0
    skipped: list[tuple[Path, str]] = field(default_factory=list)


def read_registry(
    folder: Path,
    root: Path,
    runs: Mapping[str, Node],
    read_yaml: ReadYaml,
    read_values: ReadValues,
    pins: PinFiles = lambda paths: None,
) -> Registry:
    """Every registered model under ``folder`` (``mlruns/models``) and its versions, linked to ``runs`` by id."""
    registry = Registry()
    if not folder.is_dir():
        return registry
    for model_dir in sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink()):
        meta = read_yaml(model_dir / "meta.yaml")
        if meta is None:
            registry.skipped.append((model_dir / "meta.yaml", "no record file"))
            continue
        name = str(meta.get("name") or model_dir.name)
        try:
            model_address = make_address("data", "models", encode_id(name))
        except BadAddress:
            registry.skipped.append((model_dir / "meta.yaml", "an id that is not an address"))
            continue
        aliases = _aliases(meta, read_values(model_dir / "aliases"))
        readers = (read_yaml, read_values, pins)
        found = [
            (version_dir / "meta.yaml", version)
            for version_dir in sorted(model_dir.iterdir(), key=_version_order)
            if (version := _version(version_dir, root, name, model_address, aliases, runs, readers, registry))
        ]
        versions = [version for _, version in found]
        registry.files_read += 1
        records = [record for record, _ in found]
        model = _model(model_dir, root, name, model_address, meta, aliases, versions, records, (read_values, pins))
        registry.nodes.append(model)
        registry.nodes.extend(versions)
    return registry


def _version(
    version_dir: Path,
    root: Path,
    name: str,
    model_address: str,
    aliases: dict[str, str],
    runs: Mapping[str, Node],
    readers: tuple[ReadYaml, ReadValues, PinFiles],
    registry: Registry,
) -> Node | None:
    read_yaml, read_values, pins = readers
    if not version_dir.is_dir() or version_dir.is_symlink() or not _VERSION.fullmatch(version_dir.name):
        return None
    meta = read_yaml(version_dir / "meta.yaml")
    if meta is None:
        registry.skipped.append((version_dir / "meta.yaml", "no record file"))
        return None
    number = str(meta.get("version") or version_dir.name.removeprefix("version-"))
    address = f"{model_address}/version-{number}"
    run_id = str(meta.get("run_id") or "").strip()
    run = runs.get(f"data:runs:{run_id}") if run_id else None
    run_name = str(run.meta.get("run_name")) if run is not None else None
    named = sorted(alias for alias, target in aliases.items() if target == number)
    tags = read_values(version_dir / "tags")
    description = str(meta.get("description") or "").strip()
    lines = [f"# {name} version {number}", ""]
    if description:
        lines += [description, ""]
    lines.append(f"- model: {name}")
    lines.append(f"- version: {number}")
    if run_id:
        lines.append(f"- source run: data:runs:{run_id}" + (f" ({run_name})" if run_name else ""))
    for key in ("status", "current_stage", "source", "model_id"):
        if meta.get(key) not in (None, ""):
            lines.append(f"- {key.replace('_', ' ')}: {meta[key]}")
    if named:
        lines.append(f"- aliases: {', '.join(named)}")
    registered = mlflow_time(meta.get("creation_timestamp"))
    if registered:
        lines.append(f"- registered: {registered}")
    lines += _section("Tags of the version", tags)
    edges = [Edge(address, model_address, "version-of")]
    own = pins([version_dir / "meta.yaml", *(version_dir / "tags" / key for key in tags)])
    committed = own is not None and (not run_id or (run is not None and run.meta.get("committed") is True))
    tethers: tuple[Tether, ...] = own or ()
    if run_id:
        run_address = f"data:runs:{run_id}"
        edges.append(Edge(address, run_address, "source-run"))
        registry.run_edges.setdefault(run_address, []).append(Edge(run_address, address, "registered-as"))
        # as good as the run that produced it, never better: the run's pins and digests, or its run tether
        tethers = (*tethers, *run.tethers) if committed and run is not None else (Tether(TetherKind.RUN, run_id),)
    registry.files_read += 1
    return Node(
        address=address,
        type="model-version",
        title=f"{name} version {number}",
        body="\n".join(lines).rstrip(),
        family="data",
        provenance=(f"run:{run_id}",) if run_id else (),
        tethers=tethers,
        edges=tuple(edges),
        meta={
            "id": f"{name}/version-{number}",
            "model": name,
            "version": number,
            "run_id": run_id or None,
            "status": meta.get("status"),
            "stage": meta.get("current_stage"),
            "aliases": tuple(named),
            "tags": tags,
            "source": meta.get("source"),
            "committed": committed,
            "source_kind": "mlflow",
        },
        path=display_path(version_dir / "meta.yaml", root),
        line=1,
    )


def _model(
    model_dir: Path,
    root: Path,
    name: str,
    address: str,
    meta: dict[str, Any],
    aliases: dict[str, str],
    versions: list[Node],
    records: list[Path],
    readers: tuple[ReadValues, PinFiles],
) -> Node:
    read_values, pins = readers
    description = str(meta.get("description") or "").strip()
    lines = [f"# Registered model {name}", ""]
    if description:
        lines += [description, ""]
    registered = mlflow_time(meta.get("creation_timestamp"))
    if registered:
        lines.append(f"- registered: {registered}")
    numbers = [str(v.meta["version"]) for v in versions]
    if numbers:
        lines.append(f"- versions: {', '.join(numbers)} (latest {numbers[-1]})")
    lines += [f"- alias {alias}: version {target}" for alias, target in sorted(aliases.items())]
    if versions:
        lines += ["", "## Versions of the model", ""]
        for version in versions:
            run = f", source run data:runs:{version.meta['run_id']}" if version.meta.get("run_id") else ""
            lines.append(f"- version {version.meta['version']}: {version.meta.get('status') or 'status unknown'}{run}")
    tags = read_values(model_dir / "tags")
    lines += _section("Tags of the model", tags)
    own = pins(
        [
            model_dir / "meta.yaml",
            *(model_dir / "aliases" / alias for alias in read_values(model_dir / "aliases")),
            *(model_dir / "tags" / key for key in tags),
            *records,  # the versions' records its body lists
        ]
    )
    if own is not None and all(v.meta.get("committed") is True for v in versions):
        tethers = tuple(dict.fromkeys((*own, *(t for v in versions for t in v.tethers))))
    else:  # as good as its versions' runs
        runs = dict.fromkeys(str(v.meta["run_id"]) for v in versions if v.meta.get("run_id"))
        tethers = tuple(Tether(TetherKind.RUN, run) for run in runs)
    return Node(
        address=address,
        type="model",
        title=f"Registered model {name}",
        body="\n".join(lines).rstrip(),
        family="data",
        tethers=tethers,
        edges=tuple(Edge(address, v.address, "has-version") for v in versions),
        meta={
            "id": name,
            "name": name,
            "description": description or None,
            "versions": tuple(numbers),
            "aliases": dict(sorted(aliases.items())),
            "source_kind": "mlflow",
        },
        path=display_path(model_dir / "meta.yaml", root),
        line=1,
    )


def _aliases(meta: dict[str, Any], files: dict[str, str]) -> dict[str, str]:
    """Alias -> version number, from ``meta.yaml``'s ``aliases`` mapping and the ``aliases/`` files."""
    found = {alias: target.strip() for alias, target in files.items() if target.strip()}
    listed = meta.get("aliases")
    if isinstance(listed, dict):
        found.update({str(alias): str(target) for alias, target in listed.items() if target is not None})
    return found


def _section(heading: str, values: dict[str, str]) -> list[str]:
    if not values:
        return []
    return ["", f"## {heading}", "", *(f"- {key}: {' '.join(value.split())}" for key, value in sorted(values.items()))]


def _version_order(path: Path) -> tuple[int, str]:
    match = _VERSION.fullmatch(path.name)
    return (int(match.group(1)) if match else -1, path.name)


def mlflow_time(millis: Any) -> str | None:
    """An MLflow timestamp (milliseconds since the epoch) as ISO 8601 UTC; None when it is not one."""
    if not isinstance(millis, int) or isinstance(millis, bool):
        return None
    try:
        return dt.datetime.fromtimestamp(millis / 1000, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return None
