"""``synapse dashboard`` argument checks and its log hygiene (no server started)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from synapse_server.cli.commands.dashboard import RedactToken
from synapse_server.cli.main import main


def test_an_out_of_range_port_is_invalid_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dashboard", "--root", str(tmp_path), "--port", "70000"]) == 2
    assert "invalid_input: port" in capsys.readouterr().err


def test_a_bad_model_spec_is_refused_before_anything_listens(tmp_path: Path) -> None:
    assert main(["dashboard", "--root", str(tmp_path), "--chat-model", "bogus:x"]) == 2


def test_a_folder_that_is_not_a_workspace_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dashboard", "--root", str(tmp_path / "nowhere")]) == 2
    assert "workspace_error" in capsys.readouterr().err


def test_the_access_log_never_carries_the_token() -> None:
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", "/matrix?kind=claim&token=s3cret", "1.1", 303), None,
    )  # fmt: skip
    assert RedactToken().filter(record)
    assert "s3cret" not in record.getMessage() and "token=…" in record.getMessage()
