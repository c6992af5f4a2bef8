"""``--root`` means one thing for every command: by default the nearest workspace above the current folder, and
a folder that is not a workspace is refused (exit 2), never read as an empty one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from synapse_server.workspace.init import make_demo
from tests.support import REPOSITORY

SYNAPSE = Path(sys.executable).parent / "synapse"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo(tmp_path_factory.mktemp("root") / "demo")


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SYNAPSE_MODEL"}
    return subprocess.run(
        [str(SYNAPSE), *args], cwd=cwd, capture_output=True, text=True, encoding="utf-8", env=env, timeout=300
    )


def test_lint_in_a_subfolder_lints_the_whole_workspace(demo: Path) -> None:
    done = run("lint", "--json", cwd=demo / ".memory" / "tree")
    payload = json.loads(done.stdout)
    from_root = json.loads(run("lint", "--json", cwd=demo).stdout)
    assert payload == from_root
    assert "0 files" not in done.stdout


@pytest.mark.parametrize("command", [["lint"], ["build"], ["connections", "deci-e17103e8"], ["matrix"], ["eval"]])
def test_a_command_outside_any_workspace_is_refused_not_an_empty_all_clear(tmp_path: Path, command: list[str]) -> None:
    done = run(*command, cwd=tmp_path)
    assert done.returncode == 2, done.stdout
    assert "workspace" in done.stderr


def test_every_workspace_command_shares_one_root_option() -> None:
    source = REPOSITORY / "synapse_server"
    defined = [p for p in source.rglob("*.py") if '"--root", default' in p.read_text(encoding="utf-8")]
    assert [p.name for p in defined] == ["options.py"]
