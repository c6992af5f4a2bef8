"""``python -m dev.synapse_bench correctness``: does the offline navigator answer the question it was asked?

Every case runs one real navigate turn (the product's ``navigate_turn``, the
``extractive`` model, the real router) on the fixture workspace, and is graded:

- ``correct``: an answer whose sentence (or a clause of it) is one of the case's ``correct`` sentences;
- ``partial``: an answer from its ``partial`` list (true and on topic, but not the whole answer);
- ``wrong``: any other answer, and any answer to a false-premise or absent question;
- ``abstained``: no answer (for a false-premise or absent question that is the right outcome).

``--check`` exits 1 when any answer is wrong or fewer than ``TARGET`` of the
answerable questions are answered correctly. A test runs it in CI.

``--set foreign`` runs the second set instead (or beside it, the default ``all``):
adopted public repositories graded correct / wrong / miss per repository
(``foreign_bench.py``); ``--write-report`` rewrites its section of REPORT.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

from dev.synapse_bench.canonical.cli import quiet_logs
from dev.synapse_bench.correctness.fixtures import Case, Fixtures, build_workspace, load_fixtures
from dev.synapse_bench.correctness.foreign import load_foreign
from dev.synapse_bench.correctness.foreign_bench import TARGET as FOREIGN_TARGET
from dev.synapse_bench.correctness.foreign_bench import print_foreign, run_foreign
from dev.synapse_bench.correctness.foreign_bench import section as foreign_section
from dev.synapse_bench.correctness.foreign_bench import table as foreign_table
from dev.synapse_bench.correctness.foreign_bench import write_report as write_foreign_report
from synapse_server.demo.gitreplay import git
from synapse_server.errors import SynapseError
from synapse_server.isolation.turn import navigate_turn
from synapse_server.language.text import normalise_words
from synapse_server.navigation.extractive import ExtractiveModel
from synapse_server.navigation.request import NavigateRequest
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import Stores, make_embedder

if TYPE_CHECKING:
    from adapters.index.embedder import TextEncoder

TARGET = 0.6
"""Share of answerable questions that must be answered correctly (the rest may abstain, none may be wrong)."""

Grade = Literal["correct", "partial", "wrong", "abstained"]


@dataclass(frozen=True)
class Graded:
    case_id: str
    kind: str
    grade: Grade
    verdict: str
    reasons: tuple[str, ...]
    answer: str | None
    citations: tuple[str, ...]


@dataclass
class Report:
    cases: list[Graded] = field(default_factory=list)

    def count(self, grade: Grade, *, answerable: bool | None = None) -> int:
        return sum(
            1
            for case in self.cases
            if case.grade == grade and (answerable is None or (case.kind == "answerable") == answerable)
        )

    @property
    def answerable(self) -> int:
        return sum(1 for case in self.cases if case.kind == "answerable")

    @property
    def correct_share(self) -> float:
        return self.count("correct", answerable=True) / self.answerable if self.answerable else 1.0

    @property
    def passed(self) -> bool:
        return self.count("wrong") == 0 and self.correct_share >= TARGET


def grade(case: Case, verdict: str, answer: str | None) -> Grade:
    """Grade one outcome against the case's gold sentences (see the module docstring)."""
    if verdict != "answer" or answer is None:
        return "abstained"
    if case.kind != "answerable":
        return "wrong"
    words = normalise_words(answer)
    if any(_inside(words, normalise_words(sentence)) for sentence in case.correct):
        return "correct"
    if any(_inside(words, normalise_words(sentence)) for sentence in case.partial):
        return "partial"
    return "wrong"


def _inside(words: tuple[str, ...], sentence: tuple[str, ...]) -> bool:
    size = len(words)
    return size > 0 and any(sentence[at : at + size] == words for at in range(len(sentence) - size + 1))


def run(fixtures: Fixtures, root: Path, embedder: TextEncoder) -> Report:
    """Every case through one real navigate turn with the extractive model, graded."""
    stores = Stores.load(load_workspace(root))
    report = Report()
    for case in fixtures.cases:
        result = navigate_turn(
            root, NavigateRequest(question=case.question), embedder=embedder, stores=stores, model=ExtractiveModel()
        )
        surface = result.answer_surface
        answer = surface.text if surface is not None else None
        citations = tuple(citation.address for citation in surface.citations) if surface is not None else ()
        report.cases.append(
            Graded(
                case.id, case.kind, grade(case, result.verdict, answer), result.verdict, tuple(result.reasons), answer,
                citations,
            )
        )  # fmt: skip
    return report


