"""Runs answer run questions: on an adopted MLflow folder in a real git repository, "What is the MAE of the run?"
is answered from the run's metric line, by the offline navigator and by a scripted model's restatement, and a
restatement of another figure or of a run that recorded no verifiable digest is not published."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.index import Embedder
from synapse_server.isolation.turn import navigate_turn
from synapse_server.navigation.request import NavigateRequest
from synapse_server.workspace.adopt import adopt
from tests.support.engine_builders import answer
from tests.support.fake_model import FakeModel
from tests.support.run_fixtures import README, demand_runs
from tests.support.source_fixtures import commit_all, make_repo

pytest.importorskip("mlflow", reason="the mlflow dev dependency writes the mlruns fixture")

QUESTION = "What is the MAE of the run?"


def _adopted(root: Path, roles: tuple[str, ...]) -> str:
    make_repo(root)
    (root / "README.md").write_text(README, encoding="utf-8")
    (run_id,) = demand_runs(root, roles=roles).values()
    assert [f.source.kind for f in adopt(root).findings] == ["mlflow"]
    commit_all(root, "Demand forecast with its tracked runs")
    return f"data:runs:{run_id}"


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("measured") / "repo"
    return root, _adopted(root, ("baseline",))


@pytest.fixture(scope="module")
def unhashed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("unhashed") / "repo"
    return root, _adopted(root, ("unhashed",))


def _restating(address: str, text: str) -> FakeModel:
    """A model that restates ``text`` citing ``address``, and says it again when the answer is refused once."""
    reply = answer(f"claim c1 [restatement] cites {address} :: {text}")
    return FakeModel(reply, reply)


def test_the_offline_navigator_answers_the_mae_question_from_the_runs_metric_line(
    measured: tuple[Path, str], embedder: Embedder
) -> None:
    root, address = measured
    result = navigate_turn(root, NavigateRequest(question=QUESTION), embedder=embedder)
    assert (result.verdict, result.status) == ("answer", "measured"), result.reasons
    assert result.answer_surface is not None
    assert result.answer_surface.text == "mae: 0.666"
    (citation,) = result.answer_surface.citations
    assert (citation.address, citation.status, citation.quotes) == (address, "measured", ["mae: 0.666"])


def test_a_scripted_restatement_of_the_metric_is_published_at_the_runs_status(
    measured: tuple[Path, str], embedder: Embedder
) -> None:
    root, address = measured
    model = _restating(address, "The run's mae is 0.666.")
    result = navigate_turn(root, NavigateRequest(question=QUESTION), embedder=embedder, model=model)
    assert (result.verdict, result.status) == ("answer", "measured"), result.reasons
    assert result.answer_surface is not None and result.answer_surface.text == "The run's mae is 0.666."
    assert "- mae: 0.666" in model.history[0].text  # the metric line is in the envelope the model read


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("The run's mae is 0.812.", id="another-runs-value"),
        pytest.param("The run's rmse is 0.666.", id="another-metrics-name"),
        pytest.param("The run's alpha metric is 0.5.", id="a-parameter-as-a-metric"),
    ],
)
def test_a_scripted_restatement_that_misreads_the_run_is_not_published(
    measured: tuple[Path, str], embedder: Embedder, text: str
) -> None:
    root, address = measured
    result = navigate_turn(root, NavigateRequest(question=QUESTION), embedder=embedder, model=_restating(address, text))
    assert result.verdict == "abstain" and result.answer_surface is None


def test_a_run_without_a_verifiable_digest_stays_inferred_and_the_abstention_says_so(
    unhashed: tuple[Path, str], embedder: Embedder
) -> None:
    root, address = unhashed
    model = _restating(address, "The run's mae is 0.7.")
    result = navigate_turn(root, NavigateRequest(question=QUESTION), embedder=embedder, model=model)
    assert result.verdict == "abstain" and result.answer_surface is None
    assert f"{address} is inferred" in result.detail
    assert "verification: inferred; the run recorded no hash that can be verified" in model.history[0].text
