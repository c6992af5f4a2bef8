"""One navigate turn end to end on the demo workspace: every demo question gets its expected verdict."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from adapters.index import Embedder
from synapse_server.demo import load_questions
from synapse_server.errors import InvalidInput
from synapse_server.isolation.turn import navigate_turn
from synapse_server.language.atoms import atomic_units, restatement_targets
from synapse_server.models.base import Model
from synapse_server.navigation.epistemics import OUTDATED_DISCLOSURE
from synapse_server.navigation.request import NavigateRequest
from synapse_server.navigation.surfaces import NavigateResult
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import SourceFailure, Stores
from tests.support.fake_model import FakeModel

pytestmark = pytest.mark.both_backends

QUESTIONS = load_questions()
CASES: dict[str, dict[str, Any]] = {case["id"]: case for case in QUESTIONS["questions"]}
OUTDATED_ADDRESS = "mem:tree:deci-e17103e8"


@pytest.fixture(scope="module")
def demo(indexed_copy: Callable[[str], Path]) -> Path:
    return indexed_copy("turn")


@pytest.fixture(scope="module")
def stores(demo: Path) -> Stores:
    return Stores.load(load_workspace(demo))


def navigate(
    demo: Path,
    embedder: Embedder,
    question: str,
    *,
    model: Model | None = None,
    stores: Stores | None = None,
    **fields: Any,
) -> NavigateResult:
    """One turn; ``fields`` are request fields (budgets, ``projects``, a ``model`` spec as ``spec``)."""
    if "spec" in fields:
        fields["model"] = fields.pop("spec")
    request = NavigateRequest(question=question, **fields)
    return navigate_turn(demo, request, embedder=embedder, stores=stores, model=model, env={})


@pytest.mark.parametrize("case_id", list(CASES))
def test_every_demo_question_gets_its_expected_outcome(demo: Path, embedder: Embedder, case_id: str) -> None:
    case = CASES[case_id]
    expect = case["expect"]
    result = navigate(demo, embedder, case["question"])
    assert result.verdict == expect["verdict"]
    assert result.model.provider == "extractive"
    if expect["verdict"] == "answer":
        surface = result.answer_surface
        assert surface is not None
        assert (result.status, surface.status) == (expect["status"], expect["status"])
        assert (result.outdated, surface.outdated) == (expect["outdated"], expect["outdated"])
        assert surface.disclosure == expect.get("disclosure")
        assert (result.reasons, result.halted_reason) == ([], "answer")
        assert result.trace_surface is not None and result.trace_surface.verdict == "answer"
    else:
        assert result.answer_surface is None and result.status is None
        assert result.reasons[:1] == [expect["reason"]]
        assert result.halted_reason == "abstain"


def test_the_outdated_answer_cites_the_outdated_pin_with_the_canonical_disclosure(
    demo: Path, embedder: Embedder
) -> None:
    result = navigate(demo, embedder, CASES["cost-increase"]["question"])
    assert result.answer_surface is not None and result.trace_surface is not None
    assert QUESTIONS["disclosure"] == OUTDATED_DISCLOSURE
    assert [(c.address, c.outdated) for c in result.answer_surface.citations] == [(OUTDATED_ADDRESS, True)]
    # the demo's cost decision is also marked superseded: the trace carries both disclosures, outdated first
    superseded = f"{OUTDATED_ADDRESS} is not current (status: superseded)"
    assert result.trace_surface.disclosures == [OUTDATED_DISCLOSURE, superseded]
    assert result.answer_surface.superseded_disclosures == [superseded]


def test_the_same_request_twice_gives_byte_identical_json(demo: Path, embedder: Embedder) -> None:
    for case_id in ("cost-increase", "breakeven-cost"):
        first = navigate(demo, embedder, CASES[case_id]["question"]).model_dump_json()
        again = navigate(demo, embedder, CASES[case_id]["question"]).model_dump_json()
        assert first == again


def test_a_scripted_model_citing_the_outdated_node_gets_the_disclosure(
    demo: Path, embedder: Embedder, tmp_path: Path
) -> None:
    sentence = CASES["cost-increase"]["evidence"]["sentence"]
    reply = (
        "@memdsl.out/2\n@answer\n"
        f"claim c1 [restatement] cites {OUTDATED_ADDRESS} :: {sentence}\n"
        f"claim c2 [deduction] from c1 :: {sentence}\n"
        f"prose :: {sentence}\ncite c2 :: {sentence}\nconclude c2\n"
    )
    script = tmp_path / "replies.json"
    script.write_text(json.dumps([reply]), encoding="utf-8")
    result = navigate(demo, embedder, CASES["cost-increase"]["question"], spec=f"script:{script}")
    assert (result.verdict, result.status, result.outdated) == ("answer", "grounded", True)
    assert result.answer_surface is not None
    assert (result.answer_surface.disclosure, result.answer_surface.inference_form) == (
        OUTDATED_DISCLOSURE,
        "deduction",
    )
    assert result.answer_surface.premise_claim_ids == ["c1"]
    assert result.model.provider == "script"


def test_no_body_title_or_path_leaks_into_the_public_surfaces_beyond_each_citations_title_and_verbatim_quote(
    demo: Path, embedder: Embedder, stores: Stores
) -> None:
    for case_id in ("volatility-target", "baseline-sharpe", "premium-before-costs", "cost-increase"):
        result = navigate(demo, embedder, CASES[case_id]["question"])
        assert result.answer_surface is not None and result.trace_surface is not None
        for row in result.answer_surface.citations:
            cited = stores.nodes[row.address]
            assert row.title == cited.title
            assert row.quotes, (case_id, row.address)  # the demo's answers restate their sources verbatim
            assert set(row.quotes) <= {u.text for u in restatement_targets(cited.body)} | {cited.title}
        own = {"citations": {"__all__": {"title", "quotes"}}}
        public = result.answer_surface.model_dump_json(exclude=own) + result.trace_surface.model_dump_json()
        public = public.replace(result.answer_surface.text, "")  # the router-approved restatement itself
        for address in stores.nodes:
            public = public.replace(address, "")
        for node in stores.nodes.values():
            assert node.title not in public, (case_id, node.address)
            assert node.path is None or node.path not in public, (case_id, node.address)
            for unit in atomic_units(node.body):
                assert unit.text not in public, (case_id, node.address)


def test_a_failed_store_is_a_missing_gap_not_a_failed_turn(demo: Path, embedder: Embedder, stores: Stores) -> None:
    failure = SourceFailure("zk", "zk:all:*", "zk store failed to load: OSError")
    broken = replace(stores, failures=(failure,))
    result = navigate(demo, embedder, CASES["volatility-target"]["question"], stores=broken)
    assert result.verdict == "answer"
    assert "gap missing zk:all:* zk store failed to load: OSError" in result.envelope.splitlines()


def test_a_first_prompt_over_the_token_budget_halts_before_the_model_is_called(demo: Path, embedder: Embedder) -> None:
    model = FakeModel()
    result = navigate(demo, embedder, CASES["volatility-target"]["question"], token_budget=256, model=model)
    assert model.history == []
    assert (result.verdict, result.reasons, result.halted_reason, result.loop_break) == (
        "abstain",
        [],
        "budget",
        "budget",
    )
    assert result.answer_surface is None and result.trace_surface is None


def test_a_provider_error_is_an_operational_failure_without_surfaces(demo: Path, embedder: Embedder) -> None:
    result = navigate(demo, embedder, CASES["volatility-target"]["question"], model=FakeModel())
    assert (result.verdict, result.halted_reason, result.reasons) == ("failure", "internal-error", [])
    assert result.answer_surface is None and result.trace_surface is None


@pytest.mark.parametrize(
    ("max_nodes", "hops", "nodes"),
    [
        pytest.param(1, 0, 1, id="hard-cap-one"),
        pytest.param(3, 2, 3, id="hard-cap-three"),
    ],
)
def test_max_nodes_bounds_the_rendered_envelope(
    demo: Path, embedder: Embedder, max_nodes: int, hops: int, nodes: int
) -> None:
    result = navigate(demo, embedder, CASES["volatility-target"]["question"], max_nodes=max_nodes, hops=hops)
    assert sum(line.startswith("node ") for line in result.envelope.splitlines()) == nodes


def test_render_max_body_chars_elides_bodies_in_the_envelope(demo: Path, embedder: Embedder) -> None:
    result = navigate(demo, embedder, CASES["volatility-target"]["question"], render_max_body_chars=20)
    assert any(line.startswith("gap elided ") for line in result.envelope.splitlines())
    assert result.verdict == "abstain"  # the extractive navigator never restates a cut unit


def test_an_unknown_project_is_invalid_input(demo: Path, embedder: Embedder) -> None:
    with pytest.raises(InvalidInput) as raised:
        navigate(demo, embedder, "What?", projects=["nope"])
    assert raised.value.detail["parameter"] == "projects"
