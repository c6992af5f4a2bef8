"""Runs answer run questions: on an adopted MLflow folder in a real git repository, "What is the MAE of the run?"
is answered from the run's metric line, by the offline navigator and by a scripted model's restatement, at the
run's status: measured where its digest verifies, grounded where it recorded none but its files are committed.
A restatement of another figure is not published, and neither is anything about a run git does not vouch for (a
metric edited after the commit, an mlruns folder never committed): the abstention says why the run is inferred.
"""

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
from tests.support.source_fixtures import commit_all, git, make_repo

pytest.importorskip("mlflow", reason="the mlflow dev dependency writes the mlruns fixture")

QUESTION = "What is the MAE of the run?"


def _adopted(root: Path, roles: tuple[str, ...], *, commit_runs: bool = True) -> str:
    make_repo(root)
    (root / "README.md").write_text(README, encoding="utf-8")
    (run_id,) = demand_runs(root, roles=roles).values()
    assert [f.source.kind for f in adopt(root).findings] == ["mlflow"]
    if commit_runs:
        commit_all(root, "Demand forecast with its tracked runs")
    else:
        git(root, "add", "--all", "--", ".", ":(exclude)mlruns")
        git(root, "commit", "--quiet", "-m", "Demand forecast; the runs are not committed")
    return f"data:runs:{run_id}"


def _metric_file(root: Path, name: str) -> Path:
    (path,) = root.glob(f"mlruns/*/*/metrics/{name}")
    return path


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("measured") / "repo"
    return root, _adopted(root, ("baseline",))


@pytest.fixture(scope="module")
def unhashed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A run that recorded no digest (mae 0.7), committed."""
    root = tmp_path_factory.mktemp("unhashed") / "repo"
    return root, _adopted(root, ("unhashed",))


@pytest.fixture(scope="module")
def edited(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The same run committed, then its metric file edited to say mae 0.75: no commit says that."""
    root = tmp_path_factory.mktemp("edited") / "repo"
    address = _adopted(root, ("unhashed",))
    mae = _metric_file(root, "mae")
    mae.write_bytes(mae.read_bytes().replace(b" 0.7 ", b" 0.75 "))
    assert git(root, "status", "--porcelain", "--", "mlruns").split()[0] == "M"  # modified, not staged
    return root, address


@pytest.fixture(scope="module")
def uncommitted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The same run in an mlruns folder nobody committed."""
    root = tmp_path_factory.mktemp("uncommitted") / "repo"
    address = _adopted(root, ("unhashed",), commit_runs=False)
    assert git(root, "status", "--porcelain", "--", "mlruns").startswith("?? ")
    return root, address


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


def test_a_committed_run_without_a_digest_is_answered_grounded_by_its_files(
    unhashed: tuple[Path, str], embedder: Embedder
) -> None:
    root, address = unhashed
    result = navigate_turn(root, NavigateRequest(question=QUESTION), embedder=embedder)
    assert (result.verdict, result.status) == ("answer", "grounded"), result.detail
    assert result.answer_surface is not None and result.answer_surface.text == "mae: 0.7"
    (citation,) = result.answer_surface.citations
    assert (citation.address, citation.status) == (address, "grounded")
    model = _restating(address, "The run's mae is 0.7.")
    scripted = navigate_turn(root, NavigateRequest(question=QUESTION), embedder=embedder, model=model)
    assert (scripted.verdict, scripted.status) == ("answer", "grounded"), scripted.detail
    assert "verification: grounded in its files as committed to git; not measured:" in model.history[0].text


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        pytest.param("The run's mae is 0.75.", "changed-number", id="a-value-the-file-does-not-hold"),
        pytest.param("The run's mae is 0.666.", "changed-number", id="another-runs-value"),
        pytest.param("The run's alpha is 0.7.", "words", id="the-metrics-value-as-a-parameter"),
    ],
)
def test_a_claim_stating_another_value_than_the_committed_file_is_refused(
    unhashed: tuple[Path, str], embedder: Embedder, text: str, rule: str
) -> None:
    root, address = unhashed
    result = navigate_turn(root, NavigateRequest(question=QUESTION), embedder=embedder, model=_restating(address, text))
    assert result.verdict == "abstain" and result.answer_surface is None
    # the run is grounded: it is the claim that is not licensed, by the rule that reads figures and words
    assert result.detail.startswith(f"no verified clause says what the answer claims ({rule}: ")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("The run's mae is 0.75.", id="what-the-edited-file-says"),
        pytest.param("The run's mae is 0.7.", id="what-the-commit-says"),
    ],
)
def test_a_metric_edited_after_its_commit_answers_nothing_and_the_abstention_says_why(
    edited: tuple[Path, str], embedder: Embedder, text: str
) -> None:
    root, address = edited
    model = _restating(address, text)
    result = navigate_turn(root, NavigateRequest(question=QUESTION), embedder=embedder, model=model)
    assert result.verdict == "abstain" and result.answer_surface is None
    assert "- mae: 0.75" in model.history[0].text  # the envelope shows the working copy, marked inferred
    assert f"{address} is inferred: run {address.removeprefix('data:runs:')} recorded no sha256" in result.detail
    assert result.detail.endswith("and its files are not committed to git unchanged, which grounded needs.")
    offline = navigate_turn(root, NavigateRequest(question=QUESTION), embedder=embedder)
    assert offline.verdict == "abstain" and offline.answer_surface is None


def test_a_run_git_does_not_track_stays_inferred_and_the_abstention_says_what_each_status_needs(
    uncommitted: tuple[Path, str], embedder: Embedder
) -> None:
    root, address = uncommitted
    model = _restating(address, "The run's mae is 0.7.")
    result = navigate_turn(root, NavigateRequest(question=QUESTION), embedder=embedder, model=model)
    assert result.verdict == "abstain" and result.answer_surface is None
    run = address.removeprefix("data:runs:")
    assert (
        f"{address} is inferred: run {run} recorded no sha256 of its inputs and outputs that can be verified, "
        "which measured needs, and its files are not committed to git unchanged, which grounded needs."
    ) in result.detail
    assert "verification: inferred; the run recorded no hash that can be verified" in model.history[0].text
    offline = navigate_turn(root, NavigateRequest(question=QUESTION), embedder=embedder)
    assert offline.verdict == "abstain" and offline.answer_surface is None
