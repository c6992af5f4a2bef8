"""Correctness on foreign material: grade the offline navigator on adopted public repositories, per repository.

Every case runs one real navigate turn (``navigate_turn``, the ``extractive``
model, the real router) on the fixture as ``synapse init --adopt`` left it, and
is graded (:func:`grade`):

- ``correct``: an answer whose text holds one of the case's gold phrases and none of its ``excludes``;
- ``wrong``: any other answer (the worst outcome), and any answer to a false-premise or unanswerable case;
- ``miss``: no answer to an answerable case;
- ``abstained``: no answer to a false-premise or unanswerable case (the right outcome there).

The answer text is the answer surface's text, the sentence the navigator
published. Phrases match as normalised words in order (``language.text``'s
``normalise_words``: case, punctuation and Markdown fall away) unless a case
asks for ``verbatim`` characters, which is how a quote corrupted inside
brackets is told apart from the source.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

from dev.synapse_bench.correctness.foreign import Fixture, ForeignCase, build_fixture, holds
from dev.synapse_bench.report_sections import write_section
from synapse_server.isolation.turn import navigate_turn
from synapse_server.navigation.extractive import ExtractiveModel
from synapse_server.navigation.request import NavigateRequest
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.lint import lint_workspace
from synapse_server.workspace.stores import Stores, make_embedder

if TYPE_CHECKING:
    from adapters.index.embedder import TextEncoder

Grade = Literal["correct", "wrong", "miss", "abstained"]
GRADES: tuple[Grade, ...] = ("correct", "wrong", "miss", "abstained")
TARGET = 0.4
"""The issue's bar: at least this share of answerable questions correct, with no wrong answer at all."""

BEGIN, END = "<!-- correctness-foreign -->", "<!-- /correctness-foreign -->"
"""This section's markers in REPORT.md, as listed in ``report_sections.SECTIONS`` (a test pins that they agree)."""


@dataclass(frozen=True)
class Outcome:
    repository: str
    case_id: str
    kind: str
    grade: Grade
    verdict: str
    reasons: tuple[str, ...]
    answer: str | None
    citations: tuple[str, ...]


@dataclass
class ForeignReport:
    outcomes: list[Outcome] = field(default_factory=list)
    adopted: dict[str, str] = field(default_factory=dict)
    """Per repository: what ``init --adopt`` configured and what ``synapse lint`` says about it."""

    def count(self, grade: Grade, repository: str | None = None, *, answerable: bool | None = None) -> int:
        return sum(
            1
            for o in self.outcomes
            if o.grade == grade
            and (repository is None or o.repository == repository)
            and (answerable is None or (o.kind == "answerable") == answerable)
        )

    def total(self, repository: str | None = None, *, answerable: bool | None = None) -> int:
        return sum(
            1
            for o in self.outcomes
            if (repository is None or o.repository == repository)
            and (answerable is None or (o.kind == "answerable") == answerable)
        )

    @property
    def repositories(self) -> list[str]:
        return list(dict.fromkeys(o.repository for o in self.outcomes))

    @property
    def correct_share(self) -> float:
        answerable = self.total(answerable=True)
        return self.count("correct", answerable=True) / answerable if answerable else 1.0

    @property
    def passed(self) -> bool:
        return self.count("wrong") == 0 and self.correct_share >= TARGET


def grade(case: ForeignCase, verdict: str, answer: str | None) -> Grade:
    """Grade one outcome against the case's gold phrases (see the module docstring)."""
    if verdict != "answer" or answer is None:
        return "miss" if case.kind == "answerable" else "abstained"
    if case.kind != "answerable":
        return "wrong"
    if any(holds(answer, phrase, case.match) for phrase in case.excludes):
        return "wrong"
    return "correct" if any(holds(answer, phrase, case.match) for phrase in case.gold) else "wrong"


def run_fixture(fixture: Fixture, root: Path, embedder: TextEncoder) -> list[Outcome]:
    """Every case of the fixture built and adopted at ``root`` through one real navigate turn, graded."""
    stores = Stores.load(load_workspace(root))
    outcomes = []
    for case in fixture.cases:
        result = navigate_turn(
            root, NavigateRequest(question=case.question), embedder=embedder, stores=stores, model=ExtractiveModel()
        )
        surface = result.answer_surface
        answer = surface.text if surface is not None else None
        citations = tuple(citation.address for citation in surface.citations) if surface is not None else ()
        outcomes.append(
            Outcome(fixture.name, case.id, case.kind, grade(case, result.verdict, answer), result.verdict,
                    tuple(result.reasons), answer, citations)
        )  # fmt: skip
    return outcomes


