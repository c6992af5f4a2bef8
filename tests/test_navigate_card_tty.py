"""The navigate card in a real terminal: its own colour codes reach the terminal as codes, never spelled out
(the content on the card is escaped where the card is built: tests/present/test_terminal_card.py)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from synapse_server.workspace_init import make_demo

SYNAPSE = Path(sys.executable).parent / "synapse"
QUESTION = "How did the Sharpe ratio change after costs rose to 8 bps?"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo(tmp_path_factory.mktemp("tty") / "demo")


def in_a_terminal(*args: str, env: dict[str, str] | None = None) -> str:
    """Run the installed CLI with a pseudo-terminal as stdout and return what the terminal received."""
    primary, secondary = pty.openpty()
    environ = {k: v for k, v in os.environ.items() if k not in ("SYNAPSE_MODEL", "NO_COLOR")} | (env or {})
    with subprocess.Popen(
        [str(SYNAPSE), *args], stdout=secondary, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=environ
    ) as child:
        os.close(secondary)
        received = bytearray()
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # EIO: the child closed its side of the terminal
                break
            if not chunk:
                break
            received.extend(chunk)
        child.wait(timeout=300)
    os.close(primary)
    assert child.returncode == 0, child.stderr.read() if child.stderr else ""
    return received.decode("utf-8")


def test_the_card_colours_reach_a_real_terminal_as_codes_not_as_spelled_escapes(demo: Path) -> None:
    shown = in_a_terminal("navigate", QUESTION, "--root", str(demo))
    assert "\x1b[" in shown and "ANSWER" in shown
    assert "\\u001b" not in shown


def test_no_color_leaves_no_escape_in_a_real_terminal(demo: Path) -> None:
    shown = in_a_terminal("navigate", QUESTION, "--root", str(demo), env={"NO_COLOR": "1"})
    assert "\x1b" not in shown and "\\u001b" not in shown and "ANSWER" in shown
