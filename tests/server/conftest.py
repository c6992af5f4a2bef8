"""Fixtures for the server tests: the demo workspace, built once per session, and private copies of it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from adapters.index import Embedder
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.stores import Stores


@pytest.fixture(scope="session")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo workspace shared by read-only tests (its index cache warms once)."""
    return make_demo(tmp_path_factory.mktemp("server") / "demo")


@pytest.fixture
def fresh_demo(tmp_path: Path) -> Path:
    """A private demo workspace for a test that edits it or checks what was written."""
    return make_demo(tmp_path / "demo")


@pytest.fixture(scope="session")
def indexed_demo(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Path:
    """A demo whose index cache is built, never served: the template of :func:`warm_demo`."""
    root = make_demo(tmp_path_factory.mktemp("indexed") / "demo")
    Stores.load(load_workspace(root)).open_index(embedder).close()
    return root


@pytest.fixture
def warm_demo(tmp_path: Path, indexed_demo: Path) -> Path:
    """A private demo with a warm index cache (git history included), for servers that must start fast."""
    return Path(shutil.copytree(indexed_demo, tmp_path / "demo", symlinks=True))
