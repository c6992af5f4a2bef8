"""The correctness benchmark: its grading, its fixtures, and the offline navigator's figures on them (CI gate)."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.index import Embedder
from dev.synapse_bench.correctness.bench import TARGET, grade, run
from dev.synapse_bench.correctness.fixtures import Case, build_workspace, load_fixtures
from dev.synapse_bench.correctness.foreign import ForeignCase, build_fixture, load_foreign
from dev.synapse_bench.correctness.foreign_bench import (
    BEGIN,
    END,
    ForeignReport,
    Outcome,
    run_foreign,
    section,
    write_report,
)
from dev.synapse_bench.correctness.foreign_bench import grade as foreign_grade
from dev.synapse_bench.report_sections import SECTIONS
from synapse_server.workspace.config import load_workspace

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


# Foreign material: adopted public repositories, graded correct / wrong / miss per repository.

FOREIGN_GOLD = ForeignCase(
    id="x",
    question="Which search library did we choose?",
    kind="answerable",
    gold=("Lunr.js",),
    excludes=("Fuse.js",),
)


@pytest.mark.parametrize(
    ("verdict", "answer", "expected"),
    [
        ("answer", 'Chosen option: "Option 2: Lunr.js".', "correct"),
        ("answer", "We picked lunr js.", "correct"),
        ("answer", "Option 1: Fuse.js, Option 2: Lunr.js", "wrong"),
        ("answer", "We have to provide a search bar to perform full-text search on ADRs.", "wrong"),
        ("abstain", None, "miss"),
    ],
)
def test_a_foreign_answer_is_correct_only_when_it_holds_a_gold_phrase_and_no_excluded_one(
    verdict: str, answer: str | None, expected: str
) -> None:
    assert foreign_grade(FOREIGN_GOLD, verdict, answer) == expected


def test_an_answer_to_a_false_premise_or_unanswerable_question_is_wrong_and_abstaining_is_right() -> None:
    for kind in ("false-premise", "unanswerable"):
        case = ForeignCase(id="p", question="Why Fuse.js?", kind=kind)
        assert foreign_grade(case, "answer", "Option 1: Fuse.js") == "wrong"
        assert foreign_grade(case, "abstain", None) == "abstained"


def test_a_verbatim_gold_tells_a_quote_with_its_brackets_from_one_that_lost_them() -> None:
    case = ForeignCase(id="r", question="Which pattern?", kind="answerable", gold=("[0-5][0-9]",), match="verbatim")
    assert foreign_grade(case, "answer", 'guard deny regex: "\\b0?[0-9]:[0-5][0-9]\\b"') == "correct"
    assert foreign_grade(case, "answer", 'guard deny regex: "\\b0?0-9:0-50-9\\b"') == "wrong"


def test_the_foreign_set_spans_the_promised_material_and_question_kinds() -> None:
    fixtures = load_foreign()
    cases = [case for fixture in fixtures for case in fixture.cases]
    assert len(fixtures) >= 6 and len(cases) >= 80
    assert {case.kind for case in cases} == {"answerable", "false-premise", "unanswerable"}
    assert 0.5 <= sum(case.kind == "answerable" for case in cases) / len(cases) <= 0.7
    files = {
        fixture.name: {p.relative_to(fixture.repo).as_posix() for p in fixture.repo.rglob("*")} for fixture in fixtures
    }
    texts = " ".join(p.read_text(encoding="utf-8") for f in fixtures for p in f.repo.rglob("*.md"))
    assert "## Considered Options" in texts and "Chosen option:" in texts  # MADR with considered options
    assert "Superseded by [" in texts and "superseded by [" in texts  # superseded records in both ADR layouts
    assert any(".obsidian/app.json" in names for names in files.values())
    assert any(any(name.startswith("mlruns/") for name in names) for names in files.values())
    assert any(any(name.endswith(".mem") for name in names) for names in files.values())


def test_a_foreign_gold_phrase_its_evidence_file_does_not_hold_is_refused(tmp_path: Path) -> None:
    fixture = tmp_path / "f"
    (fixture / "repo").mkdir(parents=True)
    (fixture / "repo" / "note.md").write_text("We chose Lunr.js for search.\n", encoding="utf-8")
    (fixture / "LICENSE").write_text("MIT\n", encoding="utf-8")
    case = "{id: a, question: Which library, kind: answerable, gold: [Fuse.js], evidence: note.md}"
    (fixture / "questions.yaml").write_text(
        f"source: {{repository: r, commit: c, licence: MIT, style: s}}\ncases: [{case}]\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"not in note\.md"):
        load_foreign(tmp_path)


def test_every_foreign_fixture_builds_as_a_git_repository_that_adopt_reads_as_its_kind(tmp_path: Path) -> None:
    expected = {"madr": "adr", "log4brains": "adr", "govuk-aws": "adr", "kepano-obsidian": "notes",
                "mlflow-wine": "mlflow", "memdsl-alex": "mem", "memdsl-compliance": "mem"}  # fmt: skip
    for fixture in load_foreign():
        root = build_fixture(fixture, tmp_path / fixture.name)
        assert (root / ".git").is_dir()
        kinds = {source.kind for source in load_workspace(root).config.sources}
        assert kinds == {expected[fixture.name]}, fixture.name


def test_the_foreign_report_section_sits_between_the_markers_the_perf_report_keeps(tmp_path: Path) -> None:
    assert (BEGIN, END) in SECTIONS
    report = ForeignReport([Outcome("repo", "a", "answerable", "wrong", "answer", (), "x | y", ())])
    text = section(report, {"repo": "ADRs"}, "2026-01-01")
    path = tmp_path / "REPORT.md"
    path.write_text(f"# Report\n\n{BEGIN}\nstale figures\n{END}\n\ntail\n", encoding="utf-8")
    write_report(path, text)
    written = path.read_text(encoding="utf-8")
    assert "stale figures" not in written and written.endswith("\n\ntail\n")
    assert "| `repo` | 1 | 1: 0 / 1 / 0 | 0: 0 / 0 | 1 |" in written
    assert "“x \\| y”" in written


def test_the_offline_navigator_publishes_no_wrong_answer_on_the_memdsl_guards(
    embedder: Embedder, tmp_path: Path
) -> None:
    """A small fixture end to end: build, adopt, navigate every case; its guard regex must keep its brackets."""
    fixture = next(f for f in load_foreign() if f.name == "memdsl-compliance")
    report = run_foreign((fixture,), tmp_path, embedder)
    assert [o.case_id for o in report.outcomes] == [case.id for case in fixture.cases]
    assert all((o.verdict == "answer") == (o.grade in ("correct", "wrong")) for o in report.outcomes)
    assert [(o.case_id, o.answer) for o in report.outcomes if o.grade == "wrong"] == []
    assert report.adopted["memdsl-compliance"].startswith("mem `examples/compliance`; lint: ")


def test_on_every_foreign_repository_the_offline_navigator_publishes_no_wrong_answer_and_answers_two_in_five(
    embedder: Embedder, tmp_path: Path
) -> None:
    """The offline-navigator issue's done-when, end to end on the seven adopted public repositories."""
    report = run_foreign(load_foreign(), tmp_path, embedder)
    assert [(o.repository, o.case_id, o.answer) for o in report.outcomes if o.grade == "wrong"] == []
    unanswerable = [o for o in report.outcomes if o.kind != "answerable"]
    assert unanswerable and all(o.grade == "abstained" for o in unanswerable)
    answerable = [o for o in report.outcomes if o.kind == "answerable"]
    assert sum(o.grade == "correct" for o in answerable) >= 0.4 * len(answerable)
