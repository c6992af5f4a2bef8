"""No action writes anything but the derived cache: source stores, config, code and git stay byte-identical."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from mcp import Client

from adapters.index import Embedder
from synapse_server.workspace.config import load_workspace
from tests.support.servers import ServerFactory

pytestmark = pytest.mark.anyio


def snapshot(root: Path, cache: Path) -> dict[str, str]:
    """Every path outside the cache dir (files hashed, directories marked), the .git folder included."""
    seen: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        if path == cache or cache in path.parents:
            continue
        key = path.relative_to(root).as_posix()
        if path.is_symlink():
            seen[key] = "link:" + str(path.readlink())
        elif path.is_dir():
            seen[key] = "dir"
        else:
            seen[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return seen


async def test_every_action_leaves_everything_outside_the_cache_dir_untouched(
    make_server: ServerFactory, fresh_demo: Path, embedder: Embedder
):
    cache = load_workspace(fresh_demo).cache_dir
    before = snapshot(fresh_demo, cache)
    assert any(key.startswith(".memory/") for key in before) and any(key.startswith(".git/") for key in before)
    calls = [
        {"action": "search", "query": "transaction costs"},
        {"action": "search", "query": "momentum", "projects": []},
        {"action": "get", "id": "deci-e17103e8"},
        {"action": "get", "id": "repo:momentum:models/costs.py"},
        {"action": "get", "id": "data:runs:run-002"},
        {"action": "get", "id": "../../outside"},
        {"action": "navigate", "question": "What annualised volatility target do the momentum positions use?"},
        {"action": "navigate", "question": "Which colour is the office carpet?", "projects": []},
        {"action": "bogus"},
    ]
    async with Client(make_server(fresh_demo, embedder=embedder, prespawn=True)) as client:
        results = [await client.call_tool("synapse", arguments) for arguments in calls]
    assert [r.is_error for r in results] == [False, False, False, False, False, True, False, False, True]
    assert snapshot(fresh_demo, cache) == before
    assert cache.is_dir(), "the derived index lives in the cache dir"
