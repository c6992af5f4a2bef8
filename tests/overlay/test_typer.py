"""Relation typers: the offline typer claims only what a rule establishes; the LLM typer parses strictly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.base import Node
from synapse_server.models import ModelExhausted, resolve_model
from synapse_server.overlay.candidates import PairEvidence
from synapse_server.overlay.model import RELATIONS
from synapse_server.overlay.typer import (
    EXTRACTIVE_TYPER,
    ExtractiveTyper,
    LLMTyper,
    Skip,
    TypedEdge,
    make_typer,
    parse_typing_reply,
    typing_prompt,
)
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.stores import Stores

DECISION = "mem:tree:deci-e17103e8"
CLAIM = "zk:research:20260407-1030-costs-reduce-returns"
QUESTION = "zk:execution:20260602-0900-calibrate-impact"
SCALING = "zk:research:20260505-0900-volatility-scaling-helps"

SEMANTIC = PairEvidence(("semantic",), 0.6123)
SHARED = PairEvidence(("semantic", "provenance"), 0.41, ("models/costs.py",))


@pytest.fixture(scope="module")
def nodes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Node]:
    root = make_demo(tmp_path_factory.mktemp("typer") / "demo")
    return dict(Stores.load(load_workspace(root), ("memory", "zk")).nodes)


def _script(tmp_path: Path, replies: list[object]) -> LLMTyper:
    (tmp_path / "replies.json").write_text(json.dumps(replies), encoding="utf-8")
    return LLMTyper(resolve_model("script:replies.json", cwd=tmp_path))


def _reply(
    relation: str, confidence: object = 0.9, rationale: str = "The decision raised costs the claim warns about."
) -> str:
    return json.dumps({"relation": relation, "confidence": confidence, "rationale": rationale})


def test_the_offline_typer_types_a_shared_file_as_related_on_a_shared_file_basis_naming_the_path(
    nodes: dict[str, Node],
) -> None:
    edge = ExtractiveTyper().type_pair(nodes[DECISION], nodes[CLAIM], SHARED)
    assert isinstance(edge, TypedEdge)
    assert (edge.relation, edge.confidence, edge.typer, edge.basis) == ("related", 0.8, EXTRACTIVE_TYPER, "shared-file")
    assert edge.rationale.startswith("Shared file only:") and "not judged" in edge.rationale
    assert "models/costs.py" in edge.rationale and "not an LLM" in edge.rationale


def test_the_offline_typer_never_types_applies(nodes: dict[str, Node]) -> None:
    outcomes = [
        ExtractiveTyper().type_pair(nodes[practice], nodes[canon], evidence)
        for practice in (DECISION,)
        for canon in (CLAIM, QUESTION, SCALING)
        for evidence in (SEMANTIC, SHARED)
    ]
    assert {o.relation for o in outcomes if isinstance(o, TypedEdge)} == {"related"}


def test_shared_provenance_keeps_a_higher_cosine_as_the_confidence(nodes: dict[str, Node]) -> None:
    evidence = PairEvidence(("semantic", "provenance"), 0.93, ("models/costs.py",))
    edge = ExtractiveTyper().type_pair(nodes[DECISION], nodes[CLAIM], evidence)
    assert isinstance(edge, TypedEdge) and (edge.relation, edge.confidence, edge.basis) == (
        "related",
        0.93,
        "shared-file",
    )


def test_the_offline_typer_types_a_semantic_pair_as_related_with_its_cosine(nodes: dict[str, Node]) -> None:
    edge = ExtractiveTyper().type_pair(nodes[DECISION], nodes[SCALING], SEMANTIC)
    assert isinstance(edge, TypedEdge)
    assert (edge.relation, edge.confidence, edge.typer, edge.basis) == ("related", 0.6123, EXTRACTIVE_TYPER, "cosine")
    assert "cosine 0.61" in edge.rationale


def test_a_shared_path_never_ties_the_practice_to_a_question(nodes: dict[str, Node]) -> None:
    edge = ExtractiveTyper().type_pair(nodes[DECISION], nodes[QUESTION], SHARED)
    assert isinstance(edge, TypedEdge) and (edge.relation, edge.confidence, edge.basis) == ("related", 0.41, "cosine")


def test_the_offline_typer_skips_a_pair_it_has_nothing_to_say_about(nodes: dict[str, Node]) -> None:
    outcome = ExtractiveTyper().type_pair(
        nodes[DECISION], nodes[QUESTION], PairEvidence(("provenance",), None, ("x.py",))
    )
    assert isinstance(outcome, Skip)


def test_no_model_and_the_extractive_spec_both_give_the_offline_typer(tmp_path: Path) -> None:
    assert make_typer(None).identity == EXTRACTIVE_TYPER
    assert make_typer(resolve_model("extractive")).identity == EXTRACTIVE_TYPER
    (tmp_path / "reply.txt").write_text(_reply("related"), encoding="utf-8")
    assert make_typer(resolve_model("script:reply.txt", cwd=tmp_path)).identity == "script:reply.txt"


def test_a_scripted_model_types_a_pair_as_contradicts_and_an_invalid_reply_skips(
    nodes: dict[str, Node], tmp_path: Path
) -> None:
    typer = _script(tmp_path, [_reply("contradicts", 0.85), "I think they contradict each other."])
    edge = typer.type_pair(nodes[DECISION], nodes[CLAIM], SHARED)
    assert edge == TypedEdge(
        "contradicts", 0.85, "The decision raised costs the claim warns about.", "script:replies.json"
    )
    assert isinstance(typer.type_pair(nodes[DECISION], nodes[SCALING], SEMANTIC), Skip)


def test_a_provider_failure_raises_instead_of_being_counted_as_a_skip(nodes: dict[str, Node], tmp_path: Path) -> None:
    typer = _script(tmp_path, [])
    with pytest.raises(ModelExhausted):
        typer.type_pair(nodes[DECISION], nodes[CLAIM], SHARED)


@pytest.mark.parametrize(
    "reply",
    [
        "contradicts",
        "",
        "[]",
        _reply("contradicts") + "\n" + _reply("related"),
        "Sure! " + _reply("contradicts"),
        _reply("supports"),
        _reply("Contradicts"),
        _reply("related", 1.5),
        _reply("related", -0.1),
        _reply("related", True),
        _reply("related", "0.9"),
        _reply("related", 0.9, "   "),
        _reply("related", 0.9, "x" * 401),
        json.dumps({"relation": "related", "confidence": 0.9}),
        json.dumps({"relation": "related", "confidence": 0.9, "rationale": "r", "note": "extra"}),
        json.dumps({"relation": "related", "confidence": 0.9, "rationale": 7}),
    ],
)
def test_every_malformed_reply_is_skipped_never_guessed(reply: str) -> None:
    assert isinstance(parse_typing_reply(reply, "script:x"), Skip)


def test_a_reply_in_one_json_fence_is_accepted_and_its_rationale_kept_on_one_line() -> None:
    reply = "```json\n" + _reply("motivated-by", 1, "Raised\n  costs   after the TCA.") + "\n```"
    assert parse_typing_reply(reply, "t") == TypedEdge("motivated-by", 1.0, "Raised costs after the TCA.", "t")


def test_every_relation_is_accepted() -> None:
    for relation in RELATIONS:
        edge = parse_typing_reply(_reply(relation, 0.5), "t")
        assert isinstance(edge, TypedEdge) and edge.relation == relation


def test_the_prompt_carries_both_texts_the_evidence_and_the_reply_contract(nodes: dict[str, Node]) -> None:
    prompt = typing_prompt(nodes[DECISION], nodes[CLAIM], SHARED)
    assert "PRACTICE mem:tree:deci-e17103e8 (kind decision, status superseded)" in prompt
    assert "CANON zk:research:20260407-1030-costs-reduce-returns (type claim, claim strength strong)" in prompt
    assert "Transaction costs increased from 5 bps to 8 bps." in prompt
    assert nodes[CLAIM].body.strip().splitlines()[0] in prompt
    assert "cosine similarity 0.41; both are about models/costs.py" in prompt
    assert all(relation in prompt for relation in RELATIONS)
    assert "exactly one JSON object" in prompt
