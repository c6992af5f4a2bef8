"""``mlflow``: an MLflow tracking folder (``mlruns/``): each run ``data:runs:<run id>``, the registry ``data:models:…``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from adapters.base import LoadResult
from synapse_server.workspace.source_kinds.base import Detected, SourceKind, SourceSite, relative


class MlflowKind(SourceKind):
    name = "mlflow"
    family = "data"
    scheme = "data"
    unit = "run"
    finds = "a folder named `mlruns` (its runs, and the model registry in `mlruns/models/`)"
    claims_whole_folder = True
    prunes = frozenset({"mlruns"})
    codes = ("missing-record",)

    def default_segment(self, path: str) -> str:
        return "runs"

    def wildcard(self, segment: str) -> str:
        """Runs share the runs store's addresses whatever the entry's name."""
        return "data:runs:*"

    def detect(self, root: Path, folders: Sequence[Path]) -> list[Detected]:
        found: list[Detected] = []
        for folder in folders:
            if folder.name == "mlruns":
                found.append(Detected(relative(folder, root), None, _runs(folder)))
        return found

    def loader(self, site: SourceSite) -> Callable[[], LoadResult]:
        from adapters.mlflow_runs import MlflowAdapter

        return MlflowAdapter(site.folder, site.root, site.repo).load


def _runs(folder: Path) -> int:
    """How many runs the folder's experiments hold: not the registry (``models/``), datasets or logged models."""
    return sum(
        1
        for experiment in folder.iterdir()
        if experiment.is_dir() and experiment.name != "models" and not experiment.name.startswith(".")
        for run in experiment.iterdir()
        if run.name not in ("datasets", "models") and (run / "meta.yaml").is_file()
    )
