"""Run a set of cases on one workbench and summarise: per-category pass counts and the two safety figures."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from dev.synapse_bench.canonical.cases import CATEGORIES, Case
from dev.synapse_bench.canonical.oracle import Judgement, judge
from dev.synapse_bench.canonical.runner import Outcome, Turn, run_case
from dev.synapse_bench.canonical.workspaces import Workbench
from synapse_server.isolation.turn import navigate_turn


@dataclass
class Summary:
    judgements: list[Judgement] = field(default_factory=list)
    outcomes: dict[str, Outcome] = field(default_factory=dict)

    @property
    def unsafe(self) -> list[str]:
        return [j.case_id for j in self.judgements if j.unsafe]

    @property
    def false_abstentions(self) -> list[str]:
        return [j.case_id for j in self.judgements if j.false_abstention]

    def outcome_of(self, case_id: str) -> str:
        """``pass`` | ``fail`` | ``skipped``: what the baseline locks per case."""
        judgement = next(j for j in self.judgements if j.case_id == case_id)
        return "skipped" if judgement.skipped else "pass" if judgement.passed else "fail"

    def categories(self) -> dict[str, dict[str, int]]:
        table = {c: {"passed": 0, "total": 0, "skipped": 0} for c in CATEGORIES}
        for j in self.judgements:
            row = table[j.category]
            row["total"] += 1
            row["passed"] += j.passed
            row["skipped"] += j.skipped
        return {c: row for c, row in table.items() if row["total"]}

    def as_json(self) -> dict[str, Any]:
        return {
            "categories": self.categories(),
            "unsafe_answers": len(self.unsafe),
            "false_abstentions": len(self.false_abstentions),
            "unsafe_cases": self.unsafe,
            "false_abstention_cases": self.false_abstentions,
            "cases": {
                j.case_id: {
                    "category": j.category,
                    "outcome": self.outcome_of(j.case_id),
                    "unsafe": j.unsafe,
                    "false_abstention": j.false_abstention,
                    "mismatches": list(j.mismatches),
                }
                for j in self.judgements
            },
        }


def run_suite(
    cases: Iterable[Case],
    bench: Workbench,
    *,
    overrides: dict[str, Any] | None = None,
    turn: Turn = navigate_turn,
    progress: Callable[[Judgement], None] | None = None,
    quiet: bool = False,
) -> Summary:
    summary = Summary()
    for case in cases:
        outcome = run_case(case, bench, overrides=overrides, turn=turn, quiet=quiet)
        judgement = judge(case, outcome)
        summary.outcomes[case.id] = outcome
        summary.judgements.append(judgement)
        if progress is not None:
            progress(judgement)
    return summary
