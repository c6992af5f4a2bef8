"""Every licensing rule's registered example, replayed through the real router: the passing answer answers, the
refused one abstains with exactly the registered refusal line, and docs/grounding.md shows the registry as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from synapse_server.licensing.docs import rules_markdown
from synapse_server.licensing.rules import REGISTRY, Example, Rule, RuleId
from tests.support.engine_builders import answer, decide, node, world

GROUNDING = Path(__file__).resolve().parents[2] / "docs" / "grounding.md"


def replay(example: Example, lines: str):  # type: ignore[no-untyped-def]
    view = world(*(node(f"mem:tree:ex{i}", body, title=title) for i, (title, body) in enumerate(example.nodes)))
    claims = lines.split("\n")
    conclude = claims[-1].split(" ", 2)[1]
    return decide(answer(*claims, conclude=conclude), view)


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda entry: entry.id.value)
def test_a_rules_passing_example_answers(entry: Rule) -> None:
    decision = replay(entry.example, entry.example.passes)
    assert decision.verdict == "answer", decision.problem_lines


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda entry: entry.id.value)
def test_a_rules_refused_example_abstains_with_its_registered_line(entry: Rule) -> None:
    decision = replay(entry.example, entry.example.refused)
    assert decision.verdict == "abstain"
    assert entry.example.refusal in decision.problem_lines, decision.problem_lines


def test_every_rule_id_is_registered_once() -> None:
    assert sorted(entry.id for entry in REGISTRY) == sorted(RuleId)


def test_grounding_doc_lists_the_registry_as_it_is() -> None:
    text = GROUNDING.read_text(encoding="utf-8")
    assert rules_markdown() in text, "regenerate with: python -m synapse_server.licensing.docs"
