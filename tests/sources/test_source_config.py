"""``sources:`` in the config: validated up front, kept inside the workspace, and never followed out of it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters.adr import AdrAdapter
from synapse_server.errors import ConfigError, WorkspaceError
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.source_config import default_cache_dir
from synapse_server.workspace.stores import Stores
from tests.support.source_fixtures import adr_repo, write_files


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("sources: [{kind: wiki, path: docs}]\n", "sources.0.kind"),
        ("sources: [{kind: adr}]\n", "sources.0.path"),
        ("sources: [{kind: adr, path: doc/adr, name: 'a:b'}]\n", "sources.0.name"),
        ("sources: [{kind: adr, path: doc/adr, colour: red}]\n", "sources.0.colour"),
    ],
)
def test_a_bad_source_entry_is_a_config_error_naming_the_key(tmp_path: Path, text: str, key: str) -> None:
    write_files(tmp_path, {".synapse/config.yaml": text})
    with pytest.raises(ConfigError) as caught:
        load_workspace(tmp_path)
    assert caught.value.detail["key"] == key


def test_a_source_outside_the_workspace_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    write_files(tmp_path / "ws", {".synapse/config.yaml": "sources: [{kind: adr, path: ../elsewhere}]\n"})
    with pytest.raises(ConfigError):
        Stores.load(load_workspace(tmp_path / "ws"))


def test_a_record_that_is_a_symlink_out_of_the_workspace_is_refused_and_never_read(tmp_path: Path) -> None:
    root = adr_repo(tmp_path / "repo")
    secret = tmp_path / "secret.md"
    secret.write_text("# 9. Secret\n\n## Status\n\nAccepted\n\nprivate words\n", encoding="utf-8")
    os.symlink(secret, root / "doc" / "adr" / "0009-secret.md")
    result = AdrAdapter(Path("doc/adr"), root, root).load()
    assert "mem:adr:0009-secret" not in {n.address for n in result.nodes}
    assert any(d.code == "path-escape" and d.path == "doc/adr/0009-secret.md" for d in result.diagnostics)
    assert all("private" not in n.body for n in result.nodes)


def test_the_cache_goes_to_the_user_cache_folder_keyed_by_workspace_path(tmp_path: Path) -> None:
    one, two = adr_repo(tmp_path / "one"), adr_repo(tmp_path / "two" / "one")
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    first, second = default_cache_dir(one, env), default_cache_dir(two, env)
    assert first.parent == second.parent == tmp_path / "xdg" / "synapse" and first != second
    write_files(one, {".gitignore": "/.angelo/\n"})
    assert default_cache_dir(one, env) == one / ".angelo"
    with pytest.raises(WorkspaceError):
        default_cache_dir(tmp_path / "two", env)  # neither a workspace nor a git repository
