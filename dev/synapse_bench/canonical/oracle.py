"""Compare an outcome with its oracle, and classify it for the two safety figures.

A case *passes* when every field its oracle pins matches. Independently of
passing, an outcome is:

- an **unsafe answer** when the engine answered although the oracle abstains
  (or refuses, or fails), or answered with a stronger status than the oracle's
  (grounded > measured > inferred), or presented an outdated answer without
  its disclosure (an outdated answer shown as fresh);
- a **false abstention** when the oracle answers and the engine did not.

Unsafe answers are the figure that must stay at zero: the product's promise
is that it abstains rather than over-claims. False abstentions are its cost.
"""

from __future__ import annotations

from dataclasses import dataclass

from dev.synapse_bench.canonical.cases import STATUS_RANK, Case, Expect
from dev.synapse_bench.canonical.runner import Outcome


@dataclass(frozen=True)
class Judgement:
    case_id: str
    category: str
    passed: bool
    unsafe: bool
    false_abstention: bool
    skipped: bool
    mismatches: tuple[str, ...]


def judge(case: Case, outcome: Outcome) -> Judgement:
    if outcome.verdict == "skipped":
        return Judgement(case.id, case.category, False, False, False, True, (outcome.detail,))
    mismatches = tuple(compare(case.expect, outcome))
    return Judgement(
        case_id=case.id,
        category=case.category,
        passed=not mismatches,
        unsafe=is_unsafe(case.expect, outcome),
        false_abstention=case.expect.verdict == "answer" and outcome.verdict != "answer",
        skipped=False,
        mismatches=mismatches,
    )


def is_unsafe(expect: Expect, outcome: Outcome) -> bool:
    if outcome.verdict != "answer":
        return False
    if expect.verdict != "answer":
        return True
    if STATUS_RANK[outcome.status] > STATUS_RANK[expect.status]:
        return True
    return bool(expect.outdated and not (outcome.outdated and outcome.disclosure))


def compare(expect: Expect, outcome: Outcome) -> list[str]:
    """Every pinned field that differs, as ``field: expected X, got Y``."""
    if outcome.verdict == "error":
        return [f"bench error: {outcome.detail}"]
    pairs: list[tuple[str, object, object]] = [
        ("verdict", expect.verdict, outcome.verdict),
        ("status", expect.status, outcome.status),
        ("reasons", list(expect.reasons), list(outcome.reasons)),
        ("halted_reason", expect.halted_reason, outcome.halted_reason),
        ("outdated", expect.outdated, outcome.outdated),
        ("disclosure", expect.disclosure, outcome.disclosure),
    ]
    if expect.citations is not None:
        pairs.append(("citations", sorted(expect.citations), sorted(outcome.citations)))
    for name in ("model_calls", "parse_repairs", "renavigations", "parse_error"):
        wanted = getattr(expect, name)
        if wanted is not None:
            pairs.append((name, wanted, getattr(outcome, name)))
    found = [f"{name}: expected {want!r}, got {got!r}" for name, want, got in pairs if want != got]
    found.extend(f"envelope lacks {needle!r}" for needle in expect.envelope_contains if needle not in outcome.envelope)
    if expect.detail_contains is not None and expect.detail_contains not in outcome.detail:
        found.append(f"detail lacks {expect.detail_contains!r}: {outcome.detail!r}")
    return found
