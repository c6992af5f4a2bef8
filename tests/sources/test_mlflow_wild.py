"""MLflow folders as public repositories commit them: runs and the model registry adopted, searched and cited.

Fixtures (tests/sources/wild/mlflow-*, licences in each README): a wine-quality ElasticNet's seven runs
(16aryan/MLFlow) and an MLflow 3 file store with logged models and a model registry of five versions
(shisian512/mlops). Each is committed to a real git repository, adopted with ``init --adopt``, then
loaded, linted, searched and read with ``get`` as a user would.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from adapters.base import Node, TetherKind
from adapters.index import Embedder
from adapters.mlflow_runs import MlflowAdapter
from adapters.resolvers import workspace_resolvers
from adapters.runs_body import MEASURED_NEEDS
from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.actions.get import GetParams, get_node
from synapse_server.actions.search import SearchOutput, SearchParams, search
from synapse_server.navigation.epistemics import derive
from synapse_server.workspace.adopt import adopt, detect
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.lint import lint_workspace
from tests.support.source_fixtures import commit_all, sha256
from tests.support.wild_repos import wild_repo

MODEL = "data:models:sk-learn-random-forest-reg-model"
WISE_ROO = "data:runs:0d8653353e3e43beb89442a8bca1a94d"


def _nodes(root: Path) -> dict[str, Node]:
    return {n.address: n for n in MlflowAdapter(Path("mlruns"), root).load().nodes}


@contextmanager
def _deps(root: Path, embedder: Embedder) -> Iterator[Deps]:
    deps = Deps(ServerSettings(root=root, prespawn=False), embedder=embedder)
    try:
        yield deps
    finally:
        deps.close()


def _search(deps: Deps, query: str) -> SearchOutput:
    return search(deps, SearchParams(query=query, limit=20))


def test_adopt_counts_runs_not_the_registry_or_logged_models(tmp_path: Path) -> None:
    registry = wild_repo("mlflow-registry-shisian512", tmp_path / "registry")
    assert [(f.source.kind, f.source.path, f.files) for f in detect(registry)] == [("mlflow", "mlruns", 8)]
    runs = wild_repo("mlflow-16aryan", tmp_path / "wine")
    assert [(f.source.kind, f.source.path, f.files) for f in detect(runs)] == [("mlflow", "mlruns", 7)]


def test_the_registry_reads_each_model_and_version_linked_to_the_run_that_produced_it(tmp_path: Path) -> None:
    root = wild_repo("mlflow-registry-shisian512", tmp_path / "registry")
    result = MlflowAdapter(Path("mlruns"), root).load()
    assert result.diagnostics == ()  # MLflow 3's logged models (mlruns/0/models/) are not mistaken for runs
    assert (result.files_read, result.skipped) == (8 + 1 + 5, ())
    nodes = {n.address: n for n in result.nodes}
    model = nodes[MODEL]
    assert (model.type, model.family, model.meta["versions"]) == ("model", "data", ("1", "2", "3", "4", "5"))
    assert "- alias production: version 1" in model.body.splitlines()
    first = nodes[f"{MODEL}/version-1"]
    run = "data:runs:f590a13e7c98410fbab2558f6bd588df"
    assert {(e.rel, e.dst) for e in first.edges} == {("version-of", MODEL), ("source-run", run)}
    assert ("registered-as", f"{MODEL}/version-1") in {(e.rel, e.dst) for e in nodes[run].edges}
    assert f"- source run: {run} (kindly-mule-916)" in first.body.splitlines()
    assert "- problem_type: regression" in first.body.splitlines()  # the version's tag
    assert "- logged model: sklearn-model (m-1809d23118964b2cb671af3f8dc5347c)" in nodes[run].body.splitlines()


def test_a_version_is_as_good_as_its_run_and_becomes_measured_when_the_run_records_a_digest(tmp_path: Path) -> None:
    root = wild_repo("mlflow-registry-shisian512", tmp_path / "registry")
    nodes = _nodes(root)
    version = nodes[f"{MODEL}/version-1"]
    assert [t.kind for t in version.tethers] == [TetherKind.RUN]
    check = workspace_resolvers(root, root, nodes.values()).resolve(version.tethers[0])
    assert derive(version, [check]).status == "inferred" and "measured needs" in check.detail
    data = root / "data" / "train.csv"
    data.parent.mkdir()
    data.write_text("x,y\n1,2\n", encoding="utf-8")
    tag = root / "mlruns/0/f590a13e7c98410fbab2558f6bd588df/tags/sha256/data/train.csv"
    tag.parent.mkdir(parents=True)
    tag.write_text(sha256(data.read_bytes()), encoding="utf-8")  # what client.set_tag(run, "sha256/…", d) writes
    commit_all(root, "Record the training data's digest")
    nodes = _nodes(root)
    resolvers = workspace_resolvers(root, root, nodes.values())
    version = nodes[f"{MODEL}/version-1"]
    assert derive(version, [resolvers.resolve(t) for t in version.tethers]).status == "measured"


def test_lint_reports_what_each_adopted_source_read(tmp_path: Path) -> None:
    root = wild_repo("mlflow-registry-shisian512", tmp_path / "registry")
    adopt(root)
    report = lint_workspace(load_workspace(root))
    assert report.errors == 0 and report.warnings == 0, [d.format() for d in report.diagnostics]
    (mlflow,) = [s for s in report.sources if s.kind == "mlflow"]
    assert (mlflow.files_read, mlflow.skipped) == (14, 0)


def test_search_finds_runs_by_a_parameter_a_metric_and_a_run_name(tmp_path: Path, embedder: Embedder) -> None:
    root = wild_repo("mlflow-16aryan", tmp_path / "wine")
    adopt(root)
    with _deps(root, embedder) as deps:
        by_param = _search(deps, "l1_ratio")
        by_metric = _search(deps, "rmse")
        by_name = _search(deps, "wise-roo-476")
    runs = {a for a in _nodes(root)}
    assert runs <= {h.address for h in by_param.hits} and runs <= {h.address for h in by_metric.hits}
    assert all((h.store, h.tier) == ("data", None) for h in by_param.hits)
    assert by_name.hits[0].address == WISE_ROO and by_name.hits[0].lexical_rank == 1
    assert by_param.summary.startswith("7 hits for 'l1_ratio' in memory + runs")


def test_search_finds_a_registered_model_version_by_its_tag(tmp_path: Path, embedder: Embedder) -> None:
    root = wild_repo("mlflow-registry-shisian512", tmp_path / "registry")
    adopt(root)
    with _deps(root, embedder) as deps:
        found = _search(deps, "problem_type regression")
    assert found.hits[0].address == f"{MODEL}/version-1"


def test_get_shows_a_committed_run_grounded_by_its_files_and_what_measured_needs(
    tmp_path: Path, embedder: Embedder
) -> None:
    root = wild_repo("mlflow-16aryan", tmp_path / "wine")
    adopt(root)
    with _deps(root, embedder) as deps:
        run = get_node(deps, GetParams(id=WISE_ROO))
    assert run.title == "Default / wise-roo-476" and {t.kind for t in run.tethers} == {"git-pin"}
    (line,) = [line for line in run.body.splitlines() if line.startswith("- verification:")]
    assert line.startswith(
        "- verification: grounded in its files as committed to git; not measured: "
        "the run recorded no hash that can be verified."
    )
    assert MEASURED_NEEDS in line and "sha256/<path>" in line
    assert {"- alpha: 0.1", "- l1_ratio: 0.6", "- mae: 0.5627373693033669"} <= set(run.body.splitlines())
