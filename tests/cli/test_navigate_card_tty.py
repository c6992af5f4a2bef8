"""The navigate card in a real terminal: its own colour codes reach the terminal as codes, never spelled out
(the content on the card is escaped where the card is built: tests/present/test_terminal_card.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from synapse_server.workspace.init import make_demo
from tests.support.pseudo_terminal import run_in_terminal

SYNAPSE = Path(sys.executable).parent / "synapse"
QUESTION = "How did the Sharpe ratio change after costs rose to 8 bps?"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo(tmp_path_factory.mktemp("tty") / "demo")


def in_a_terminal(*args: str, env: dict[str, str] | None = None) -> str:
    """Run the installed CLI with a pseudo-terminal as stdout and return what the terminal received."""
    environ = {k: v for k, v in os.environ.items() if k not in ("SYNAPSE_MODEL", "NO_COLOR")} | (env or {})
    code, shown = run_in_terminal([str(SYNAPSE), *args], environ)
    assert code == 0, shown
    return shown


def test_the_card_colours_reach_a_real_terminal_as_codes_not_as_spelled_escapes(demo: Path) -> None:
    shown = in_a_terminal("navigate", QUESTION, "--root", str(demo))
    assert "\x1b[" in shown and "ANSWER" in shown
    assert "\\u001b" not in shown


def test_no_color_leaves_no_escape_in_a_real_terminal(demo: Path) -> None:
    shown = in_a_terminal("navigate", QUESTION, "--root", str(demo), env={"NO_COLOR": "1"})
    assert "\x1b" not in shown and "\\u001b" not in shown and "ANSWER" in shown
