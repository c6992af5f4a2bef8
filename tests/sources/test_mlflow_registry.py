"""The model registry written by the real MLflow file store: models and versions as data nodes, names with spaces."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters.base import TetherKind
from adapters.mlflow_runs import MlflowAdapter

pytest.importorskip("mlflow", reason="the mlflow dev dependency writes the registry fixture")

NAME = "Random Forest Regressor"
MODEL = "data:models:Random%20Forest%20Regressor"


def _registry(root: Path) -> str:
    """``root/mlruns`` with one run, registered as version 1 of a model whose name has spaces; the run id."""
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    from mlflow.tracking import MlflowClient

    uri = (root / "mlruns").as_uri()
    client = MlflowClient(tracking_uri=uri, registry_uri=uri)
    run = client.create_run(client.create_experiment("churn"), run_name="gbm-depth-4")
    client.log_param(run.info.run_id, "depth", "4")
    client.set_terminated(run.info.run_id)
    client.create_registered_model(NAME, description="Predicts which customers leave.")
    version = client.create_model_version(NAME, f"runs:/{run.info.run_id}/model", run_id=run.info.run_id)
    client.set_registered_model_alias(NAME, "champion", version.version)
    client.set_model_version_tag(NAME, version.version, "team", "retention")
    return str(run.info.run_id)


def test_a_registered_model_whose_name_has_spaces_is_addressable_with_its_version_alias_and_tag(
    tmp_path: Path,
) -> None:
    run_id = _registry(tmp_path)
    result = MlflowAdapter(Path("mlruns"), tmp_path).load()
    assert result.diagnostics == () and result.skipped == ()
    nodes = {n.address: n for n in result.nodes}
    model, version = nodes[MODEL], nodes[f"{MODEL}/version-1"]
    assert (model.title, model.meta["aliases"]) == (f"Registered model {NAME}", {"champion": "1"})
    assert "Predicts which customers leave." in model.body and "- alias champion: version 1" in model.body
    assert {"- aliases: champion", "- team: retention", f"- source run: data:runs:{run_id} (gbm-depth-4)"} <= set(
        version.body.splitlines()
    )
    assert [(t.kind, t.target) for t in version.tethers] == [(TetherKind.RUN, run_id)]
    assert version.path == "mlruns/models/Random Forest Regressor/version-1/meta.yaml"
