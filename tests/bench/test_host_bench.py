"""The host-step harness runs the real turn both ways and reports every row beside the in-process baseline."""

from __future__ import annotations

from pathlib import Path

from dev.synapse_bench.host_bench import measure, report
from synapse_server.workspace.init import make_demo


def test_the_host_step_harness_measures_both_paths_to_the_same_answer(tmp_path: Path) -> None:
    figures = measure(make_demo(tmp_path / "demo"), repeat=2)  # measure asserts both paths answer
    assert set(figures) == {"in-process turn", "host step 1", "host step 2", "protocol only"}
    assert all(row["p50"] > 0 and row["p90"] >= row["p50"] for row in figures.values())
    text = report(figures)
    assert "| in-process turn |" in text and "×1.00" in text and "the protocol itself" in text
