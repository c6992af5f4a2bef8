"""``synapse navigate`` without ``--json``: the installed script prints a card, uncoloured when piped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from synapse_server.demo import load_questions

pytestmark = pytest.mark.both_backends

SYNAPSE = Path(sys.executable).parent / "synapse"
CASES = {case["id"]: case for case in load_questions()["questions"]}


@pytest.fixture(scope="module")
def demo(indexed_copy: Callable[[str], Path]) -> Path:
    return indexed_copy("card")


def navigate(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SYNAPSE_MODEL"}
    return subprocess.run(
        [str(SYNAPSE), "navigate", *args], capture_output=True, text=True, encoding="utf-8", env=env, timeout=300
    )


def test_the_default_output_is_a_plain_card_with_the_answer_and_its_citation(demo: Path) -> None:
    case = CASES["sharpe-after-cost-increase"]
    done = navigate(case["question"], "--root", str(demo), "--model", "extractive", "--trace")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"ANSWER · {case['expect']['status']}"
    assert case["evidence"]["sentence"] in done.stdout
    assert case["evidence"]["address"] in done.stdout
    assert "Reasoning" in done.stdout and "extractive" in done.stdout
    assert "\x1b[" not in done.stdout  # piped, so no colour
    with pytest.raises(json.JSONDecodeError):
        json.loads(done.stdout)


def test_an_abstention_card_names_its_canonical_reason(demo: Path) -> None:
    case = CASES["carry-signal"]
    done = navigate(case["question"], "--root", str(demo), "--token-budget", "24000", "--render-max-body-chars", "0")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"ABSTAINED · {case['expect']['reason']}"
