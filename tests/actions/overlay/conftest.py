"""One demo copy per module with both overlays built once over MCP; tests that write work on a further copy.

The build tests read what that build reported and the progress it sent; a copy
keeps the warm index cache, so only the overlay build is paid per module.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mcp import Client

from adapters.index import Embedder
from synapse_server.actions.deps import ServerSettings
from synapse_server.mcp.server import build_server
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import Stores
from tests.support.overlay_actions import Built
from tests.support.tool_calls import payload


@pytest.fixture(scope="module")
async def built(tmp_path_factory: pytest.TempPathFactory, demo_root: Path, embedder: Embedder) -> Built:
    """A copy of the session demo (index cache warmed first) with both overlays built through one server, and the
    progress the generic build reported."""
    Stores.load(load_workspace(demo_root)).open_index(embedder).close()  # the session demo's cache warms once
    root = Path(shutil.copytree(demo_root, tmp_path_factory.mktemp("overlay-actions") / "demo", symlinks=True))
    progress: list[tuple[float, float | None, str | None]] = []

    async def record(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    server = build_server(ServerSettings(root=root, prespawn=False), embedder=embedder)
    async with Client(server) as client:
        generic = await client.call_tool("synapse", {"action": "build"}, progress_callback=record)
        claim = await client.call_tool("synapse", {"action": "build", "kind": "claim"})
    return Built(root, payload(generic), payload(claim), progress)


@pytest.fixture
def copy(built: Built, tmp_path: Path) -> Path:
    """A private copy of the built demo (index cache included) for a test that writes or deletes."""
    return Path(shutil.copytree(built.root, tmp_path / "demo", symlinks=True))
