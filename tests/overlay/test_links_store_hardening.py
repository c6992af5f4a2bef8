"""The overlay write never follows a link: symlinked folders or files are refused, stale temp files are swept."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from synapse_server.errors import PathOutsideWorkspace
from synapse_server.overlay.store import write_overlay
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from tests.support.overlays import signed as _signed


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo(tmp_path_factory.mktemp("store-hardening") / "demo")


@pytest.fixture
def workspace(demo: Path, tmp_path: Path) -> Path:
    root = Path(shutil.copytree(demo, tmp_path / "ws", symlinks=True))
    shutil.rmtree(root / ".synapse" / "links", ignore_errors=True)
    return root


def _write(root: Path) -> Path:
    return write_overlay(load_workspace(root), _signed(root))


@pytest.mark.parametrize("name", [".gitignore", ".lock"])
def test_a_dangling_symlink_in_the_links_folder_is_refused_and_its_target_never_created(
    workspace: Path, tmp_path: Path, name: str
) -> None:
    links = workspace / ".synapse" / "links"
    links.mkdir(parents=True)
    target = tmp_path / f"planted{name}"
    (links / name).symlink_to(target)
    with pytest.raises(PathOutsideWorkspace):
        _write(workspace)
    assert not target.exists()
    assert not (links / "links.json").exists()


def test_a_links_folder_symlinked_into_a_source_store_is_refused(workspace: Path) -> None:
    (workspace / ".synapse" / "links").symlink_to(workspace / ".memory" / "tree", target_is_directory=True)
    before = sorted(p.name for p in (workspace / ".memory" / "tree").iterdir())
    with pytest.raises(PathOutsideWorkspace):
        _write(workspace)
    assert sorted(p.name for p in (workspace / ".memory" / "tree").iterdir()) == before


def test_a_symlinked_synapse_folder_is_refused(workspace: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere"
    shutil.move(str(workspace / ".synapse"), moved)
    (workspace / ".synapse").symlink_to(workspace / "runs", target_is_directory=True)
    with pytest.raises(PathOutsideWorkspace):
        _write(workspace)
    assert not (workspace / "runs" / "links").exists()


def test_a_symlinked_links_json_is_refused_and_its_target_keeps_its_bytes_and_mode(
    workspace: Path, tmp_path: Path
) -> None:
    links = workspace / ".synapse" / "links"
    links.mkdir(parents=True)
    secret = tmp_path / "private.json"
    secret.write_text("{}", encoding="utf-8")
    secret.chmod(0o600)
    (links / "links.json").symlink_to(secret)
    with pytest.raises(PathOutsideWorkspace):
        _write(workspace)
    assert secret.read_text(encoding="utf-8") == "{}" and (links / "links.json").is_symlink()


def test_a_replaced_links_json_gets_mode_0644(workspace: Path) -> None:
    path = _write(workspace)
    path.chmod(0o600)
    _write(workspace)
    assert stat.S_IMODE(os.lstat(path).st_mode) == 0o644


def test_stale_temp_files_of_an_interrupted_build_are_removed_by_the_next_build(workspace: Path) -> None:
    links = workspace / ".synapse" / "links"
    links.mkdir(parents=True)
    stale = [links / ".links.json.abc123.tmp", links / ".claim_links.json.x9.tmp"]
    for path in stale:
        path.write_bytes(b"half")
    keep = links / "notes.txt"
    keep.write_text("mine", encoding="utf-8")
    _write(workspace)
    assert [p for p in stale if p.exists()] == []
    assert keep.read_text(encoding="utf-8") == "mine"
    assert sorted(p.name for p in links.iterdir()) == [".gitignore", ".lock", "links.json", "notes.txt"]
