"""The correctness benchmark: its grading, its fixtures, and the offline navigator's figures on them (CI gate)."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.index import Embedder
from dev.synapse_bench.correctness.bench import TARGET, grade, run
from dev.synapse_bench.correctness.fixtures import Case, build_workspace, load_fixtures

GOLD = Case(
    id="x",
    about="",
    question="Why?",
    kind="answerable",
    correct=("Dates now sort lexically, so a directory listing doubles as a timeline.",),
    partial=("We will write every record date in ISO 8601 format, YYYY-MM-DD.",),
)


@pytest.mark.parametrize(
    ("verdict", "answer", "expected"),
    [
        ("answer", "Dates now sort lexically, so a directory listing doubles as a timeline.", "correct"),
        ("answer", "dates now sort lexically", "correct"),
        ("answer", "We will write every record date in ISO 8601 format, YYYY-MM-DD.", "partial"),
        ("answer", "Older records keep their original dates until they are next edited.", "wrong"),
        ("answer", "Dates now sort", "correct"),
        ("abstain", None, "abstained"),
    ],
)
def test_an_answer_is_graded_against_its_gold_sentences_or_their_clauses(
    verdict: str, answer: str | None, expected: str
) -> None:
    assert grade(GOLD, verdict, answer) == expected


def test_any_answer_to_a_false_premise_is_wrong_and_its_abstention_is_not() -> None:
    premise = Case(id="p", about="", question="Why Python?", kind="false-premise")
    assert grade(premise, "answer", "We will implement the command-line tool in Go.") == "wrong"
    assert grade(premise, "abstain", None) == "abstained"


def test_every_gold_sentence_lives_in_a_record_and_both_layouts_are_present() -> None:
    fixtures = load_fixtures()
    assert {record.layout for record in fixtures.records} == {"nygard", "madr"}
    assert {record.status for record in fixtures.records} == {"active", "superseded"}
    kinds = {case.kind for case in fixtures.cases}
    assert kinds == {"answerable", "false-premise", "absent"}


def test_a_gold_sentence_that_no_record_holds_is_refused(tmp_path: Path) -> None:
    data = Path(__file__).resolve().parents[2] / "dev" / "synapse_bench" / "correctness" / "data"
    (tmp_path / "adrs.yaml").write_text((data / "adrs.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "questions.yaml").write_text(
        "version: 1\ncases:\n- id: a\n  about: x\n  question: Why\n  kind: answerable\n  correct: [Not in any record.]\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="not in any record"):
        load_fixtures(tmp_path)


def test_the_offline_navigator_gives_no_wrong_answer_and_answers_most_questions(
    embedder: Embedder, tmp_path: Path
) -> None:
    fixtures = load_fixtures()
    root = build_workspace(tmp_path / "tessera", fixtures)
    report = run(fixtures, root, embedder)
    wrong = [(case.case_id, case.answer) for case in report.cases if case.grade == "wrong"]
    assert wrong == []
    assert report.correct_share >= TARGET
    assert all(case.grade == "abstained" for case in report.cases if case.kind != "answerable")
