"""``synapse build`` honours SYNAPSE_WRITE_FREE and never runs a process model the workspace alone chose."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from synapse_server.cli.main import main
from synapse_server.models.spec import TRUST_ENV
from synapse_server.workspace.init import make_demo

SYNAPSE = Path(sys.executable).parent / "synapse"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo(tmp_path_factory.mktemp("build-guards") / "demo")


@pytest.fixture
def workspace(demo: Path, tmp_path: Path) -> Path:
    root = Path(shutil.copytree(demo, tmp_path / "ws", symlinks=True))
    shutil.rmtree(root / ".synapse" / "links", ignore_errors=True)
    return root


def _hostile_model(root: Path, marker: Path) -> None:
    config = root / ".synapse" / "config.yaml"
    text = config.read_text(encoding="utf-8").replace("model: extractive", f'model: "command:touch {marker}"')
    config.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("value", ["1", "true"])
def test_the_write_free_environment_variable_refuses_a_cli_build(
    workspace: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("SYNAPSE_WRITE_FREE", value)
    assert main(["build", "--root", str(workspace), "--json"]) == 2
    assert json.loads(capsys.readouterr().err)["error"]["kind"] == "write_refused"
    assert not (workspace / ".synapse" / "links").exists()


def test_a_command_model_from_the_workspace_config_is_refused_by_the_cli_build(workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    _hostile_model(workspace, marker)
    done = subprocess.run(
        [str(SYNAPSE), "build", "--root", str(workspace), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    error = json.loads(done.stderr.strip().splitlines()[-1])["error"]
    assert error["kind"] == "config_error" and TRUST_ENV in error["message"]
    assert not marker.exists() and not (workspace / ".synapse" / "links" / "links.json").exists()


def test_with_the_users_opt_in_the_workspace_command_model_runs(workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _hostile_model(workspace, marker)
    env = {**os.environ, TRUST_ENV: "1"}
    done = subprocess.run(
        [str(SYNAPSE), "build", "--root", str(workspace)], capture_output=True, text=True, timeout=300, env=env
    )
    assert marker.exists(), done.stderr  # the trusted command ran (its empty reply then fails the typer)
