"""An mlruns/ folder written by the real MLflow: runs as data nodes, measured only where a digest verifies."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.base import Node, TetherKind
from adapters.mlflow_runs import MlflowAdapter
from adapters.resolvers import workspace_resolvers
from synapse_server.navigation.epistemics import derive
from tests.support.source_fixtures import mlflow_runs

pytest.importorskip("mlflow", reason="the mlflow dev dependency writes the mlruns fixture")


@pytest.fixture
def mlruns(tmp_path: Path) -> tuple[Path, dict[str, str], dict[str, Node]]:
    root = tmp_path / "repo"
    root.mkdir()
    ids = mlflow_runs(root)
    result = MlflowAdapter(Path("mlruns"), root).load()
    assert result.diagnostics == ()
    return root, ids, {n.address.removeprefix("data:runs:"): n for n in result.nodes}


def _status(root: Path, nodes: dict[str, Node], run_id: str) -> str:
    node = nodes[run_id]
    resolvers = workspace_resolvers(root, None, nodes.values())
    return derive(node, [resolvers.resolve(t) for t in node.tethers]).status


def test_runs_carry_experiment_name_params_metrics_and_the_note(
    mlruns: tuple[Path, dict[str, str], dict[str, Node]],
) -> None:
    _, ids, nodes = mlruns
    run = nodes[ids["hashed"]]
    assert (run.type, run.family, run.title) == ("run", "data", "invoice-latency / html-email-renderer")
    assert run.meta["params"] == {"renderer": "html"} and run.meta["metrics"] == {"billing_run_seconds": 42.0}
    assert "HTML rendering cut the billing run to 42 seconds." in run.body.splitlines()
    assert run.meta["status"] == "FINISHED" and run.meta["artifacts"] == ("latency.csv",)


def test_a_logged_sha256_of_an_artifact_that_verifies_makes_the_run_measured(
    mlruns: tuple[Path, dict[str, str], dict[str, Node]],
) -> None:
    root, ids, nodes = mlruns
    assert _status(root, nodes, ids["hashed"]) == "measured"
    hashed = [t for t in nodes[ids["hashed"]].tethers if t.kind is TetherKind.CONTENT_HASH]
    (root / hashed[0].target).write_text("invoices,seconds\n1000,12\n", encoding="utf-8")
    assert _status(root, nodes, ids["hashed"]) == "inferred"  # the bytes changed: stale, never measured


def test_mlflow_short_dataset_digests_cannot_verify_so_the_run_stays_inferred(
    mlruns: tuple[Path, dict[str, str], dict[str, Node]],
) -> None:
    root, ids, nodes = mlruns
    run = nodes[ids["dataset"]]
    assert run.meta["datasets"][0]["name"] == "invoices" and run.meta["datasets"][0]["context"] == "training"
    assert _status(root, nodes, ids["dataset"]) == "inferred"


def test_a_run_that_recorded_no_digest_has_only_its_run_tether_and_deleted_runs_are_left_out(
    mlruns: tuple[Path, dict[str, str], dict[str, Node]],
) -> None:
    root, ids, nodes = mlruns
    assert [t.kind for t in nodes[ids["plain"]].tethers] == [TetherKind.RUN]
    assert _status(root, nodes, ids["plain"]) == "inferred"
    assert ids["deleted"] not in nodes


def test_a_deleted_run_is_reported_as_skipped_and_every_live_run_as_read(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    ids = mlflow_runs(root)
    result = MlflowAdapter(Path("mlruns"), root).load()
    assert result.files_read == 3
    ((path, reason),) = [(s.path, s.reason) for s in result.skipped]
    assert ids["deleted"] in path and path.endswith("meta.yaml") and reason == "deleted in MLflow"
