"""On the demo workspace, every offline answer restates the sentence its question is about (or a listed alternate)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adapters.index import Embedder
from synapse_server.demo import load_questions
from synapse_server.isolation.turn import navigate_turn
from synapse_server.navigation.request import NavigateRequest
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import Stores

pytestmark = pytest.mark.both_backends

ANSWERED = [case for case in load_questions()["questions"] if case["expect"]["verdict"] == "answer"]


@pytest.fixture(scope="module")
def demo(indexed_copy: Callable[[str], Path]) -> tuple[Path, Stores]:
    root = indexed_copy("extractive")
    return root, Stores.load(load_workspace(root))


@pytest.mark.parametrize("case", ANSWERED, ids=[case["id"] for case in ANSWERED])
def test_the_offline_answer_is_the_questions_own_evidence_sentence(
    demo: tuple[Path, Stores], embedder: Embedder, case: dict[str, Any]
) -> None:
    root, stores = demo
    result = navigate_turn(root, NavigateRequest(question=case["question"]), embedder=embedder, stores=stores, env={})
    expected = [case["evidence"], *case.get("alternates", [])]
    surface = result.answer_surface
    assert surface is not None
    assert (surface.text, surface.citations[0].address) in {(e["sentence"], e["address"]) for e in expected}
