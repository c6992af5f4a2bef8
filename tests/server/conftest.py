"""Fixtures for the server tests: the demo workspace (built once per session) and servers over it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from adapters.index import Embedder
from synapse_server.actions.deps import ServerSettings
from synapse_server.isolation.protocol import TEST_JOB_ENV
from synapse_server.mcp.server import build_server
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.stores import Stores

ServerFactory = Callable[..., MCPServer[Any]]


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


@pytest.fixture
def make_server() -> ServerFactory:
    """Build a server over a root; no warm template unless asked, no embedder unless given (search loads it)."""

    def build(
        root: Path, *, embedder: Embedder | None = None, job: str | None = None, **settings: Any
    ) -> MCPServer[Any]:
        settings.setdefault("prespawn", False)
        if job is not None:
            settings["worker_env"] = {TEST_JOB_ENV: job}
        return build_server(ServerSettings(root=root, **settings), embedder=embedder)

    return build


@pytest.fixture(autouse=True)
def _no_inherited_job(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test-only worker job must come from the test that sets it, never from the outer environment."""
    monkeypatch.delenv(TEST_JOB_ENV, raising=False)
    monkeypatch.delenv("SYNAPSE_WRITE_FREE", raising=False)
    monkeypatch.delenv("SYNAPSE_MODEL", raising=False)
    assert TEST_JOB_ENV not in os.environ
