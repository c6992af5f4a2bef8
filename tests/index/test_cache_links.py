"""The SQLite cache never opens through a symlink a repository ships: not the file, its siblings, lock or folder."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from adapters.cache_files import CacheLinkRefused
from adapters.index import Embedder, HybridIndex
from adapters.index.store import Store
from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.mcp.dispatch import Dispatcher
from synapse_server.workspace.init import make_demo
from tests.support.index_corpus import DOCS, HashEncoder

SYNAPSE = Path(sys.executable).parent / "synapse"
DATABASE = "index-default.sqlite3"


def foreign_database(path: Path) -> bytes:
    """A SQLite file that is not Synapse's: its bytes must never change."""
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE ledger(entry TEXT)")
        conn.execute("INSERT INTO ledger VALUES ('keep me')")
    conn.close()
    return path.read_bytes()


def test_a_symlinked_index_database_is_refused_and_an_empty_target_stays_empty(tmp_path: Path) -> None:
    target = tmp_path / "outside" / "empty"
    target.parent.mkdir()
    target.touch()
    cache = tmp_path / ".angelo"
    cache.mkdir()
    (cache / DATABASE).symlink_to(target)
    with pytest.raises(CacheLinkRefused) as refused:
        HybridIndex.open(cache, HashEncoder())
    assert refused.value.where == f".angelo/{DATABASE}"
    assert target.read_bytes() == b""
    assert sorted(p.name for p in target.parent.iterdir()) == ["empty"]


def test_a_foreign_database_behind_a_symlink_keeps_its_bytes_and_gets_no_tables(tmp_path: Path) -> None:
    target = tmp_path / "outside.sqlite3"
    before = foreign_database(target)
    cache = tmp_path / ".angelo"
    cache.mkdir()
    (cache / DATABASE).symlink_to(target)
    with pytest.raises(CacheLinkRefused):
        HybridIndex.open(cache, HashEncoder())
    with pytest.raises(CacheLinkRefused):
        Store(cache / DATABASE)  # the path `synapse index migrate` opens directly
    assert target.read_bytes() == before


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_symlinked_sibling_of_the_database_is_refused(tmp_path: Path, suffix: str) -> None:
    target = tmp_path / "outside"
    target.write_bytes(b"untouched")
    cache = tmp_path / ".angelo"
    cache.mkdir()
    (cache / f"{DATABASE}{suffix}").symlink_to(target)
    with pytest.raises(CacheLinkRefused) as refused:
        HybridIndex.open(cache, HashEncoder())
    assert refused.value.where == f".angelo/{DATABASE}{suffix}"
    assert target.read_bytes() == b"untouched"


def test_a_symlinked_lock_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "outside"
    target.write_bytes(b"untouched")
    cache = tmp_path / ".angelo"
    cache.mkdir()
    (cache / "index-default.lock").symlink_to(target)
    with pytest.raises(CacheLinkRefused):
        HybridIndex.open(cache, HashEncoder())
    assert target.read_bytes() == b"untouched"


def test_a_symlinked_cache_folder_is_refused_and_its_target_stays_empty(tmp_path: Path) -> None:
    target = tmp_path / "outside"
    target.mkdir()
    cache = tmp_path / "workspace" / ".angelo"
    cache.parent.mkdir()
    cache.symlink_to(target, target_is_directory=True)
    with pytest.raises(CacheLinkRefused) as refused:
        HybridIndex.open(cache, HashEncoder())
    assert refused.value.where == ".angelo"
    assert list(target.iterdir()) == []


def test_a_real_cache_folder_still_builds_and_rebuilds_its_index(tmp_path: Path) -> None:
    cache = tmp_path / ".angelo"
    with HybridIndex.open(cache, HashEncoder()) as index:
        index.sync(DOCS)
    (cache / DATABASE).write_bytes(b"not a database at all")
    with HybridIndex.open(cache, HashEncoder()) as index:
        assert index.path == cache / DATABASE
        index.sync(DOCS)
        assert len(index) == len(DOCS)


def test_the_search_command_refuses_a_committed_symlinked_index_with_a_structured_error(tmp_path: Path) -> None:
    root = make_demo(tmp_path / "demo")
    target = tmp_path / "outside.sqlite3"
    before = foreign_database(target)
    shutil.rmtree(root / ".angelo", ignore_errors=True)
    (root / ".angelo").mkdir()
    (root / ".angelo" / DATABASE).symlink_to(target)
    env = {k: v for k, v in os.environ.items() if k not in {"SYNAPSE_MODEL", "SYNAPSE_INDEX_DSN"}}
    done = subprocess.run(
        [str(SYNAPSE), "search", "transaction costs", "--root", str(root), "--json"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=300,
    )
    assert target.read_bytes() == before
    assert done.returncode == 2, done.stderr
    error = json.loads(done.stderr.strip().splitlines()[-1])["error"]
    assert error["kind"] == "path_outside_workspace" and DATABASE in error["message"]


def test_the_search_tool_refuses_a_cache_folder_that_is_a_symlink(tmp_path: Path, embedder: Embedder) -> None:
    root = make_demo(tmp_path / "demo")
    shutil.rmtree(root / ".angelo", ignore_errors=True)
    (root / "elsewhere").mkdir()
    (root / ".angelo").symlink_to("elsewhere", target_is_directory=True)
    deps = Deps(ServerSettings(root=root, prespawn=False), embedder=embedder)
    try:
        outcome = anyio.run(Dispatcher(deps).call, {"action": "search", "query": "transaction costs"})
    finally:
        deps.close()
    assert outcome.is_error and outcome.payload["error"]["kind"] == "path_outside_workspace"
    assert list((root / "elsewhere").iterdir()) == []
