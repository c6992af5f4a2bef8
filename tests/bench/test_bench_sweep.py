"""The sweep: only perfectly safe configurations that strictly dominate the default are ever recommended."""

from __future__ import annotations

from dev.synapse_bench.canonical.cases import Case, Corpus
from dev.synapse_bench.canonical.workspaces import Workbench
from dev.synapse_bench.sweep import Config, Row, default_config, grid, measure, recommend

DEFAULT = Config("minimal", 1, 0.0)


def row(config: Config, *, unsafe: int = 0, answered: int = 5, false_abstentions: int = 1) -> Row:
    return Row(config, unsafe=unsafe, answered=answered, answerable=6, false_abstentions=false_abstentions)


def test_a_safe_configuration_that_strictly_dominates_the_default_is_recommended() -> None:
    better = Config("resolvability_cost", 2, 0.0)
    best, why = recommend([row(DEFAULT), row(better, answered=6, false_abstentions=0)], DEFAULT)
    assert best is not None and best.config == better
    assert why.startswith("recommend resolvability_cost hops=2")


def test_an_unsafe_configuration_is_never_recommended_however_useful() -> None:
    reckless = Config("minimal", 2, 0.0)
    best, why = recommend([row(DEFAULT), row(reckless, unsafe=1, answered=6, false_abstentions=0)], DEFAULT)
    assert best is None and why.startswith("keep the default")


def test_a_tie_on_utility_keeps_the_default() -> None:
    best, why = recommend([row(DEFAULT), row(Config("resolvability_cost", 1, 0.0))], DEFAULT)
    assert best is None and why.startswith("keep the default")


def test_an_unsafe_default_blocks_any_recommendation() -> None:
    best, why = recommend([row(DEFAULT, unsafe=1), row(Config("minimal", 0, 0.0), answered=6)], DEFAULT)
    assert best is None and "fix the engine" in why


def test_a_case_that_pins_a_swept_budget_keeps_its_own_value(corpus: Corpus) -> None:
    pinned = next(c for c in corpus.cases if c.id == "hops-exhausted")
    free = next(c for c in corpus.cases if c.id == "demo-volatility-target")
    config = Config("minimal", 2, 1.0)
    assert config.overrides(pinned) == {"trace_floor": 1.0}
    assert config.overrides(free) == {"hops": 2, "trace_floor": 1.0}


def test_both_voi_policies_run_under_the_safety_gate(corpus: Corpus, workbench: Workbench) -> None:
    wanted = {"demo-volatility-target", "changed-digit", "demo-tax-liability"}
    cases: list[Case] = [c for c in corpus.cases if c.id in wanted]
    configs = grid(["minimal", "resolvability_cost"], [1], [0.0])
    assert configs[0] == default_config()
    rows = [measure(config, cases, [c for c in cases if c.live], workbench, "extractive") for config in configs]
    assert [r.unsafe for r in rows] == [0, 0]
    assert [(r.answered, r.answerable, r.passed) for r in rows] == [(2, 2, 3), (2, 2, 3)]
    best, _ = recommend(rows, default_config())
    assert best is None
