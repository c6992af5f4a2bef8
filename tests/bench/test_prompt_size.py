"""The prompt-size benchmark: the lean envelope is smaller on the demo and changes no outcome."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.index import Embedder
from dev.synapse_bench.nav_bench import demo_questions
from dev.synapse_bench.prompt_size import compare, format_table, spread
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.stores import Stores


def test_spread_reports_median_nearest_rank_p90_min_and_max() -> None:
    assert spread([5, 1, 3, 2, 4, 6, 7, 8, 9, 10]) == {"median": 5.5, "p90": 10, "min": 1, "max": 10, "n": 10}
    assert spread([])["n"] == 0


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo(tmp_path_factory.mktemp("sizes") / "demo")


def test_the_lean_envelope_sends_fewer_bytes_and_nodes_with_the_same_outcome_on_every_demo_question(
    demo: Path, embedder: Embedder
) -> None:
    result = compare(demo, demo_questions(), embedder, Stores.load(load_workspace(demo)))

    assert result["changed_outcomes"] == []
    lean, legacy = result["lean"], result["legacy"]
    assert lean["prompt_bytes"]["n"] >= len(demo_questions())
    assert lean["prompt_bytes"]["median"] < legacy["prompt_bytes"]["median"]
    assert lean["nodes"]["max"] < legacy["nodes"]["max"] == 40
    assert "| prompt bytes | lean |" in format_table(result)
