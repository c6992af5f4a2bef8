"""``index:`` in the config and ``SYNAPSE_INDEX_DSN``: which backend a workspace's index uses, under which key."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.index import Embedder
from synapse_server.errors import ConfigError, IndexUnavailable
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import index_settings, open_workspace_index


def write_config(root: Path, text: str) -> Path:
    (root / ".synapse").mkdir(parents=True, exist_ok=True)
    (root / ".synapse" / "config.yaml").write_text(text, encoding="utf-8")
    return root


def test_without_config_or_env_the_index_is_the_embedded_sqlite_file(tmp_path: Path) -> None:
    settings = index_settings(load_workspace(tmp_path), env={})
    assert (settings.backend, settings.dsn) == ("sqlite", None)


def test_the_config_chooses_postgres_its_dsn_and_workspace_key(tmp_path: Path) -> None:
    write_config(tmp_path, "index: {backend: postgres, dsn: 'postgresql://db.example/kb', workspace: team-kb}\n")
    settings = index_settings(load_workspace(tmp_path), env={"SYNAPSE_TRUST_WORKSPACE_MODEL": "1"})
    assert (settings.backend, settings.dsn, settings.trusted) == ("postgres", "postgresql://db.example/kb", True)
    assert settings.workspace.startswith("team-kb-")  # the label, bound to this workspace folder
    assert "db.example" not in repr(settings) and "db.example" not in settings.describe()


def test_the_environment_dsn_wins_over_the_config_and_selects_postgres(tmp_path: Path) -> None:
    write_config(tmp_path, "index: {backend: sqlite, dsn: 'postgresql://config/kb'}\n")
    settings = index_settings(load_workspace(tmp_path), env={"SYNAPSE_INDEX_DSN": "postgresql://env/kb"})
    assert (settings.backend, settings.dsn) == ("postgres", "postgresql://env/kb")


def test_the_default_workspace_key_is_stable_per_folder_and_differs_between_clones(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a1, a2, b = (index_settings(load_workspace(tmp_path / n), env={}).workspace for n in ("a", "a", "b"))
    assert a1 == a2 != b
    assert a1.startswith("a-") and b.startswith("b-")


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("index: {backend: mysql}\n", "index.backend"),
        ("index: {dsn: {password: hunter2}}\n", "index.dsn"),
        ("index: {workspace: 'has space'}\n", "index.workspace"),
        ("index: {backend: postgres, pool: 4}\n", "index.pool"),
    ],
)
def test_a_bad_index_setting_is_a_config_error_naming_the_key_and_never_echoing_it(
    tmp_path: Path, text: str, key: str
) -> None:
    write_config(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_workspace(tmp_path)
    assert info.value.detail["key"] == key
    assert "hunter2" not in info.value.message


def test_postgres_without_a_dsn_is_a_structured_error(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SYNAPSE_INDEX_DSN", raising=False)
    write_config(tmp_path, "index: {backend: postgres}\n")
    with pytest.raises(IndexUnavailable, match="needs a DSN"):
        open_workspace_index(load_workspace(tmp_path), embedder)
