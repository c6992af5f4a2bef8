"""One rule for project names: the config, the tool's parameters and the CLI accept exactly the same names."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from synapse_server.errors import ConfigError, InvalidInput
from synapse_server.names import check_federation_alias, check_project_name, project_list_arg
from synapse_server.navigation.request import NavigateRequest
from synapse_server.workspace.config import load_workspace

HOSTILE = ["a/b", "a\\b", ".hidden", "a,b", "x" * 100, "", "a b", "a:b", "{a}", "a\x00b", "tab\there"]
FINE = ["lab", "lab.ideas", "a-b_c", "x" * 64, "Ünïcode"]


def _config_accepts(root: Path, name: str) -> bool:
    (root / ".synapse").mkdir(parents=True, exist_ok=True)
    escaped = name.replace("\\", "\\\\").replace('"', '\\"').replace("\x00", "\\0").replace("\t", "\\t")
    (root / ".synapse" / "config.yaml").write_text(f'projects: ["{escaped}"]\n', encoding="utf-8")
    try:
        load_workspace(root)
    except ConfigError:
        return False
    return True


def _tool_accepts(name: str) -> bool:
    try:
        NavigateRequest(question="why?", projects=[name])
    except ValidationError:
        return False
    return True


def _cli_accepts(name: str) -> bool:
    try:
        project_list_arg(name)
    except InvalidInput:
        return False
    return True


@pytest.mark.parametrize("name", HOSTILE + FINE, ids=repr)
def test_the_config_the_tool_and_the_cli_agree_on_every_name(tmp_path: Path, name: str) -> None:
    tool = _tool_accepts(name)
    assert tool == (name in FINE)
    assert _config_accepts(tmp_path, name) == tool
    if "," not in name and name.strip() == name and name:  # the CLI splits on commas and trims each name
        assert _cli_accepts(name) == tool


@pytest.mark.parametrize("name", HOSTILE, ids=repr)
def test_a_hostile_project_in_the_config_is_a_config_error_naming_the_key(tmp_path: Path, name: str) -> None:
    assert not _config_accepts(tmp_path, name)
    with pytest.raises(ConfigError) as info:
        load_workspace(tmp_path)
    assert info.value.detail["key"].startswith("projects")


@pytest.mark.parametrize("alias", ["a/b", ".hidden", "a,b", "x" * 100, "lab.ideas", "a:b", "a b"], ids=repr)
def test_a_hostile_federation_alias_is_a_config_error_naming_the_key(tmp_path: Path, alias: str) -> None:
    (tmp_path / ".synapse").mkdir()
    (tmp_path / ".synapse" / "config.yaml").write_text(f'federation: {{"{alias}": ../lab}}\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_workspace(tmp_path)
    assert info.value.detail["key"].startswith("federation")


def test_a_federation_alias_is_a_project_name_without_a_dot() -> None:
    assert check_federation_alias("lab") == "lab"
    assert check_project_name("lab.ideas") == "lab.ideas"
    with pytest.raises(ValueError, match="dot"):
        check_federation_alias("lab.ideas")


def test_an_error_about_a_huge_name_is_bounded() -> None:
    with pytest.raises(ValueError) as info:
        check_project_name("/" * 1_000_000)
    assert len(str(info.value)) < 200


def test_the_cli_list_keeps_absent_and_empty_apart_and_names_the_parameter() -> None:
    assert project_list_arg(None) is None
    assert project_list_arg("") == []
    assert project_list_arg(" lab , lab.ideas ,") == ["lab", "lab.ideas"]
    with pytest.raises(InvalidInput) as info:
        project_list_arg("lab,../etc")
    assert info.value.detail["parameter"] == "projects"
