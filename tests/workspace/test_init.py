"""``synapse init``: an empty workspace that loads with the defaults and lints clean, and its refusals."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from synapse_server.cli.main import main
from synapse_server.errors import WorkspaceError
from synapse_server.workspace.config import Config, load_workspace
from synapse_server.workspace.init import init_workspace, make_demo
from synapse_server.workspace.lint import lint_workspace


def test_init_makes_a_workspace_that_loads_with_default_config_and_lints_clean(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "ws")
    workspace = load_workspace(root)
    assert workspace.config == Config.model_validate({})
    assert workspace.config_path == root / ".synapse" / "config.yaml"
    for store in (".memory/tree", ".zettelkasten", "runs"):
        assert (root / store).is_dir()
    assert ".angelo/" in (root / ".gitignore").read_text(encoding="utf-8").splitlines()
    report = lint_workspace(workspace)
    assert report.diagnostics == ()
    assert report.errors == 0


def test_init_creates_a_git_repository_when_the_folder_is_not_in_one(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "ws")
    assert (root / ".git").is_dir()


def test_init_does_not_nest_a_repository_inside_an_existing_one(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    root = init_workspace(tmp_path / "sub")
    assert not (root / ".git").exists()


def test_init_keeps_an_existing_project_and_appends_the_cache_ignore_once(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# mine\n", encoding="utf-8")
    (tmp_path / ".gitignore").write_text("build/", encoding="utf-8")
    init_workspace(tmp_path)
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == "# mine\n"
    assert (tmp_path / ".gitignore").read_text(encoding="utf-8") == "build/\n.angelo/\n"


def test_init_refuses_a_folder_that_already_holds_a_workspace(tmp_path: Path) -> None:
    init_workspace(tmp_path / "ws")
    with pytest.raises(WorkspaceError):
        init_workspace(tmp_path / "ws")
    (tmp_path / "other" / ".memory").mkdir(parents=True)
    with pytest.raises(WorkspaceError):
        init_workspace(tmp_path / "other")


def test_init_refuses_a_path_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(WorkspaceError):
        init_workspace(tmp_path / "file")


def test_demo_refuses_a_non_empty_folder_but_accepts_an_empty_one(tmp_path: Path) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x.txt").write_text("x", encoding="utf-8")
    with pytest.raises(WorkspaceError):
        make_demo(tmp_path / "full")
    (tmp_path / "empty").mkdir()
    assert (make_demo(tmp_path / "empty") / ".synapse" / "config.yaml").is_file()


def test_cli_init_exits_0_then_2_with_a_structured_error_for_an_existing_workspace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = str(tmp_path / "ws")
    assert main(["init", target]) == 0
    capsys.readouterr()
    assert main(["init", target, "--json"]) == 2
    error = json.loads(capsys.readouterr().err)["error"]
    assert error["kind"] == "workspace_error"
    assert str(tmp_path) not in error["message"]


def test_cli_init_demo_writes_the_demo_workspace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "--demo", str(tmp_path / "demo"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kind"] == "demo"
    assert (tmp_path / "demo" / ".memory" / "tree" / "deci-e17103e8.md").is_file()
