"""build over MCP: the overlay files and counts it writes, its progress, concurrency, write-free refusal."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from adapters.index import Embedder
from tests.support.overlay_actions import Built, links_of, snapshot
from tests.support.servers import ServerFactory
from tests.support.tool_calls import call, error_of, payload

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]


async def test_build_writes_links_json_and_reports_the_counts_it_wrote(built: Built):
    body = built.generic
    assert (body["action"], body["kind"], body["path"]) == ("build", "generic", ".synapse/links/links.json")
    links = links_of(built.root, "links.json")
    assert body["kept"] == len(links) > 0
    assert body["typed"] + body["skipped"] == body["candidates"] and body["kept"] <= body["typed"]
    assert sum(body["relations"].values()) == body["kept"]
    assert body["typer"] == "extractive-v1" and body["projects"] == ["execution", "research"]
    assert f"{body['kept']} links kept of {body['typed']} typed" in body["summary"]


async def test_build_kind_claim_writes_claim_links_json_with_priorities(built: Built):
    body = built.claim
    assert (body["kind"], body["path"]) == ("claim", ".synapse/links/claim_links.json")
    links = links_of(built.root, "claim_links.json")
    assert body["kept"] == len(links) > 0
    assert all(link["priority"] > 0 and link["canon"].startswith("zk:") for link in links)


async def test_build_reports_rising_progress_to_the_client_while_it_types_pairs(built: Built):
    values = [done for done, _, _ in built.progress]
    assert len(values) > 3 and values == sorted(set(values)), "progress rises with every notification"
    last_done, last_total, last_message = built.progress[-1]
    assert last_done == last_total == built.generic["candidates"] + 1
    assert last_message == f"wrote {built.generic['kept']} links to .synapse/links/links.json"
    assert any(message and message.startswith("typing") for _, _, message in built.progress)


async def test_two_concurrent_builds_on_one_server_both_finish(
    make_server: ServerFactory, copy: Path, embedder: Embedder
):
    results: dict[str, Any] = {}

    async def progress(done: float, total: float | None, message: str | None) -> None:
        pass

    async with Client(make_server(copy, embedder=embedder)) as client:

        async def build(kind: str) -> None:
            results[kind] = await client.call_tool(
                "synapse", {"action": "build", "kind": kind}, progress_callback=progress
            )

        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                group.start_soon(build, "generic")
                group.start_soon(build, "claim")
    assert payload(results["generic"])["kind"] == "generic" and payload(results["claim"])["kind"] == "claim"


async def test_a_write_free_server_refuses_build_naming_write_free_mode_and_writes_nothing(
    make_server: ServerFactory, fresh_demo: Path
):
    before = snapshot(fresh_demo)
    server = make_server(fresh_demo, write_free=True)
    error = error_of(await call(server, action="build", kind="claim"))
    assert error["kind"] == "write_refused" and error["parameter"] == "action"
    assert "write-free" in error["message"]
    assert not (fresh_demo / ".synapse" / "links").exists()
    assert snapshot(fresh_demo) == before


async def test_serving_build_marks_the_tool_writing_unless_the_server_is_write_free(
    make_server: ServerFactory, demo_root: Path
):
    for write_free, read_only in ((False, False), (True, True)):
        async with Client(make_server(demo_root, write_free=write_free)) as client:
            tool = (await client.list_tools()).tools[0]
        assert tool.annotations is not None and tool.annotations.read_only_hint is read_only


async def test_a_build_is_seen_at_once_by_connections_matrix_and_search_on_the_same_server(
    make_server: ServerFactory, copy: Path, embedder: Embedder
):
    shutil.rmtree(copy / ".synapse" / "links")
    async with Client(make_server(copy, embedder=embedder)) as client:
        before = payload(await client.call_tool("synapse", {"action": "connections", "id": "deci-e17103e8"}))
        unexpanded = payload(
            await client.call_tool("synapse", {"action": "search", "query": "transaction costs", "expand": True})
        )
        assert payload(await client.call_tool("synapse", {"action": "build"}))["kept"] > 0
        after = payload(await client.call_tool("synapse", {"action": "connections", "id": "deci-e17103e8"}))
        matrix = payload(await client.call_tool("synapse", {"action": "matrix"}))
    assert (before["drift"], before["edges"]) == ("missing", [])
    assert unexpanded["expansions"] == [] and "no expansion" in unexpanded["summary"]
    assert after["drift"] == "fresh" and after["edges"]
    assert matrix["overlay"]["drift"] == "fresh" and matrix["cells"]
