"""A run's metrics and parameters are citable units: a claim that copies or restates one is licensed at the run's
status, and one that changes the value, borrows another run's figure or calls a parameter a metric is refused.

The runs are written by the real MLflow file store and read by the real adapters; the claims go through the real
router with the real resolvers, so a digest that does not verify really keeps a run from being measured.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.base import Node, TetherKind
from adapters.mlflow_runs import MlflowAdapter
from adapters.resolvers import workspace_resolvers
from adapters.runs import RunsAdapter
from adapters.runs_body import GROUNDED_NEEDS, MEASURED_NEEDS
from synapse_server.language.atoms import atomic_units
from synapse_server.navigation.claims import Decision
from synapse_server.navigation.substrate import Substrate
from synapse_server.navigation.view import View
from tests.support.engine_builders import answer, decide, view_of
from tests.support.run_fixtures import demand_runs

pytest.importorskip("mlflow", reason="the mlflow dev dependency writes the mlruns fixture")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Node]]:
    root = tmp_path_factory.mktemp("runs") / "repo"
    root.mkdir()
    ids = demand_runs(root)
    result = MlflowAdapter(Path("mlruns"), root).load()
    assert result.diagnostics == ()
    by_address = {n.address: n for n in result.nodes}
    return root, {role: by_address[f"data:runs:{run_id}"] for role, run_id in ids.items()}


@pytest.fixture(scope="module")
def view(runs: tuple[Path, dict[str, Node]]) -> View:
    """The four runs admitted as n1 (baseline), n2 (strong), n3 (unhashed), n4 (tampered)."""
    root, nodes = runs
    ordered = [nodes[role] for role in ("baseline", "strong", "unhashed", "tampered")]
    resolvers = workspace_resolvers(root, None, ordered)
    return view_of(Substrate.build({n.address: n for n in ordered}, resolvers))


def restate(ref: str, text: str, view: View) -> Decision:
    return decide(answer(f"claim c1 [restatement] cites {ref} :: {text}"), view)


def _units(node: Node) -> dict[str, tuple[str, ...]]:
    return {unit.text: unit.headings for unit in atomic_units(node.body)}


def test_each_metric_and_parameter_is_its_own_unit_under_a_section_that_names_the_run(
    runs: tuple[Path, dict[str, Node]],
) -> None:
    node = runs[1]["baseline"]
    units = _units(node)
    assert units["mae: 0.666"] == ("demand-forecast / ridge-baseline", "Metrics of the run")
    assert units["rmse: 0.912"] == ("demand-forecast / ridge-baseline", "Metrics of the run")
    assert units["alpha: 0.5"] == ("demand-forecast / ridge-baseline", "Parameters of the run")
    assert units["team: forecasting"] == ("demand-forecast / ridge-baseline", "Tags of the run")
    assert node.meta["metrics"]["mae"] == 0.666 and node.meta["params"]["alpha"] == "0.5"


def test_a_metric_logged_at_several_steps_gives_its_last_value_and_its_history_in_a_sentence_of_its_own(
    runs: tuple[Path, dict[str, Node]],
) -> None:
    node = runs[1]["baseline"]
    assert "- loss: 0.31. Last of 3 logged values, at step 2." in node.body.splitlines()
    assert "loss: 0.31." in _units(node)
    assert node.meta["metrics"]["loss"] == 0.31


def test_a_runs_folder_record_renders_its_figures_in_the_same_sections(tmp_path: Path) -> None:
    record = tmp_path / "runs" / "run-007" / "run.yaml"
    record.parent.mkdir(parents=True)
    record.write_text("id: run-007\ntitle: Ridge at alpha 0.5\nparams: {alpha: 0.5}\nmetrics: {mae: 0.666}\n", "utf-8")
    (node,) = RunsAdapter(Path("runs"), tmp_path).load().nodes
    units = _units(node)
    assert units["mae: 0.666"] == ("Ridge at alpha 0.5", "Metrics of the run")
    assert units["alpha: 0.5"] == ("Ridge at alpha 0.5", "Parameters of the run")
    line = (
        f"- verification: inferred; the run recorded no hash that can be verified. {MEASURED_NEEDS}. {GROUNDED_NEEDS}."
    )
    assert line in node.body.splitlines()  # the runs/ store has no MLflow tags, so no MLflow hint


HONEST = [
    pytest.param("The run's mae is 0.666.", id="restatement-naming-the-run"),
    pytest.param("mae: 0.666", id="copy-of-the-unit"),
    pytest.param("The MAE of the run is 0.666.", id="of-the-run"),
    pytest.param("The run's mae metric is 0.666.", id="calling-a-metric-a-metric"),
    pytest.param("The run's alpha is 0.5.", id="a-parameter-by-its-name"),
]


@pytest.mark.parametrize("text", HONEST)
def test_a_claim_that_copies_or_restates_a_figure_line_is_licensed_at_the_runs_status(view: View, text: str) -> None:
    decision = restate("n1", text, view)
    assert (decision.verdict, decision.status) == ("answer", "measured"), decision.problem_lines


HOSTILE = [
    pytest.param("n1", "The run's mae is 0.667.", "changed-number", id="changed-metric-value"),
    pytest.param("n1", "The run's mae is 0.812.", "changed-number", id="another-runs-value-on-this-run"),
    pytest.param("n2", "The run's mae is 0.666.", "changed-number", id="this-runs-value-cited-to-another-run"),
    pytest.param("n1", "The run's rmse is 0.666.", "words", id="another-metrics-value"),
    pytest.param("n1", "The run's alpha metric is 0.5.", "words", id="a-parameter-cited-as-a-metric"),
    pytest.param("n1", "The metric alpha is 0.5.", "words", id="a-parameter-called-a-metric"),
    pytest.param("n1", "The run's mae parameter is 0.666.", "words", id="a-metric-cited-as-a-parameter"),
    pytest.param("n1", "The run's loss is 0.9.", "changed-number", id="an-earlier-step-as-the-value"),
]


@pytest.mark.parametrize(("ref", "text", "rule"), HOSTILE)
def test_a_claim_that_changes_borrows_or_mislabels_a_figure_is_refused(
    view: View, ref: str, text: str, rule: str
) -> None:
    decision = restate(ref, text, view)
    assert (decision.verdict, decision.reasons) == ("abstain", ("low-coverage",))
    assert any(line.startswith(f"c1: {rule}:") for line in decision.problem_lines), decision.problem_lines


def test_a_run_that_recorded_no_digest_is_inferred_says_so_and_licenses_nothing(view: View) -> None:
    node = view.graph.nodes[view.address_of("n3") or ""]
    assert node.title == "demand-forecast / lasso-unhashed"
    facts = view.epistemics[node.address]
    assert facts.status == "inferred"
    (line,) = [line for line in node.body.splitlines() if line.startswith("- verification:")]
    assert line.startswith("- verification: inferred; the run recorded no hash that can be verified. ")
    assert f"{MEASURED_NEEDS} (in MLflow: a run tag sha256/<path> for each file" in line  # what measured needs
    assert line.endswith(f" {GROUNDED_NEEDS}.")  # outside git: what grounded needs too
    assert [check.state for check in facts.checks] == ["unverifiable"]
    detail = facts.checks[0].detail
    assert "recorded no sha256 of its inputs and outputs that can be verified, which measured needs" in detail
    assert detail.endswith("and its files are not committed to git unchanged, which grounded needs")
    decision = restate("n3", "The run's mae is 0.7.", view)
    assert decision.verdict == "abstain" and any("unverified" in line for line in decision.problem_lines)


def test_a_run_whose_recorded_digest_does_not_verify_is_never_measured(view: View) -> None:
    node = view.graph.nodes[view.address_of("n4") or ""]
    assert node.title == "demand-forecast / ridge-tampered"
    facts = view.epistemics[node.address]
    assert facts.status == "inferred" and "stale" in facts.taints
    decision = restate("n4", "The run's mae is 0.65.", view)
    assert decision.verdict == "abstain" and decision.status != "measured"


def test_a_run_whose_digest_verifies_is_measured_and_its_verification_line_names_the_file(view: View) -> None:
    node = view.graph.nodes[view.address_of("n1") or ""]
    assert node.title == "demand-forecast / ridge-baseline"
    assert view.epistemics[node.address].status == "measured"
    hashed = [t.target for t in node.tethers if t.kind is TetherKind.CONTENT_HASH]
    assert f"- verification: measured only while every recorded sha256 verifies ({hashed[0]})" in node.body.splitlines()
