"""Navigate turns forked from a template that keeps the workspace loaded still answer from the files as they are.

The template loads the stores, syncs the index and builds the node graph once,
and checks the store files (the server's own freshness check) before every
fork. Over real stdio, against the installed server with the extractive model:
an entry edited, deleted or added between two turns, and a config broken and
mended between them, are what the next turn sees. The template's own refresh
is pinned directly too: the same load while nothing changed, a new one after.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO, Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from adapters.index import Embedder
from synapse_server.isolation.turn import navigate_turn
from synapse_server.isolation.worker import Warm, refresh

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]

SYNAPSE = Path(sys.executable).parent / "synapse"
QUESTION = "What annualised volatility target do the momentum positions use?"
ENTRY = Path(".memory/tree/deci-c3d4e5f6.md")
TARGET = "The momentum signal scales positions to a 10% annualised volatility target."


def structured(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return result.structured_content


def answer_text(result: CallToolResult) -> str | None:
    body = structured(result)
    surface = body.get("answer_surface")
    return surface["text"] if body["verdict"] == "answer" and surface else None


def edit(root: Path, old: str, new: str) -> None:
    path = root / ENTRY
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


async def test_a_turn_answers_from_an_entry_edited_deleted_or_restored_after_the_previous_turn(
    warm_demo: Path, server_log: IO[str]
) -> None:
    params = StdioServerParameters(command=str(SYNAPSE), args=["serve", "--root", str(warm_demo)], env={**os.environ})
    async with stdio_client(params, errlog=server_log) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        async def navigate() -> CallToolResult:
            return await session.call_tool("synapse", {"action": "navigate", "question": QUESTION})

        first = answer_text(await navigate())
        assert first is not None and "10% annualised volatility target" in first
        assert answer_text(await navigate()) == first, "an unchanged workspace answers the same"

        edit(warm_demo, "a 10% annualised", "a 12% annualised")
        edited = answer_text(await navigate())
        assert edited is not None and "12% annualised volatility target" in edited and "10%" not in edited

        saved = (warm_demo / ENTRY).read_text(encoding="utf-8")
        (warm_demo / ENTRY).unlink()
        gone = structured(await navigate())
        cited = [c["address"] for c in (gone.get("answer_surface") or {}).get("citations", [])]
        assert "mem:tree:deci-c3d4e5f6" not in cited and "12% annualised" not in str(gone.get("answer_surface"))

        (warm_demo / ENTRY).write_text(saved, encoding="utf-8")
        assert answer_text(await navigate()) == edited


async def test_a_config_broken_between_turns_is_a_config_error_until_it_is_mended(
    warm_demo: Path, server_log: IO[str]
) -> None:
    config = warm_demo / ".synapse" / "config.yaml"
    good = config.read_text(encoding="utf-8")
    params = StdioServerParameters(command=str(SYNAPSE), args=["serve", "--root", str(warm_demo)], env={**os.environ})
    async with stdio_client(params, errlog=server_log) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        async def navigate() -> CallToolResult:
            return await session.call_tool("synapse", {"action": "navigate", "question": QUESTION})

        assert answer_text(await navigate()) is not None
        config.write_text(good + "navigate: [not, a, mapping]\n", encoding="utf-8")
        broken = await navigate()
        assert broken.is_error is True and structured(broken)["error"]["kind"] == "config_error"
        config.write_text(good, encoding="utf-8")
        assert answer_text(await navigate()) is not None


def test_the_template_keeps_its_load_while_nothing_changes_and_reloads_after_an_edit(
    warm_demo: Path, embedder: Embedder
) -> None:
    warm = Warm(embedder, repr(None), navigate_turn)
    refresh(warm, warm_demo)
    try:
        loaded = warm.preloaded
        assert loaded is not None and "mem:tree:deci-c3d4e5f6" in loaded.stores.nodes
        assert loaded.synced is not None and loaded.synced.encoder == embedder.model_id
        refresh(warm, warm_demo)
        assert warm.preloaded is loaded, "no store file changed: the same load serves the next turn"

        edit(warm_demo, "a 10% annualised", "a 12% annualised")
        refresh(warm, warm_demo)
        assert warm.preloaded is not loaded and warm.preloaded is not None
        assert "12% annualised" in warm.preloaded.stores.nodes["mem:tree:deci-c3d4e5f6"].body
    finally:
        if warm.freshness is not None:
            warm.freshness.close()
