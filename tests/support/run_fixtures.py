"""MLflow runs of a fictional demand forecast, written by the real ``mlflow`` file store, for the run-unit tests.

Original to this project. Each run plays one role in the tests of how a run
answers run questions: a measured run whose metric a claim may cite, a second
measured run whose figures a claim must not borrow, a run that recorded no
digest (inferred) and a run whose recorded digest no longer verifies.
"""

from __future__ import annotations

import os
import tempfile
from hashlib import sha256
from pathlib import Path

README = """\
# Demand forecast

Runs are tracked with MLflow in `mlruns/`, the raw weekly sales sit in `data/` and the training code in `src/`.
"""


def demand_runs(
    root: Path, *, roles: tuple[str, ...] = ("baseline", "strong", "unhashed", "tampered")
) -> dict[str, str]:
    """Write ``root/mlruns`` (experiment ``demand-forecast``) and return run ids by role.

    - ``baseline`` (ridge-baseline): mae 0.666, rmse 0.912, loss logged at steps 0-2 (last 0.31), alpha 0.5,
      model ridge, tag team=forecasting, and a ``sha256/artifacts/predictions.csv`` tag that verifies;
    - ``strong`` (ridge-strong): mae 0.812, alpha 2.0, with a digest that verifies;
    - ``unhashed`` (lasso-unhashed): mae 0.7, alpha 0.1, no digest at all;
    - ``tampered`` (ridge-tampered): mae 0.65 and a sha256 tag recorded for other bytes than its artifact's.
    """
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    from mlflow.entities import Metric, Param
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=(root / "mlruns").as_uri())
    experiment = client.create_experiment("demand-forecast")
    staging = Path(tempfile.mkdtemp())  # artifacts are staged outside the repository; MLflow copies them in
    plans = {
        "baseline": ("ridge-baseline", {"mae": 0.666, "rmse": 0.912}, {"alpha": "0.5", "model": "ridge"}),
        "strong": ("ridge-strong", {"mae": 0.812}, {"alpha": "2.0", "model": "ridge"}),
        "unhashed": ("lasso-unhashed", {"mae": 0.7}, {"alpha": "0.1", "model": "lasso"}),
        "tampered": ("ridge-tampered", {"mae": 0.65}, {"alpha": "0.3", "model": "ridge"}),
    }
    ids: dict[str, str] = {}
    for role in roles:
        name, metrics, params = plans[role]
        run_id = client.create_run(experiment, run_name=name).info.run_id
        client.log_batch(
            run_id,
            metrics=[Metric(key, value, 1_700_000_000_000, 0) for key, value in metrics.items()],
            params=[Param(key, value) for key, value in params.items()],
        )
        if role == "baseline":
            for step, loss in enumerate((0.9, 0.5, 0.31)):
                client.log_metric(run_id, "loss", loss, timestamp=1_700_000_000_000 + step, step=step)
            client.set_tag(run_id, "team", "forecasting")
        if role != "unhashed":
            artifact = staging / role / "predictions.csv"
            artifact.parent.mkdir()
            artifact.write_text(f"week,units\n1,{len(name)}\n", encoding="utf-8")
            client.log_artifact(run_id, str(artifact))
            recorded = b"other bytes" if role == "tampered" else artifact.read_bytes()
            client.set_tag(run_id, "sha256/artifacts/predictions.csv", sha256(recorded).hexdigest())
        client.set_terminated(run_id)
        ids[role] = run_id
    return ids
