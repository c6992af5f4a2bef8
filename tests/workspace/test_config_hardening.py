"""Hostile ``.synapse/config.yaml`` values are config errors naming the key, never tracebacks or unbounded walks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from synapse_server.errors import ConfigError
from synapse_server.workspace.config import load_workspace


def write_config(root: Path, text: str) -> Path:
    path = root / ".synapse" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text", ["projects: " + "[" * 1000 + "]" * 1000, "navigate:\n" + "".join(
    "  " * depth + f"k{depth}:\n" for depth in range(1, 400)
)], ids=["flow", "block"])  # fmt: skip
def test_deep_nesting_is_a_config_error_not_a_recursion_error(tmp_path: Path, text: str) -> None:
    write_config(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_workspace(tmp_path)
    assert "config.yaml" in info.value.message


def test_yaml_aliases_in_the_config_are_refused(tmp_path: Path) -> None:
    write_config(tmp_path, "navigate: {hops: &h 1, max_nodes: *h}\n")
    with pytest.raises(ConfigError) as info:
        load_workspace(tmp_path)
    assert "alias" in info.value.message


def test_a_fifo_config_is_a_config_error_not_a_blocking_read(tmp_path: Path) -> None:
    (tmp_path / ".synapse").mkdir()
    os.mkfifo(tmp_path / ".synapse" / "config.yaml")
    with pytest.raises(ConfigError) as info:
        load_workspace(tmp_path)
    assert "regular file" in info.value.message


@pytest.mark.parametrize("root", ["/", "..", "../.."], ids=["filesystem-root", "parent", "grandparent"])
def test_a_federated_root_that_is_not_a_project_zettelkasten_is_a_config_error(tmp_path: Path, root: str) -> None:
    workspace = tmp_path / "a" / "ws"
    workspace.mkdir(parents=True)
    write_config(workspace, f"federation: {{far: '{root}'}}\n")
    with pytest.raises(ConfigError) as info:
        load_workspace(workspace)
    assert info.value.detail["key"] == "federation.far"


def test_a_plain_folder_without_a_project_marker_is_not_a_federated_root(tmp_path: Path) -> None:
    (tmp_path / "loose" / "notes").mkdir(parents=True)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    write_config(workspace, "federation: {far: ../loose/notes}\n")
    with pytest.raises(ConfigError) as info:
        load_workspace(workspace)
    assert info.value.detail["key"] == "federation.far"


def test_another_projects_zettelkasten_is_a_valid_federated_root(tmp_path: Path) -> None:
    (tmp_path / "lab" / ".zettelkasten" / "research" / "notes").mkdir(parents=True)
    (tmp_path / "lab" / ".git").mkdir()
    (tmp_path / "team" / "zk").mkdir(parents=True)
    (tmp_path / "team" / ".synapse").mkdir()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    write_config(workspace, "federation: {lab: ../lab/.zettelkasten, team: ../team/zk}\n")
    assert set(load_workspace(workspace).federation_dirs) == {"lab", "team"}


@pytest.mark.parametrize(
    "cache",
    [".memory/tree", ".memory", ".zettelkasten/research", "runs", ".", ".synapse/links", ".git/synapse"],
)
def test_the_cache_must_lie_outside_every_store(tmp_path: Path, cache: str) -> None:
    write_config(tmp_path, f"cache: {cache}\n")
    with pytest.raises(ConfigError) as info:
        load_workspace(tmp_path)
    assert info.value.detail["key"] == "cache"


def test_a_cache_beside_the_stores_is_accepted(tmp_path: Path) -> None:
    write_config(tmp_path, "cache: .cache/synapse\n")
    assert load_workspace(tmp_path).cache_dir == tmp_path.resolve() / ".cache" / "synapse"
