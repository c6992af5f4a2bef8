"""``python -m dev.synapse_bench live``: the canonical runner with a real model, repeated, for reliability figures.

Only live-eligible cases run (``live: true`` in the corpus: truth, disclosure
and absent questions, whose oracle holds whatever words the model chooses).
The scripted replies are ignored: the model writes its own. Each case runs
``--repeat`` times and the harness reports, per case and overall:

- parse success: the share of model replies that parse as OUTPUT on the first try;
- repairs: how many turns needed the one parse repair;
- answer rate, and agreement with the oracle (verdict, status or reasons);
- unsafe-answer rate (an answer where the oracle abstains, or a stronger
  status than the oracle's, or an outdated answer without its disclosure) and
  false-abstention rate, as in the canonical corpus.

The model comes from ``--model`` or ``SYNAPSE_MODEL`` (``command:…``,
``openai:…``, ``anthropic:…``, or ``extractive``). With neither, the harness
says so and exits 0: a live run is opt-in, never a failing CI step.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dev.synapse_bench.canonical.cases import Case, Corpus, load_corpus
from dev.synapse_bench.canonical.cli import quiet_logs, workbench
from dev.synapse_bench.canonical.oracle import is_unsafe
from dev.synapse_bench.canonical.runner import Outcome, run_case
from dev.synapse_bench.canonical.workspaces import Workbench
from memdsl import MemDSLParseError, parse_output
from synapse_server.models import Completion, Model, ModelOptions, Prompt, resolve_model
from synapse_server.models.spec import ENV_VAR


class Recorder(Model):
    """Wraps the live model to count its replies and how many of them parse; changes nothing it returns."""

    def __init__(self, inner: Model) -> None:
        self.identity = inner.identity
        self.inner = inner
        self.history: list[Prompt] = []
        self.parsed = 0

    def execute(self, prompt: Prompt) -> Completion:
        self.history.append(prompt)
        completion = self.inner.complete(prompt.text, system=prompt.system, max_tokens=prompt.max_tokens)
        try:
            parse_output(completion.text)
        except MemDSLParseError:
            pass
        else:
            self.parsed += 1
        return completion


@dataclass
class Tally:
    runs: int = 0
    replies: int = 0
    parsed: int = 0
    repaired_turns: int = 0
    answers: int = 0
    agreed: int = 0
    unsafe: int = 0
    false_abstentions: int = 0
    failures: int = 0
    verdicts: list[str] = field(default_factory=list)

    def add(self, case: Case, outcome: Outcome, recorder: Recorder) -> None:
        self.runs += 1
        self.replies += len(recorder.history)
        self.parsed += recorder.parsed
        self.repaired_turns += any("=== PARSE ERROR ===" in p.text for p in recorder.history)
        self.answers += outcome.verdict == "answer"
        self.agreed += agrees(case, outcome)
        self.unsafe += is_unsafe(case.expect, outcome)
        self.false_abstentions += case.expect.verdict == "answer" and outcome.verdict != "answer"
        self.failures += outcome.verdict in ("failure", "error")
        label = outcome.status if outcome.verdict == "answer" else ",".join(outcome.reasons) or outcome.halted_reason
        self.verdicts.append(f"{outcome.verdict}:{label}")

    def rates(self) -> dict[str, Any]:
        def share(part: int, whole: int) -> float | None:
            return round(part / whole, 3) if whole else None

        return {
            "runs": self.runs,
            "parse_success_rate": share(self.parsed, self.replies),
            "repairs_used": self.repaired_turns,
            "answer_rate": share(self.answers, self.runs),
            "oracle_agreement": share(self.agreed, self.runs),
            "unsafe_answer_rate": share(self.unsafe, self.runs),
            "unsafe_answers": self.unsafe,
            "false_abstention_rate": share(self.false_abstentions, self.runs),
            "failures": self.failures,
        }


def agrees(case: Case, outcome: Outcome) -> bool:
    """The oracle's verdict with its status (answers) or its reasons (abstentions); telemetry is the model's own."""
    expect = case.expect
    if outcome.verdict != expect.verdict or outcome.halted_reason != expect.halted_reason:
        return False
    if expect.verdict == "answer":
        return outcome.status == expect.status and outcome.disclosure == expect.disclosure
    return list(outcome.reasons) == list(expect.reasons)


def live_cases(corpus: Corpus, ids: list[str] | None) -> list[Case]:
    chosen = [c for c in corpus.cases if c.live]
    if ids:
        chosen = [c for c in chosen if any(c.id == i or c.id.startswith(i) for i in ids)]
    return chosen


def run_live(cases: list[Case], bench: Workbench, spec: str, repeat: int, timeout_s: float) -> dict[str, Any]:
    overall = Tally()
    per_case: dict[str, Any] = {}
    identity = ""
    for case in cases:
        tally = Tally()
        for _ in range(repeat):
            inner = resolve_model(spec, cwd=Path.cwd(), options=ModelOptions(timeout_s=timeout_s))
            identity = f"{inner.identity.provider}:{inner.identity.id}"
            recorder = Recorder(inner)
            outcome = run_case(case, bench, model=recorder)
            tally.add(case, outcome, recorder)
            overall.add(case, outcome, recorder)
        per_case[case.id] = {"expect": _expected(case), **tally.rates(), "verdicts": tally.verdicts}
    return {"model": identity, "repeat": repeat, "overall": overall.rates(), "cases": per_case}


def _expected(case: Case) -> str:
    expect = case.expect
    return f"answer:{expect.status}" if expect.verdict == "answer" else f"{expect.verdict}:{','.join(expect.reasons)}"


def print_report(result: dict[str, Any]) -> None:
    print(f"live model: {result['model']}  ({result['repeat']} run(s) per case)")
    for case_id, row in result["cases"].items():
        print(f"  {case_id:<40} expect {row['expect']:<22} got {' '.join(row['verdicts'])}")
    overall = result["overall"]
    for key in ("runs", "parse_success_rate", "repairs_used", "answer_rate", "oracle_agreement", "failures"):
        print(f"{key.replace('_', ' ')}: {overall[key]}")
    print(f"UNSAFE ANSWERS: {overall['unsafe_answers']} (rate {overall['unsafe_answer_rate']})")
    print(f"FALSE ABSTENTION RATE: {overall['false_abstention_rate']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dev.synapse_bench live", description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help=f"model spec (default: ${ENV_VAR})")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (default 3)")
    parser.add_argument("--case", action="append", help="only live cases with this id or id prefix")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per model call (default 120)")
    parser.add_argument("--workdir", type=Path, help="build workspaces here and reuse them on the next run")
    parser.add_argument("--json", action="store_true", help="print the JSON result")
    parser.add_argument("--fail-on-unsafe", action="store_true", help="exit 1 when any run answered unsafely")
    args = parser.parse_args(argv)
    spec = args.model or os.environ.get(ENV_VAR, "").strip()
    if not spec:
        print(f"live: no model configured (pass --model or set {ENV_VAR}); nothing to measure, skipped")
        return 0
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    resolve_model(spec, cwd=Path.cwd())  # a misconfigured spec fails here, before any workspace is built
    quiet_logs()
    corpus = load_corpus()
    cases = live_cases(corpus, args.case)
    if not cases:
        print("live: no live-eligible case matches", file=sys.stderr)
        return 2
    with workbench(corpus, args.workdir) as bench:
        result = run_live(cases, bench, spec, args.repeat, args.timeout)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_report(result)
    return 1 if args.fail_on_unsafe and result["overall"]["unsafe_answers"] else 0
