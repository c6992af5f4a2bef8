"""``python -m dev.synapse_bench project``: run a project's own question set against its own workspace.

A project corpus is *redacted by construction*: a case holds the question, the
expected verdict (with the status or the abstention reason) and the evidence
addresses that license it, and the format has no field for answer text, so a
committed corpus never publishes what the project knows. An answer passes only
if it cites at least one of its evidence addresses.

Corpora:

- committed ones, such as ``dev/synapse_bench/corpus/demo.yaml`` (run against a
  freshly built demo workspace when no ``--root`` is given);
- opt-in local ones: ``--local`` adds every ``.synapse/eval/*.local.yaml`` of
  the workspace. Keep those out of git (``.synapse/eval/*.local.yaml`` in
  ``.gitignore``): they may name private questions.

The model is whatever the workspace would use (config ``model:``,
``SYNAPSE_MODEL``, or ``--model``). The report prints each case's outcome and
the two safety figures of the canonical corpus: unsafe answers and false
abstentions. Answer text is printed only with ``--show-answers``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from dev.synapse_bench.canonical.cases import Expect, Status
from dev.synapse_bench.canonical.cli import quiet_logs
from dev.synapse_bench.canonical.oracle import compare, is_unsafe
from dev.synapse_bench.canonical.runner import Outcome, from_result
from synapse_server.isolation.turn import navigate_turn
from synapse_server.navigation.request import NavigateRequest
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import Stores, make_embedder

if TYPE_CHECKING:
    from adapters.index.embedder import TextEncoder

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
LOCAL_GLOB = ".synapse/eval/*.local.yaml"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProjectExpect(_Strict):
    verdict: Literal["answer", "abstain"]
    status: Status | None = None
    outdated: bool = False
    reasons: tuple[str, ...] = ()

    def oracle(self) -> Expect:
        return Expect(verdict=self.verdict, status=self.status, outdated=self.outdated, reasons=self.reasons)


class ProjectCase(_Strict):
    id: str = Field(..., pattern=r"^[A-Za-z0-9]+([-_.][A-Za-z0-9]+)*$")
    question: str = Field(..., min_length=1)
    expect: ProjectExpect
    evidence: tuple[str, ...] = ()
    """Canonical addresses; an answer must cite at least one. For abstentions: the defective node, for the record."""


class ProjectCorpus(_Strict):
    version: Literal[1]
    workspace: str | None = None
    """``demo`` to run against a fresh demo workspace; otherwise the corpus runs against ``--root``."""
    about: str | None = None
    cases: tuple[ProjectCase, ...]


@dataclass
class Result:
    source: str
    case: ProjectCase
    outcome: Outcome
    mismatches: list[str]
    unsafe: bool
    false_abstention: bool

    @property
    def passed(self) -> bool:
        return not self.mismatches

    def as_json(self, show_answers: bool) -> dict[str, Any]:
        row: dict[str, Any] = {
            "source": self.source,
            "id": self.case.id,
            "passed": self.passed,
            "verdict": self.outcome.verdict,
            "status": self.outcome.status,
            "reasons": list(self.outcome.reasons),
            "halted_reason": self.outcome.halted_reason,
            "citations": list(self.outcome.citations),
            "unsafe": self.unsafe,
            "false_abstention": self.false_abstention,
            "mismatches": self.mismatches,
        }
        if show_answers:
            row["answer"] = self.outcome.answer_text
        return row


def load_project_corpus(path: Path) -> ProjectCorpus:
    with path.open(encoding="utf-8") as handle:
        return ProjectCorpus.model_validate(yaml.safe_load(handle))


def local_corpora(root: Path) -> list[Path]:
    """The workspace's opt-in local case files, in name order."""
    return sorted(root.glob(LOCAL_GLOB))


