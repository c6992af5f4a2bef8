"""Fixtures for the server tests: the demo workspace, built once per session, and private copies of it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from synapse_server.workspace.init import make_demo


@pytest.fixture(scope="session")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo workspace shared by read-only tests (its index cache warms once)."""
    return make_demo(tmp_path_factory.mktemp("server") / "demo")


@pytest.fixture
def fresh_demo(tmp_path: Path) -> Path:
    """A private demo workspace for a test that edits it or checks what was written."""
    return make_demo(tmp_path / "demo")


@pytest.fixture
def warm_demo(tmp_path: Path, indexed_demo: Path) -> Path:
    """A private copy of the session's indexed demo (git history included), for servers that must start fast."""
    return Path(shutil.copytree(indexed_demo, tmp_path / "demo", symlinks=True))