def run_foreign(fixtures: tuple[Fixture, ...], workdir: Path, embedder: TextEncoder | None = None) -> ForeignReport:
    """Each fixture built and adopted under ``workdir``, then run; the encoder is the adopted config's default."""
    report = ForeignReport()
    for fixture in fixtures:
        root = build_fixture(fixture, workdir / fixture.name)
        report.adopted[fixture.name] = adoption(root)
        embedder = embedder or make_embedder(load_workspace(root))
        report.outcomes.extend(run_fixture(fixture, root, embedder))
    return report


def adoption(root: Path) -> str:
    """The sources ``init --adopt`` wrote and lint's summary, with its error codes: a source that does not
    load is a cause of misses the navigator cannot fix, so it is reported beside the figures."""
    workspace = load_workspace(root)
    lint = lint_workspace(workspace)
    sources = ", ".join(f"{source.kind} `{source.path}`" for source in workspace.config.sources) or "none"
    codes = Counter(d.code for d in lint.diagnostics if d.severity == "error")
    shown = "; ".join(f"{code} ×{count}" for code, count in sorted(codes.items()))
    return f"{sources}; lint: {lint.summary}" + (f" ({shown})" if shown else "")


def table(report: ForeignReport) -> str:
    """The per-repository table and its totals row, in Markdown."""
    rows = [
        "| repository | questions | answerable: correct / wrong / miss | false-premise + unanswerable: "
        "abstained / wrong | wrong answers |",
        "|---|---|---|---|---|",
    ]
    for name in [*report.repositories, None]:
        label = "**total**" if name is None else f"`{name}`"
        answerable = report.total(name, answerable=True)
        others = report.total(name, answerable=False)
        rows.append(
            f"| {label} | {report.total(name)} | {answerable}: {report.count('correct', name)} / "
            f"{report.count('wrong', name, answerable=True)} / {report.count('miss', name)} | "
            f"{others}: {report.count('abstained', name)} / {report.count('wrong', name, answerable=False)} | "
            f"{report.count('wrong', name)} |"
        )
    return "\n".join(rows)


def print_foreign(report: ForeignReport, stream: TextIO = sys.stdout) -> None:
    for o in report.outcomes:
        shown = o.answer if o.answer is not None else ", ".join(o.reasons) or o.verdict
        print(f"{o.grade:<9} {o.kind:<13} {o.repository}/{o.case_id:<34} {shown}", file=stream)
    print("", *[f"{name}: {text}" for name, text in report.adopted.items()], sep="\n", file=stream)
    print("\n" + table(report), file=stream)
    print(
        f"\ncorrect share of answerable {report.correct_share:.0%} (target {TARGET:.0%}); "
        f"WRONG ANSWERS: {report.count('wrong')}",
        file=stream,
    )


def section(report: ForeignReport, sources: dict[str, str], when: str) -> str:
    """The REPORT.md section, between the markers ``report_sections.SECTIONS`` reserves for it."""
    wrong = [o for o in report.outcomes if o.grade == "wrong"]
    lines = [
        BEGIN,
        "## Correctness on foreign material (correctness/foreign_bench.py, extractive navigator)",
        "",
        f"Measured {when}. Each repository below is a small verbatim subset of a public repository (licence and "
        "commit in `dev/synapse_bench/correctness/data/foreign/README.md`), committed to a fresh git repository "
        "and adopted with `synapse init --adopt`; every question is one navigate turn with the default offline "
        "`extractive` model. Gold was written from reading the files: **correct** = the published answer holds "
        "a gold key phrase (normalised words in order) and none of the case's excluded phrases; **wrong** = any "
        "other answer, or any answer to a false-premise or unanswerable question; **miss** = an abstention on "
        "an answerable question.",
        "",
        table(report),
        "",
        f"Answerable questions answered correctly: {report.correct_share:.0%} (bar {TARGET:.0%}); "
        f"wrong answers: **{len(wrong)}** (bar 0).",
        "",
        "| repository | material | adopted as |",
        "|---|---|---|",
        *[f"| `{name}` | {text} | {report.adopted.get(name, '—')} |" for name, text in sources.items()],
    ]
    if wrong:
        lines += ["", "The wrong answers, as published:", ""]
        lines += [f"- `{o.repository}/{o.case_id}` ({o.kind}): {_quote(o.answer)}" for o in wrong]
    lines += [
        "",
        "`python -m dev.synapse_bench correctness --set foreign --write-report` measures it again and rewrites "
        "this section.",
        END,
        "",
    ]
    return "\n".join(lines)


def _quote(answer: str | None) -> str:
    text = " ".join((answer or "").split())
    text = text if len(text) <= 160 else text[:157] + "..."
    return "“" + text.replace("|", "\\|") + "”"


def write_report(path: Path, text: str) -> None:
    """Replace this harness's marked section of ``path`` (or append it); the perf report keeps it (report_sections)."""
    write_section(path, text, BEGIN, END)
