from __future__ import annotations

from pathlib import Path

import pytest

from synapse_server.errors import ConfigError, WorkspaceError
from synapse_server.workspace.config import Config, find_workspace, load_workspace


def write_config(root: Path, text: str) -> None:
    (root / ".synapse").mkdir(parents=True, exist_ok=True)
    (root / ".synapse" / "config.yaml").write_text(text, encoding="utf-8")


def test_missing_config_means_the_documented_defaults(tmp_path: Path) -> None:
    (tmp_path / ".memory").mkdir()  # a workspace that is not a git repository keeps its cache inside
    ws = load_workspace(tmp_path)
    assert ws.config == Config()
    assert ws.config_path is None
    assert ws.memory_dir == tmp_path.resolve() / ".memory"
    assert ws.cache_dir == tmp_path.resolve() / ".angelo"
    assert ws.config.navigate.max_nodes == 40
    assert ws.config.model is None  # navigate then uses host under synapse serve, extractive elsewhere


def test_valid_config_is_loaded(tmp_path: Path) -> None:
    write_config(tmp_path, "projects: [research]\ncode: {name: demo, path: .}\nnavigate: {hops: 2, timeout_s: 30}\n")
    ws = load_workspace(tmp_path)
    assert ws.config.projects == ["research"]
    assert ws.code_name == "demo"
    assert ws.config.navigate.hops == 2
    assert ws.config.navigate.timeout_s == 30.0


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("projectz: [a]\n", "projectz"),
        ("projects: research\n", "projects"),
        ("write_free: 'yes'\n", "write_free"),
        ("navigate: {hops: -1}\n", "navigate.hops"),
        ("navigate: {max_nodez: 3}\n", "navigate.max_nodez"),
        ("code: {name: 5}\n", "code.name"),
        ("federation: {'a.b': ../x}\n", "federation"),
    ],
    ids=[
        "unknown-key",
        "wrong-type-list",
        "wrong-type-bool",
        "out-of-domain",
        "nested-unknown",
        "nested-type",
        "dotted-alias",
    ],
)
def test_invalid_config_names_the_key_and_the_file(tmp_path: Path, text: str, key: str) -> None:
    write_config(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_workspace(tmp_path)
    assert info.value.detail["key"] == key
    assert "config.yaml" in info.value.message


def test_broken_yaml_is_a_config_error_with_a_line(tmp_path: Path) -> None:
    write_config(tmp_path, "projects: [a\nmodel: x\n")
    with pytest.raises(ConfigError) as info:
        load_workspace(tmp_path)
    assert "invalid YAML" in info.value.message
    assert isinstance(info.value.detail["line"], int)


def test_a_non_mapping_config_is_refused(tmp_path: Path) -> None:
    write_config(tmp_path, "- a\n- b\n")
    with pytest.raises(ConfigError):
        load_workspace(tmp_path)


def test_store_paths_escaping_the_workspace_are_refused(tmp_path: Path) -> None:
    write_config(tmp_path, "memory: ../elsewhere\n")
    ws = load_workspace(tmp_path)
    with pytest.raises(ConfigError) as info:
        _ = ws.memory_dir
    assert info.value.detail["key"] == "memory"


def test_federated_roots_resolve_exactly_where_configured(tmp_path: Path) -> None:
    ws_root = tmp_path / "ws"
    ws_root.mkdir()
    write_config(ws_root, "federation: {lab: ../lab/.zettelkasten}\n")
    ws = load_workspace(ws_root)
    assert ws.federation_dirs == {"lab": (tmp_path / "lab" / ".zettelkasten").resolve()}


def test_projects_scope_semantics(tmp_path: Path) -> None:
    for name in ("research", "execution"):
        (tmp_path / ".zettelkasten" / name).mkdir(parents=True)
    ws = load_workspace(tmp_path)
    assert ws.scoped_projects() == ["execution", "research"]
    assert ws.scoped_projects([]) == []
    assert ws.scoped_projects(["research"]) == ["research"]
    write_config(tmp_path, "projects: [research]\n")
    assert load_workspace(tmp_path).scoped_projects() == ["research"]


def test_a_missing_root_is_a_workspace_error(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError):
        load_workspace(tmp_path / "nope")


def test_find_workspace_walks_up_to_the_marker(tmp_path: Path) -> None:
    (tmp_path / ".memory").mkdir()
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_workspace(deep) == tmp_path.resolve()
