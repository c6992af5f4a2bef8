"""``synapse navigate --json`` as a script runs it: the installed script, the public JSON on stdout, honest exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from synapse_server.demo import load_questions
from synapse_server.workspace.init import make_demo

SYNAPSE = Path(sys.executable).parent / "synapse"
CASES = {case["id"]: case for case in load_questions()["questions"]}
PUBLIC_KEYS = {
    "action",
    "summary",
    "verdict",
    "status",
    "reasons",
    "halted_reason",
    "conclusion",
    "outdated",
    "detail",
    "answer_surface",
    "trace_surface",
    "envelope",
    "hops",
    "renavigations",
    "tokens_spent",
    "loop_break",
    "model",
    "superseded",
}
ANSWER_KEYS = {
    "version",
    "text",
    "conclusion_claim_id",
    "inference_form",
    "status",
    "premise_claim_ids",
    "citations",
    "outdated",
    "disclosure",
    "superseded",
    "superseded_disclosures",
}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo(tmp_path_factory.mktemp("cli") / "demo")


def synapse(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SYNAPSE_MODEL"}
    return subprocess.run(
        [str(SYNAPSE), "navigate", *args, "--json"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=300,
    )


def public_json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads(done.stdout)
    assert set(payload) == PUBLIC_KEYS
    return payload


@pytest.mark.both_backends  # it searches the index; the refusals below never reach it
def test_an_answer_prints_exactly_the_public_json_and_exits_0(demo: Path) -> None:
    case = CASES["cost-increase"]
    done = synapse(case["question"], "--root", str(demo), "--model", "extractive", "--hops", "1", "--max-nodes", "20")
    assert done.returncode == 0, done.stderr
    payload = public_json(done)
    assert (payload["verdict"], payload["status"], payload["halted_reason"]) == ("answer", "grounded", "answer")
    assert set(payload["answer_surface"]) == ANSWER_KEYS
    assert payload["answer_surface"]["disclosure"] == case["expect"]["disclosure"]
    assert payload["model"]["provider"] == "extractive"


@pytest.mark.both_backends  # it searches the index; the refusals below never reach it
def test_an_abstention_is_an_honest_outcome_and_exits_0(demo: Path) -> None:
    case = CASES["carry-signal"]
    done = synapse(case["question"], "--root", str(demo), "--token-budget", "24000", "--render-max-body-chars", "0")
    assert done.returncode == 0, done.stderr
    payload = public_json(done)
    assert (payload["verdict"], payload["reasons"], payload["answer_surface"]) == ("abstain", ["stale"], None)


@pytest.mark.both_backends  # it searches the index; the refusals below never reach it
def test_an_operational_failure_prints_the_failure_json_and_exits_1(demo: Path) -> None:
    done = synapse("What changed?", "--root", str(demo), "--model", "command:false", "--trace-floor", "0.5")
    assert done.returncode == 1
    payload = public_json(done)
    assert (payload["verdict"], payload["answer_surface"], payload["trace_surface"]) == ("failure", None, None)
    assert payload["model"] == {"provider": "command", "id": "false"}


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["What?", "--token-budget", "10"], id="token-budget-too-small"),
        pytest.param(["What?", "--hops", "99"], id="hops-too-deep"),
        pytest.param(["What?", "--max-nodes", "-3"], id="max-nodes-out-of-domain"),
        pytest.param(["What?", "--render-max-body-chars", "-2"], id="body-chars-out-of-domain"),
        pytest.param(["What?", "--trace-floor", "2"], id="trace-floor-out-of-domain"),
        pytest.param(["What?", "--max-nodes", "many"], id="not-a-number"),
        pytest.param([""], id="empty-question"),
        pytest.param(["   "], id="blank-question"),
        pytest.param(["What?", "--projects", "nope"], id="unknown-project"),
        pytest.param(["What?", "--model", "bogus:x"], id="unknown-model-provider"),
    ],
)
def test_invalid_input_exits_2_with_nothing_on_stdout(demo: Path, args: list[str]) -> None:
    done = synapse(*args, "--root", str(demo))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip()


def test_a_root_that_is_not_a_workspace_is_refused(tmp_path: Path) -> None:
    done = synapse("What?", "--root", str(tmp_path / "nowhere"))
    assert done.returncode == 2 and done.stdout == ""
    assert json.loads(done.stderr)["error"]["kind"] == "workspace_error"
