"""A store file edited through a hard link from outside the workspace is seen, within a documented bound.

A write through another link changes the file (its content, mtime and ctime)
but queues no inotify event in the store folder the server watches, and making
the link queues none either. A file that already has other links when the
stores are scanned is stat-ed at every check, so its edit shows at the next
call; a link made later is found by the periodic sweep, so its edit shows at
most ``SWEEP_EVERY_S`` seconds later. Real files, a real server over stdio.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, TextIO

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.freshness import SWEEP_EVERY_S, Freshness
from synapse_server.workspace.inotify import DirectoryWatch
from tests.support.procs import wait_until

SYNAPSE = Path(sys.executable).parent / "synapse"
VOLATILITY = Path(".memory/tree/deci-c3d4e5f6.md")
COSTS = Path(".memory/tree/deci-d4e5f607.md")
BOUND_S = SWEEP_EVERY_S + 20.0
"""How long a poll waits for a change the sweep must find: the bound plus a generous margin for a slow machine."""


@pytest.fixture(autouse=True)
def _watched() -> None:
    """Without inotify every check is a full scan already: the blind spot under test exists only with the watch."""
    if DirectoryWatch.create() is None:
        pytest.skip("inotify is not available here")


def edit_in_place(path: Path, old: str, new: str) -> None:
    """Rewrite ``path`` in place (an atomic rename would replace the inode and break the link)."""
    with path.open("r+", encoding="utf-8") as handle:
        text = handle.read()
        assert old in text
        handle.seek(0)
        handle.write(text.replace(old, new))
        handle.truncate()


def link_outside(root: Path, relpath: Path, outside: Path) -> Path:
    outside.mkdir(exist_ok=True)
    link = outside / relpath.name
    os.link(root / relpath, link)
    return link


def test_an_edit_through_a_hard_link_made_before_the_load_is_seen_by_the_next_call(
    fresh_demo: Path, tmp_path: Path
) -> None:
    link = link_outside(fresh_demo, VOLATILITY, tmp_path / "elsewhere")
    deps = Deps(ServerSettings(root=fresh_demo, prespawn=False))
    try:
        assert "10% annualised" in deps.stores().nodes["mem:tree:deci-c3d4e5f6"].body
        assert deps.freshness.watched
        edit_in_place(link, "a 10% annualised", "a 12% annualised")
        assert "12% annualised" in deps.stores().nodes["mem:tree:deci-c3d4e5f6"].body
    finally:
        deps.close()


def test_a_hard_link_made_after_the_load_is_found_by_the_sweep_within_its_bound(
    fresh_demo: Path, tmp_path: Path
) -> None:
    freshness = Freshness(load_workspace(fresh_demo))
    try:
        assert freshness.watched and freshness.current()
        link = link_outside(fresh_demo, COSTS, tmp_path / "elsewhere")
        edit_in_place(link, "4 bps half-spread", "6 bps half-spread")
        assert wait_until(lambda: not freshness.current(), timeout_s=BOUND_S, interval_s=0.2)
    finally:
        freshness.close()


def test_an_unchanged_workspace_with_a_linked_file_stays_current_between_sweeps(
    fresh_demo: Path, tmp_path: Path
) -> None:
    link_outside(fresh_demo, VOLATILITY, tmp_path / "elsewhere")
    freshness = Freshness(load_workspace(fresh_demo), sweep_every_s=3600)
    try:
        before = freshness.rescans
        assert all(freshness.current() for _ in range(20))
        assert freshness.rescans == before, "an unchanged linked file costs a stat, never a rescan"
    finally:
        freshness.close()


def _body(result: Any) -> str:
    assert result.is_error is False, result.structured_content
    return str(result.structured_content["body"])


@pytest.mark.anyio
async def test_a_running_server_gets_notes_edited_through_hard_links_from_outside_the_workspace(
    fresh_demo: Path, tmp_path: Path, server_log: TextIO
) -> None:
    outside = tmp_path / "elsewhere"
    early = link_outside(fresh_demo, VOLATILITY, outside)
    params = StdioServerParameters(command=str(SYNAPSE), args=["serve", "--root", str(fresh_demo)], env={**os.environ})
    async with stdio_client(params, errlog=server_log) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        async def get(entry: str) -> str:
            return _body(await session.call_tool("synapse", {"action": "get", "id": entry}))

        assert "10% annualised" in await get("deci-c3d4e5f6")
        assert "4 bps half-spread" in await get("deci-d4e5f607")

        edit_in_place(early, "a 10% annualised", "a 12% annualised")
        assert "12% annualised" in await get("deci-c3d4e5f6"), "a file linked before the load: the next call"

        late = link_outside(fresh_demo, COSTS, outside)
        edit_in_place(late, "4 bps half-spread", "6 bps half-spread")
        with anyio.fail_after(BOUND_S):
            while "6 bps half-spread" not in await get("deci-d4e5f607"):
                await anyio.sleep(0.2)  # a bounded poll on the server's answer, not a wait standing in for it
