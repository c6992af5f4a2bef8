"""``mlflow``: an MLflow tracking folder (``mlruns/``), each run a data node ``data:runs:<run id>``."""

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
    finds = "a folder named `mlruns`"
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
                runs = sum(
                    1
                    for exp in folder.iterdir()
                    if exp.is_dir()
                    for run in exp.iterdir()
                    if (run / "meta.yaml").is_file()
                )
                found.append(Detected(relative(folder, root), None, runs))
        return found

    def loader(self, site: SourceSite) -> Callable[[], LoadResult]:
        from adapters.mlflow_runs import MlflowAdapter

        return MlflowAdapter(site.folder, site.root).load
