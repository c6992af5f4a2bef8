"""``python -m dev.synapse_bench sweep``: compare navigation configurations under the canonical safety gate.

The grid is VOI policy (``navigation/voi.py`` POLICIES) x pre-loop ``hops``
(0, 1, 2) x ``trace_floor`` (0.0, 1.0). Each configuration runs:

- the canonical corpus with its scripted replies (isolation cases excluded:
  they never reach navigation), for safety and for how often the evidence the
  scripts cite is still in the envelope;
- an adaptive navigator on the live-eligible cases, which reads the envelope
  it is given and so feels hops and (for a real model) the VOI focus handles:
  ``extractive`` by default, or ``--model`` for a real one.

A configuration is *eligible* only with zero unsafe answers in both. The
recommendation is an eligible configuration that **strictly dominates** the
default on utility: at least as many answers on answerable cases and no more
false abstentions, with one of the two strictly better. When none does, the
answer is "keep the default". A scripted case whose template names a node the
configuration's envelope does not render counts as an abstention for utility
(the navigator could not cite it); it can never make a configuration unsafe.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from dev.synapse_bench.canonical.cases import Case, load_corpus
from dev.synapse_bench.canonical.cli import quiet_logs, workbench
from dev.synapse_bench.canonical.oracle import is_unsafe, judge
from dev.synapse_bench.canonical.runner import Outcome, Turn, run_case
from dev.synapse_bench.canonical.workspaces import Workbench
from synapse_server.isolation.turn import navigate_turn
from synapse_server.models import resolve_model
from synapse_server.navigation.voi import POLICIES
from synapse_server.workspace.config import NavigateConfig

DEFAULT_VOI = "minimal"
HOPS = (0, 1, 2)
TRACE_FLOORS = (0.0, 1.0)


@dataclass(frozen=True)
class Config:
    voi: str
    hops: int
    trace_floor: float

    def overrides(self, case: Case) -> dict[str, Any]:
        """The swept knobs, except those the case pins itself (a case about hops=0 stays about hops=0)."""
        knobs = {"hops": self.hops, "trace_floor": self.trace_floor}
        return {k: v for k, v in knobs.items() if getattr(case.budgets, k) is None}

    def label(self) -> str:
        return f"{self.voi} hops={self.hops} trace_floor={self.trace_floor:g}"


@dataclass
class Row:
    config: Config
    unsafe: int = 0
    answered: int = 0
    answerable: int = 0
    false_abstentions: int = 0
    passed: int = 0
    total: int = 0
    unsafe_cases: tuple[str, ...] = ()

    @property
    def eligible(self) -> bool:
        return self.unsafe == 0

    def dominates(self, other: Row) -> bool:
        """Strictly better utility than ``other``: no fewer answers, no more false abstentions, one strictly."""
        no_worse = self.answered >= other.answered and self.false_abstentions <= other.false_abstentions
        better = self.answered > other.answered or self.false_abstentions < other.false_abstentions
        return no_worse and better


def default_config() -> Config:
    return Config(DEFAULT_VOI, NavigateConfig().hops, 0.0)


def grid(vois: Sequence[str], hops: Sequence[int], floors: Sequence[float]) -> list[Config]:
    return [Config(v, h, f) for v, h, f in itertools.product(vois, hops, floors)]


def turn_for(voi: str) -> Turn:
    """``navigate_turn`` with the given advisory VOI policy."""
    return functools.partial(navigate_turn, voi=voi)


def measure(config: Config, scripted: list[Case], adaptive: list[Case], bench: Workbench, spec: str) -> Row:
    row = Row(config)
    turn = turn_for(config.voi)
    for case in scripted:
        outcome = run_case(case, bench, overrides=config.overrides(case), turn=turn, quiet=True)
        row.passed += judge(case, outcome).passed
        _count(row, case, outcome)
    for case in adaptive:
        model = resolve_model(spec, cwd=Path.cwd())
        outcome = run_case(case, bench, overrides=config.overrides(case), turn=turn, model=model)
        _count(row, case, outcome)
    row.total = len(scripted) + len(adaptive)
    return row


def _count(row: Row, case: Case, outcome: Outcome) -> None:
    if is_unsafe(case.expect, outcome):
        row.unsafe += 1
        row.unsafe_cases += (case.id,)
    if case.expect.verdict == "answer":
        row.answerable += 1
        row.answered += outcome.verdict == "answer"
        row.false_abstentions += outcome.verdict != "answer"


def recommend(rows: list[Row], default: Config) -> tuple[Row | None, str]:
    """The best safe configuration that strictly dominates the default, or None and why not."""
    base = next((r for r in rows if r.config == default), None)
    if base is None:
        return None, "the default configuration was not measured"
    if not base.eligible:
        return None, f"the default itself has {base.unsafe} unsafe answer(s): fix the engine before tuning"
    better = [r for r in rows if r.eligible and r.dominates(base)]
    if not better:
        return None, "keep the default: no configuration with perfect safety strictly dominates it on utility"
    best = max(better, key=lambda r: (r.answered, -r.false_abstentions, -r.config.hops, r.config.voi == DEFAULT_VOI))
    return best, f"recommend {best.config.label()}: safe, and strictly dominates the default on utility"


def print_table(rows: list[Row], default: Config) -> None:
    print(f"{'configuration':<42} {'unsafe':>6} {'answered':>10} {'false abst.':>11} {'scripted pass':>13}")
    for row in rows:
        mark = " (default)" if row.config == default else ""
        answered = f"{row.answered}/{row.answerable}"
        print(
            f"{row.config.label() + mark:<42} {row.unsafe:>6} {answered:>10} {row.false_abstentions:>11} "
            f"{row.passed:>13}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dev.synapse_bench sweep", description=__doc__.split("\n\n")[0])
    parser.add_argument("--voi", action="append", choices=sorted(POLICIES), help="policies (default: all)")
    parser.add_argument("--hops", action="append", type=int, help="pre-loop hops (default: 0, 1, 2)")
    parser.add_argument("--trace-floor", action="append", type=float, help="trace floors (default: 0, 1)")
    parser.add_argument("--model", default="extractive", help="the adaptive navigator (default: extractive)")
    parser.add_argument("--case", action="append", help="only cases with this id or id prefix")
    parser.add_argument("--workdir", type=Path, help="build workspaces here and reuse them on the next run")
    parser.add_argument("--json", action="store_true", help="print the rows and the recommendation as JSON")
    args = parser.parse_args(argv)
    quiet_logs()
    resolve_model(args.model, cwd=Path.cwd())  # fail on a bad spec before building anything
    corpus = load_corpus()
    chosen = [c for c in corpus.cases if c.isolation is None]
    if args.case:
        chosen = [c for c in chosen if any(c.id == i or c.id.startswith(i) for i in args.case)]
    adaptive = [c for c in chosen if c.live]
    configs = grid(args.voi or sorted(POLICIES), args.hops or HOPS, args.trace_floor or TRACE_FLOORS)
    default = default_config()
    if default not in configs:
        configs.insert(0, default)
    with workbench(corpus, args.workdir) as bench:
        rows = [measure(config, chosen, adaptive, bench, args.model) for config in configs]
    best, why = recommend(rows, default)
    if args.json:
        payload = {"rows": [{**asdict(r), "config": asdict(r.config)} for r in rows], "recommendation": why}
        print(json.dumps({**payload, "recommended": asdict(best.config) if best else None}, indent=2))
    else:
        print_table(rows, default)
        for row in rows:
            if row.unsafe_cases:
                print(f"unsafe in {row.config.label()}: {', '.join(row.unsafe_cases)}")
        print(why)
    return 0
