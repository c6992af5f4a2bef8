"""``python -m dev.synapse_bench``: one entry, every harness reachable, each with its own help."""

from __future__ import annotations

import pytest

from dev.synapse_bench.__main__ import HARNESSES, main


@pytest.mark.parametrize("harness", sorted(HARNESSES))
def test_every_harness_answers_help(harness: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([harness, "--help"])
    assert stopped.value.code == 0
    assert "usage:" in capsys.readouterr().out


def test_an_unknown_harness_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nope"]) == 2
    assert "unknown harness" in capsys.readouterr().err


def test_no_harness_prints_the_list_and_fails() -> None:
    assert main([]) == 2
