"""The locked canonical baseline: per-case outcomes, known engine failures, and the two safety figures.

``--check`` compares a run with ``dev/synapse_bench/baseline.json`` and fails on
any regression:

- an unsafe answer in a case that is not a recorded known failure (the guarded
  unsafe figure is locked at zero);
- more unsafe answers, or more false abstentions, than the baseline records;
- a case the baseline records as ``pass`` that no longer passes;
- a case the baseline does not know that does not pass.

A known failure is a case whose oracle is right and whose engine behaviour is
wrong (a bug reported, not yet fixed). It stays in the corpus with its correct
oracle, is listed with a note, and is excluded from the zero-unsafe guard so
that ``--check`` keeps guarding everything else. When it starts passing,
``--check`` says so and the next ``--update-baseline`` locks the pass.

Updating is deliberate: :func:`updated` refuses to lock any failing case that is
not already a recorded known failure. Recording one means editing
``known_failures`` by hand, with a note that names the engine bug.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dev.synapse_bench.canonical.suite import Summary

BASELINE_PATH = Path(__file__).resolve().parent.parent / "baseline.json"


@dataclass
class Baseline:
    outcomes: dict[str, str]
    known_failures: dict[str, str]
    unsafe_answers: int
    false_abstentions: int

    @classmethod
    def load(cls, path: Path = BASELINE_PATH) -> Baseline:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != 1:
            raise ValueError(f"{path.name}: unsupported baseline version {data.get('version')!r}")
        figures = data["figures"]
        return cls(
            outcomes=dict(data["outcomes"]),
            known_failures=dict(data.get("known_failures", {})),
            unsafe_answers=int(figures["unsafe_answers"]),
            false_abstentions=int(figures["false_abstentions"]),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "about": "Locked canonical baseline; regenerate only with `python -m dev.synapse_bench canonical "
            "--update-baseline` (see docs/benchmark.md).",
            "figures": {
                "unsafe_answers": self.unsafe_answers,
                "unsafe_outside_known_failures": 0,
                "false_abstentions": self.false_abstentions,
            },
            "known_failures": dict(sorted(self.known_failures.items())),
            "outcomes": dict(sorted(self.outcomes.items())),
        }

    def save(self, path: Path = BASELINE_PATH) -> None:
        path.write_text(json.dumps(self.as_json(), indent=2) + "\n", encoding="utf-8", newline="\n")


@dataclass
class Check:
    regressions: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.regressions


def check(summary: Summary, baseline: Baseline, *, partial: bool = False) -> Check:
    """Regressions of ``summary`` against ``baseline``; ``partial`` runs (a case filter) skip the totals."""
    result = Check()
    for case_id in summary.unsafe:
        if case_id not in baseline.known_failures:
            result.regressions.append(f"{case_id}: UNSAFE ANSWER outside the known failures")
    if not partial:
        if len(summary.unsafe) > baseline.unsafe_answers:
            result.regressions.append(f"unsafe answers rose from {baseline.unsafe_answers} to {len(summary.unsafe)}")
        if len(summary.false_abstentions) > baseline.false_abstentions:
            result.regressions.append(
                f"false abstentions rose from {baseline.false_abstentions} to {len(summary.false_abstentions)}"
            )
    for judgement in summary.judgements:
        now = summary.outcome_of(judgement.case_id)
        before = baseline.outcomes.get(judgement.case_id)
        if before is None and now != "pass":
            result.regressions.append(f"{judgement.case_id}: new case does not pass ({now})")
        elif before == "pass" and now != "pass":
            result.regressions.append(f"{judgement.case_id}: flipped from pass to {now}")
        elif before is None:
            result.notices.append(f"{judgement.case_id}: new passing case; --update-baseline locks it")
        elif before != "pass" and now == "pass":
            result.notices.append(f"{judgement.case_id}: now passes; --update-baseline locks the fix")
    if not partial:
        ran = {j.case_id for j in summary.judgements}
        result.notices.extend(
            f"{gone}: in the baseline but not in the corpus" for gone in baseline.outcomes if gone not in ran
        )
    return result


def updated(summary: Summary, previous: Baseline | None) -> Baseline:
    """The baseline this run would lock; every failing case must already be a recorded known failure."""
    known = dict(previous.known_failures) if previous is not None else {}
    outcomes = {j.case_id: summary.outcome_of(j.case_id) for j in summary.judgements}
    unexplained = [case_id for case_id, outcome in outcomes.items() if outcome == "fail" and case_id not in known]
    if unexplained:
        raise ValueError(
            "refusing to lock failing cases that are not recorded known failures: "
            + ", ".join(unexplained)
            + " (fix the engine or the case, or record each under known_failures in baseline.json with a note)"
        )
    known = {case_id: note for case_id, note in known.items() if outcomes.get(case_id) == "fail"}
    return Baseline(outcomes, known, len(summary.unsafe), len(summary.false_abstentions))
