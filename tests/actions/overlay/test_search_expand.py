"""search expand=true: overlay neighbours listed apart from the hits, each marked as an expansion."""

from __future__ import annotations

import pytest

from adapters.index import Embedder
from tests.support.overlay_actions import Built
from tests.support.servers import ServerFactory
from tests.support.tool_calls import call, payload

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]


async def test_search_expand_lists_overlay_neighbours_apart_each_marked_as_an_expansion(
    make_server: ServerFactory, built: Built, embedder: Embedder
):
    server = make_server(built.root, embedder=embedder)
    plain = payload(await call(server, action="search", query="cost model decision", limit=3))
    body = payload(await call(server, action="search", query="cost model decision", limit=3, expand=True))
    assert body["hits"] == plain["hits"] and plain["expansions"] == [] and plain["overlay"] is None
    hits = {hit["address"] for hit in body["hits"]}
    assert body["expansions"] and body["overlay"]["drift"] == "fresh"
    for entry in body["expansions"]:
        assert entry["expansion"] is True and entry["via"] in hits and entry["address"] not in hits
        assert entry["overlay"] == "generic" and entry["title"]
    assert len({e["address"] for e in body["expansions"]}) == len(body["expansions"])
    assert f"+{len(body['expansions'])} overlay neighbour(s)" in body["summary"]


async def test_search_expand_over_memory_only_adds_no_zettelkasten_neighbour(
    make_server: ServerFactory, built: Built, embedder: Embedder
):
    body = payload(
        await call(make_server(built.root, embedder=embedder), action="search", query="costs", projects=[], expand=True)
    )
    assert all(entry["store"] == "memory" for entry in body["expansions"])