def evaluate(
    root: Path, corpora: list[tuple[str, ProjectCorpus]], model: str | None, embedder: TextEncoder | None = None
) -> list[Result]:
    """Every case of every corpus against one workspace, with one store load and one embedder."""
    workspace = load_workspace(root)
    stores = Stores.load(workspace)
    embedder = embedder or make_embedder(workspace)
    results: list[Result] = []
    for source, corpus in corpora:
        for case in corpus.cases:
            request = NavigateRequest(question=case.question, model=model)
            navigated = navigate_turn(root, request, embedder=embedder, stores=stores)
            outcome = from_result(case.id, navigated, 0)
            oracle = case.expect.oracle()
            mismatches = compare(oracle, outcome)
            if outcome.verdict == "answer" and case.evidence and not set(case.evidence) & set(outcome.citations):
                mismatches.append(f"evidence: cited {list(outcome.citations)}, none of {list(case.evidence)}")
            results.append(
                Result(
                    source=source,
                    case=case,
                    outcome=outcome,
                    mismatches=mismatches,
                    unsafe=is_unsafe(oracle, outcome),
                    false_abstention=oracle.verdict == "answer" and outcome.verdict != "answer",
                )
            )
    return results


def figures(results: list[Result]) -> dict[str, int]:
    return {
        "cases": len(results),
        "passed": sum(r.passed for r in results),
        "unsafe_answers": sum(r.unsafe for r in results),
        "false_abstentions": sum(r.false_abstention for r in results),
    }


def print_report(results: list[Result], show_answers: bool) -> None:
    for r in results:
        got = r.outcome.status if r.outcome.verdict == "answer" else ",".join(r.outcome.reasons)
        got = f"{r.outcome.verdict}:{got or r.outcome.halted_reason}"
        tags = " ".join(t for t, on in (("UNSAFE", r.unsafe), ("FALSE-ABSTENTION", r.false_abstention)) if on)
        print(f"{'PASS' if r.passed else 'FAIL'} {r.source}:{r.case.id:<32} {got} {tags}".rstrip())
        for mismatch in r.mismatches:
            print(f"      {mismatch}")
        if show_answers and r.outcome.answer_text:
            print(f"      answer: {r.outcome.answer_text}")
    total = figures(results)
    print(f"{total['passed']}/{total['cases']} cases pass")
    print(f"UNSAFE ANSWERS: {total['unsafe_answers']}")
    print(f"FALSE ABSTENTIONS: {total['false_abstentions']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dev.synapse_bench project", description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, help="the workspace (default: a fresh demo, for corpora of the demo)")
    parser.add_argument("--corpus", type=Path, action="append", help="a project corpus file (repeatable)")
    parser.add_argument("--local", action="store_true", help=f"also run the workspace's {LOCAL_GLOB}")
    parser.add_argument("--model", help="model spec override (default: the workspace's)")
    parser.add_argument("--show-answers", action="store_true", help="print answer text (keep such output private)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--fail-on-unsafe", action="store_true", help="exit 1 when any answer is unsafe")
    args = parser.parse_args(argv)
    quiet_logs()
    paths = args.corpus or ([] if args.root else [CORPUS_DIR / "demo.yaml"])
    corpora = [(p.stem, load_project_corpus(p)) for p in paths]
    with tempfile.TemporaryDirectory(prefix="synapse-project-") as scratch:
        root = args.root
        if root is None:
            if any(c.workspace != "demo" for _, c in corpora):
                parser.error("a corpus that is not for the demo needs --root")
            from synapse_server.workspace.init import make_demo

            root = make_demo(Path(scratch) / "demo")
        if args.local:
            corpora += [(p.name.removesuffix(".local.yaml"), load_project_corpus(p)) for p in local_corpora(root)]
        if not corpora:
            print(f"project: no cases (give --corpus, or --local with {LOCAL_GLOB} in the workspace)", file=sys.stderr)
            return 2
        results = evaluate(root.resolve(), corpora, args.model)
    if args.json:
        payload = {"figures": figures(results), "cases": [r.as_json(args.show_answers) for r in results]}
        print(json.dumps(payload, indent=2))
    else:
        print_report(results, args.show_answers)
    return 1 if args.fail_on_unsafe and any(r.unsafe for r in results) else 0
