"""An MLflow run committed to git is grounded by its files; one git does not vouch for is not.

Over real repositories: the verbatim 16aryan/MLFlow and shisian512/mlops fixtures, and runs the real MLflow file
store writes. A run whose every file (meta.yaml, metrics, params, tags, the experiment's meta.yaml) is the blob
at HEAD is pinned file by file and grounded; an edit after the commit, a file nobody committed, an untracked or
ignored mlruns folder, or a listed artifact git does not track leaves it with its run tether alone, inferred
unless its digests verify. A committed run whose digests verify stays measured, and one whose digest does not
is stale.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from adapters.base import Node, TetherKind
from adapters.mlflow_runs import MlflowAdapter
from adapters.resolvers import workspace_resolvers
from synapse_server.navigation.epistemics import NodeEpistemics, derive
from tests.support.source_fixtures import commit_all, git, make_repo, mlflow_runs
from tests.support.wild_repos import wild_files, wild_repo

WISE_ROO = "data:runs:0d8653353e3e43beb89442a8bca1a94d"
RUN_DIR = "mlruns/0/0d8653353e3e43beb89442a8bca1a94d"
MODEL = "data:models:sk-learn-random-forest-reg-model"


def _load(root: Path, repo: Path | None) -> dict[str, Node]:
    result = MlflowAdapter(Path("mlruns"), root, repo).load()
    assert result.diagnostics == ()
    return {n.address: n for n in result.nodes}


def _facts(root: Path, nodes: dict[str, Node], address: str) -> NodeEpistemics:
    resolvers = workspace_resolvers(root, root if (root / ".git").exists() else None, nodes.values())
    node = nodes[address]
    return derive(node, [resolvers.resolve(t) for t in node.tethers])


def _verification(node: Node) -> str:
    (line,) = [line for line in node.body.splitlines() if line.startswith("- verification:")]
    return line


def test_a_committed_run_pins_every_file_its_body_is_read_from_and_is_grounded(tmp_path: Path) -> None:
    root = wild_repo("mlflow-16aryan", tmp_path / "wine")
    head = git(root, "rev-parse", "HEAD")
    nodes = _load(root, root)
    run = nodes[WISE_ROO]
    assert {t.kind for t in run.tethers} == {TetherKind.GIT_PIN} and {t.ref for t in run.tethers} == {head}
    files = {p.relative_to(root).as_posix() for p in (root / RUN_DIR).rglob("*") if p.is_file()}
    assert {t.target for t in run.tethers} == files | {"mlruns/0/meta.yaml"}  # and the experiment's name
    assert {f"{RUN_DIR}/metrics/mae", f"{RUN_DIR}/params/alpha", f"{RUN_DIR}/tags/mlflow.runName"} <= files
    facts = _facts(root, nodes, WISE_ROO)
    assert (facts.status, facts.taints) == ("grounded", frozenset())
    assert _verification(run).startswith(
        "- verification: grounded in its files as committed to git; not measured: the run recorded no hash"
    )
    assert run.provenance[1] == f"file:{RUN_DIR}/meta.yaml@{head[:7]}"
    assert all(_facts(root, nodes, a).status == "grounded" for a in nodes)


def test_a_metric_file_edited_after_its_commit_leaves_the_run_unpinned_and_inferred(tmp_path: Path) -> None:
    root = wild_repo("mlflow-16aryan", tmp_path / "wine")
    mae = root / RUN_DIR / "metrics" / "mae"
    mae.write_bytes(mae.read_bytes().replace(b"0.5627373693033669", b"0.4627373693033669"))
    nodes = _load(root, root)
    run = nodes[WISE_ROO]
    assert "- mae: 0.4627373693033669" in run.body.splitlines()  # what the working copy says, which no commit says
    assert [t.kind for t in run.tethers] == [TetherKind.RUN]  # no pin at all, not the other files' pins
    facts = _facts(root, nodes, WISE_ROO)
    assert facts.status == "inferred"
    assert "its files are not committed to git unchanged, which grounded needs" in facts.checks[0].detail
    assert _verification(run).startswith("- verification: inferred; the run recorded no hash")
    others = [a for a in nodes if a != WISE_ROO]
    assert others and all(_facts(root, nodes, a).status == "grounded" for a in others)


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param("tags/reviewer", id="a-tag-nobody-committed"),
        pytest.param("artifacts/model.pkl", id="an-artifact-git-does-not-track"),
    ],
)
def test_a_file_nobody_committed_in_a_committed_run_leaves_it_inferred(tmp_path: Path, extra: str) -> None:
    root = wild_repo("mlflow-16aryan", tmp_path / "wine")
    added = root / RUN_DIR / extra
    added.parent.mkdir(parents=True, exist_ok=True)
    added.write_text("someone\n", encoding="utf-8")
    nodes = _load(root, root)
    assert [t.kind for t in nodes[WISE_ROO].tethers] == [TetherKind.RUN]
    assert _facts(root, nodes, WISE_ROO).status == "inferred"


@pytest.mark.parametrize("ignored", [False, True], ids=["untracked", "ignored"])
def test_an_mlruns_folder_git_does_not_track_leaves_every_run_inferred(tmp_path: Path, ignored: bool) -> None:
    root = make_repo(tmp_path / "wine")
    shutil.copytree(wild_files("mlflow-16aryan"), root, dirs_exist_ok=True)
    (root / ".gitignore").write_text("mlruns/\n" if ignored else "", encoding="utf-8")
    (root / "README.md").write_text("# Wine quality\n", encoding="utf-8")
    git(root, "add", ".gitignore", "README.md")
    git(root, "commit", "--quiet", "-m", "The readme only")
    nodes = _load(root, root)
    assert nodes and all([t.kind for t in n.tethers] == [TetherKind.RUN] for n in nodes.values())
    assert all(_facts(root, nodes, a).status == "inferred" for a in nodes)


def test_a_run_outside_any_repository_keeps_its_run_tether(tmp_path: Path) -> None:
    root = tmp_path / "wine"
    shutil.copytree(wild_files("mlflow-16aryan"), root)
    nodes = _load(root, None)
    assert all([t.kind for t in n.tethers] == [TetherKind.RUN] for n in nodes.values())
    assert _facts(root, nodes, WISE_ROO).status == "inferred"


def test_each_file_is_pinned_at_the_last_commit_that_changed_it_and_the_pins_verify(tmp_path: Path) -> None:
    root = wild_repo("mlflow-16aryan", tmp_path / "wine")
    first = git(root, "rev-parse", "HEAD")
    (root / RUN_DIR / "metrics" / "mae").write_text("1748258003418 0.55 1\n", encoding="utf-8")
    second = commit_all(root, "Log mae again")
    nodes = _load(root, root)
    pins = {t.target: t.ref for t in nodes[WISE_ROO].tethers}
    assert pins[f"{RUN_DIR}/metrics/mae"] == second
    assert pins[f"{RUN_DIR}/metrics/rmse"] == pins[f"{RUN_DIR}/meta.yaml"] == first
    facts = _facts(root, nodes, WISE_ROO)
    assert facts.status == "grounded" and {c.state for c in facts.checks} == {"ok"}
    assert "- mae: 0.55" in nodes[WISE_ROO].body.splitlines()


def test_a_meta_yaml_with_a_byte_order_mark_is_never_pinned_to_other_bytes(tmp_path: Path) -> None:
    root = wild_repo("mlflow-16aryan", tmp_path / "wine")
    meta = root / RUN_DIR / "meta.yaml"
    meta.write_bytes(b"\xef\xbb\xbf" + meta.read_bytes())
    commit_all(root, "A byte order mark")
    nodes = _load(root, root)
    assert nodes[WISE_ROO].title == "Default / wise-roo-476"  # still read
    assert [t.kind for t in nodes[WISE_ROO].tethers] == [TetherKind.RUN]  # the bytes parsed are not the blob


def test_a_committed_model_version_is_grounded_by_its_record_and_its_runs_files(tmp_path: Path) -> None:
    root = wild_repo("mlflow-registry-shisian512", tmp_path / "registry")
    nodes = _load(root, root)
    version = nodes[f"{MODEL}/version-1"]
    run = nodes["data:runs:f590a13e7c98410fbab2558f6bd588df"]
    own = {t.target for t in version.tethers} - {t.target for t in run.tethers}
    assert own == {f"mlruns/models/sk-learn-random-forest-reg-model/version-1/{f}" for f in ("meta.yaml",)} | {
        p.relative_to(root).as_posix()
        for p in (root / "mlruns/models/sk-learn-random-forest-reg-model/version-1/tags").rglob("*")
        if p.is_file()
    }
    assert set(run.tethers) <= set(version.tethers)
    assert {_facts(root, nodes, a).status for a in (MODEL, version.address, run.address)} == {"grounded"}


def test_a_version_whose_record_was_edited_is_only_as_good_as_its_run_tether(tmp_path: Path) -> None:
    root = wild_repo("mlflow-registry-shisian512", tmp_path / "registry")
    record = root / "mlruns/models/sk-learn-random-forest-reg-model/version-1/meta.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("READY", "FAILED_REGISTRATION"), encoding="utf-8")
    nodes = _load(root, root)
    version = nodes[f"{MODEL}/version-1"]
    assert "- status: FAILED_REGISTRATION" in version.body.splitlines()
    assert [t.kind for t in version.tethers] == [TetherKind.RUN]
    assert _facts(root, nodes, version.address).status == "inferred"
    assert {t.kind for t in nodes[MODEL].tethers} == {TetherKind.RUN}  # its body lists that version's status
    assert _facts(root, nodes, MODEL).status == "inferred"
    assert _facts(root, nodes, f"{MODEL}/version-2").status == "grounded"


def test_committed_runs_keep_their_digests_measured_stale_or_uncheckable(tmp_path: Path) -> None:
    pytest.importorskip("mlflow", reason="the mlflow dev dependency writes the mlruns fixture")
    root = make_repo(tmp_path / "invoices")
    ids = mlflow_runs(root)
    commit_all(root, "Invoice latency runs")
    nodes = _load(root, root)
    hashed, dataset, plain = (f"data:runs:{ids[role]}" for role in ("hashed", "dataset", "plain"))
    assert {t.kind for t in nodes[hashed].tethers} == {TetherKind.GIT_PIN, TetherKind.CONTENT_HASH, TetherKind.RUN}
    assert _facts(root, nodes, hashed).status == "measured"  # the weakest of its pins and its verified digest
    # MLflow's short dataset digest can never be checked: grounded by the files, and never measured
    assert {t.kind for t in nodes[dataset].tethers} == {TetherKind.GIT_PIN}
    assert _facts(root, nodes, dataset).status == "grounded"
    assert "not measured: dataset:invoices cannot be checked against bytes" in _verification(nodes[dataset])
    assert _facts(root, nodes, plain).status == "grounded"
    artifact = next(t.target for t in nodes[hashed].tethers if t.kind is TetherKind.CONTENT_HASH)
    (root / artifact).write_text("invoices,seconds\n1000,12\n", encoding="utf-8")
    commit_all(root, "Overwrite the artifact")  # committed, so the pins hold; the recorded digest does not
    nodes = _load(root, root)
    facts = _facts(root, nodes, hashed)
    assert (facts.status, facts.taints) == ("inferred", frozenset({"stale"}))
