"""The live harness: opt-in without a model, and driving a real external ``command:`` model when given one."""

from __future__ import annotations

import shlex
import sys

import pytest

from dev.synapse_bench import live
from dev.synapse_bench.canonical.cases import Corpus
from dev.synapse_bench.canonical.workspaces import Workbench
from tests.support import SUPPORT

BRIDGE = SUPPORT / "extractive_bridge.py"


def test_live_harness_without_a_model_says_so_and_exits_zero(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SYNAPSE_MODEL", raising=False)
    assert live.main([]) == 0
    assert "no model configured" in capsys.readouterr().out


def test_live_harness_drives_a_command_model_and_reports_reliability(corpus: Corpus, workbench: Workbench) -> None:
    spec = f"command:{shlex.quote(sys.executable)} {shlex.quote(str(BRIDGE))}"
    cases = live.live_cases(corpus, ["demo-volatility-target", "demo-cost-increase", "demo-tax-liability"])
    result = live.run_live(cases, workbench, spec, repeat=2, timeout_s=120)
    overall = result["overall"]
    assert result["model"].startswith("command:")
    assert overall["runs"] == 6
    assert overall["parse_success_rate"] == 1.0
    assert overall["repairs_used"] == 0
    assert overall["answer_rate"] == round(4 / 6, 3)
    assert overall["oracle_agreement"] == 1.0
    assert overall["unsafe_answers"] == 0
    assert result["cases"]["demo-cost-increase"]["verdicts"] == ["answer:grounded", "answer:grounded"]


def test_only_live_eligible_cases_run_live(corpus: Corpus) -> None:
    chosen = live.live_cases(corpus, None)
    assert chosen and all(case.live for case in chosen)
    assert {case.category for case in chosen} <= {"truth", "disclosure", "abstention"}
