"""Project evaluation: a redacted corpus runs against its workspace and reports the two safety figures."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from dev.synapse_bench.canonical.workspaces import Workbench
from dev.synapse_bench.project_eval import (
    CORPUS_DIR,
    ProjectCorpus,
    evaluate,
    figures,
    load_project_corpus,
    local_corpora,
)


def test_the_committed_demo_corpus_runs_on_the_demo_with_no_unsafe_answer(workbench: Workbench) -> None:
    corpus = load_project_corpus(CORPUS_DIR / "demo.yaml")
    results = evaluate(workbench.path("demo"), [("demo", corpus)], "extractive", workbench.embedder)
    total = figures(results)
    assert (total["cases"], total["unsafe_answers"], total["false_abstentions"]) == (20, 0, 0)
    # Every verdict, status and reason matches; the extractive navigator may still cite other evidence than
    # the corpus names (it answers current-cost-model from a literature synthesis), which fails only that case.
    assert all(m.startswith("evidence: ") for r in results for m in r.mismatches)


def test_an_answer_citing_none_of_the_expected_evidence_fails(workbench: Workbench) -> None:
    corpus = ProjectCorpus.model_validate(
        {
            "version": 1,
            "cases": [
                {
                    "id": "wrong-evidence",
                    "question": "What annualised volatility target do the momentum positions use?",
                    "expect": {"verdict": "answer", "status": "grounded"},
                    "evidence": ["mem:tree:deci-00000000"],
                }
            ],
        }
    )
    [result] = evaluate(workbench.path("demo"), [("inline", corpus)], "extractive", workbench.embedder)
    assert not result.passed and not result.unsafe
    assert result.mismatches[0].startswith("evidence: cited ['mem:tree:deci-c3d4e5f6']")


def test_the_redacted_format_has_no_place_for_answer_text() -> None:
    with pytest.raises(ValidationError):
        ProjectCorpus.model_validate(
            {
                "version": 1,
                "cases": [
                    {"id": "x", "question": "q?", "expect": {"verdict": "answer"}, "answer": "the private answer"}
                ],
            }
        )


def test_local_cases_are_read_only_from_the_workspace_eval_folder(tmp_path: Path) -> None:
    folder = tmp_path / ".synapse" / "eval"
    folder.mkdir(parents=True)
    for name in ("b.local.yaml", "a.local.yaml", "shared.yaml"):
        (folder / name).write_text("version: 1\ncases: []\n", encoding="utf-8")
    assert [p.name for p in local_corpora(tmp_path)] == ["a.local.yaml", "b.local.yaml"]
