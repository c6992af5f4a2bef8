"""The installed ``synapse serve`` over real stdio: build (with progress), then connections and matrix read it."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import IO, Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from adapters.index import Embedder
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import Stores

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]

SYNAPSE = Path(sys.executable).parent / "synapse"
DECISION = "mem:tree:deci-e17103e8"


@pytest.fixture
def workspace(demo_root: Path, tmp_path: Path, embedder: Embedder) -> Path:
    """A copy of the demo with its index cache warm, so the server process need not load the model."""
    Stores.load(load_workspace(demo_root)).open_index(embedder).close()  # the session demo's cache warms once
    return Path(shutil.copytree(demo_root, tmp_path / "demo", symlinks=True))


def structured(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error is False, result.content
    assert result.structured_content is not None
    return result.structured_content


async def test_the_installed_server_builds_then_serves_connections_and_matrix_over_stdio(
    workspace: Path, server_log: IO[str]
):
    progress: list[tuple[float, float | None, str | None]] = []

    async def record(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    params = StdioServerParameters(command=str(SYNAPSE), args=["serve", "--root", str(workspace)], env={**os.environ})
    async with stdio_client(params, errlog=server_log) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        build = structured(await session.call_tool("synapse", {"action": "build"}, progress_callback=record))
        connections = structured(await session.call_tool("synapse", {"action": "connections", "id": DECISION}))
        matrix = structured(await session.call_tool("synapse", {"action": "matrix", "limit": 3}))
    assert build["path"] == ".synapse/links/links.json" and build["kept"] > 0
    assert (workspace / build["path"]).is_file()
    assert progress and progress[-1][0] == progress[-1][1] == build["candidates"] + 1
    assert connections["drift"] == "fresh" and connections["edges"]
    assert all(edge["practice"] == DECISION for edge in connections["edges"])
    assert len(matrix["rows"]) == 3 and all(row["address"].startswith("mem:tree:") for row in matrix["rows"])
    assert matrix["columns"] and all(col["address"].startswith("zk:") for col in matrix["columns"])