def print_report(report: Report, out: TextIO | None = None) -> None:
    stream = out or sys.stdout
    for case in report.cases:
        shown = case.answer if case.answer is not None else ", ".join(case.reasons) or case.verdict
        print(f"{case.grade:<10} {case.kind:<14} {case.case_id:<30} {shown}", file=stream)
    answerable = report.answerable
    print(
        f"\nanswerable {answerable}: correct {report.count('correct', answerable=True)}, "
        f"partial {report.count('partial', answerable=True)}, wrong {report.count('wrong', answerable=True)}, "
        f"abstained {report.count('abstained', answerable=True)}; correct share {report.correct_share:.0%} "
        f"(target {TARGET:.0%})\n"
        f"unanswerable {len(report.cases) - answerable}: abstained {report.count('abstained', answerable=False)}, "
        f"wrong {report.count('wrong', answerable=False)}\n"
        f"WRONG ANSWERS: {report.count('wrong')}",
        file=stream,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dev.synapse_bench correctness",
        description="Grade the offline navigator's answers: on the fictional decision records (tessera: correct, "
        "partial, wrong, abstained) and on adopted public repositories (foreign: correct, wrong, miss per repository).",
    )
    parser.add_argument("--workdir", type=Path, default=None, help="build the fixture workspaces here (default: temp)")
    parser.add_argument("--set", choices=("tessera", "foreign", "all"), default="all", help="which set to run")
    parser.add_argument("--json", action="store_true", help="print every graded case and the totals as JSON")
    parser.add_argument(
        "--check",
        action="store_true",
        help=f"exit 1 on any wrong answer or under {TARGET:.0%} (tessera) / {FOREIGN_TARGET:.0%} (foreign) "
        "correct".replace("%", "%%"),
    )
    parser.add_argument(
        "--write-report",
        action="store_true",
        help="rewrite the foreign set's section of REPORT.md (needs --set foreign or all)",
    )
    args = parser.parse_args(argv)
    quiet_logs()
    passed = True
    payload: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="synapse-correctness-") as scratch:
        workdir = args.workdir or Path(scratch)
        if args.set in ("tessera", "all"):
            fixtures = load_fixtures()
            root = workdir / "tessera"
            if root.exists():
                raise SystemExit(f"{root} exists; pass an empty --workdir")
            build_workspace(root, fixtures)
            report = run(fixtures, root, make_embedder(load_workspace(root)))
            passed = passed and report.passed
            totals = {grade: report.count(grade) for grade in ("correct", "partial", "wrong", "abstained")}
            payload["tessera"] = {"cases": [asdict(case) for case in report.cases], "totals": totals,
                                  "correct_share": report.correct_share, "target": TARGET, "passed": report.passed}  # fmt: skip
            if not args.json:
                print_report(report)
        if args.set in ("foreign", "all"):
            foreign = load_foreign()
            if (workdir / "foreign").exists():
                raise SystemExit(f"{workdir / 'foreign'} exists; pass an empty --workdir")
            found = run_foreign(foreign, workdir / "foreign")
            passed = passed and found.passed
            payload["foreign"] = {"cases": [asdict(o) for o in found.outcomes], "table": foreign_table(found),
                                  "correct_share": found.correct_share, "target": FOREIGN_TARGET, "passed": found.passed}  # fmt: skip
            if not args.json:
                print("\n# Foreign material (adopted public repositories)\n")
                print_foreign(found)
            if args.write_report:
                sources = {f.name: f"{f.source.style}; {f.source.repository} ({f.source.licence})" for f in foreign}
                when = f"{datetime.date.today().isoformat()} at {_revision(Path(__file__).resolve().parents[3])}"
                text = foreign_section(found, sources, when)
                write_foreign_report(Path(__file__).resolve().parents[1] / "REPORT.md", text)
    if args.json:
        print(json.dumps(payload, indent=2))
    return 1 if args.check and not passed else 0


def _revision(repo: Path) -> str:
    """Which code was measured: the commit, and whether tracked files had uncommitted changes."""
    try:
        sha = git(repo, "rev-parse", "--short", "HEAD")
        dirty = git(repo, "status", "--porcelain", "--untracked-files=no")
    except SynapseError:
        return "a tree outside git"
    return f"commit {sha}" + (" plus uncommitted changes" if dirty else "")
