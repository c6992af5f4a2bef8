"""``synapse build``'s progress line on a real terminal: each update replaces the last one whole (no stray tail of
a longer message) and the line ends before the summary; piped output gets no progress line at all."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from synapse_server.workspace.init import make_demo
from tests.support.pseudo_terminal import run_in_terminal

SYNAPSE = Path(sys.executable).parent / "synapse"
_CLEAR_TO_END = "\x1b[K"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo(tmp_path_factory.mktemp("progress") / "demo")


@pytest.fixture
def workspace(demo: Path, tmp_path: Path) -> Path:
    root = Path(shutil.copytree(demo, tmp_path / "ws", symlinks=True))
    shutil.rmtree(root / ".synapse" / "links", ignore_errors=True)
    return root


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("SYNAPSE_MODEL", "NO_COLOR")} | {"HF_HUB_OFFLINE": "1"}


def build_in_a_terminal(root: Path) -> str:
    """Run ``synapse build`` with one pseudo-terminal as stdout and stderr; what the terminal received."""
    argv = [str(SYNAPSE), "build", "--root", str(root), "--model", "extractive"]
    code, shown = run_in_terminal(argv, _environment(), stderr_too=True)
    assert code == 0, shown
    return shown.replace("\r\n", "\n")  # the terminal's own newline translation


def frames(shown: str) -> list[tuple[str, str]]:
    """Each progress update as (what it wrote, what the line then showed), by replaying carriage returns and
    clear-to-end-of-line the way a terminal does."""
    seen: list[tuple[str, str]] = []
    line: list[str] = []
    cursor = 0
    for piece in re.split(r"(\r|\n)", shown):
        if piece == "\n":
            line, cursor = [], 0
        elif piece == "\r":
            cursor = 0
        elif piece:
            written = piece
            if written.startswith(_CLEAR_TO_END):
                line, written = line[:cursor], written[len(_CLEAR_TO_END) :]
            line[cursor : cursor + len(written)] = list(written)
            cursor += len(written)
            seen.append((written, "".join(line)))
    return seen


def test_each_progress_update_replaces_the_whole_line_on_a_terminal(workspace: Path) -> None:
    shown = build_in_a_terminal(workspace)
    updates = [(wrote, showed) for wrote, showed in frames(shown) if wrote.strip()]
    assert any(wrote.startswith("typed ") for wrote, _ in updates), shown
    for wrote, showed in updates:
        assert showed.rstrip() == wrote.rstrip(), (wrote, showed)


def test_the_summary_starts_on_its_own_line_after_the_progress_line(workspace: Path) -> None:
    lines = build_in_a_terminal(workspace).split("\n")
    summary = next(i for i, line in enumerate(lines) if "links kept of" in line)
    assert lines[summary].startswith(".synapse/links/links.json: "), lines[summary]
    assert lines[summary - 1].rstrip().endswith("links.json"), lines[summary - 1]  # the last update, ended


def test_piped_output_has_no_progress_line_and_no_terminal_codes(workspace: Path) -> None:
    done = subprocess.run(
        [str(SYNAPSE), "build", "--root", str(workspace), "--model", "extractive"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=_environment(),
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr + done.stdout and "\x1b" not in done.stderr + done.stdout
    assert done.stdout.startswith(".synapse/links/links.json: ")
