"""frame: a question split into facets, each with a status and the hits behind it."""

from __future__ import annotations

import pytest

from adapters.index import Embedder
from tests.support.overlay_actions import QUESTION, Built
from tests.support.servers import ServerFactory
from tests.support.tool_calls import call, payload

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]


async def test_frame_returns_each_facet_with_a_status_and_the_hits_behind_it(
    make_server: ServerFactory, built: Built, embedder: Embedder
):
    body = payload(await call(make_server(built.root, embedder=embedder), action="frame", question=QUESTION))
    assert [f["facet"] for f in body["facets"]] == ["transaction costs", "volatility scaling", "momentum returns"]
    assert body["decomposition"] == "extractive"
    for facet in body["facets"]:
        assert facet["status"] in {"established", "contested", "thin"} and facet["reason"]
        assert all((h["store"], h["tier"]) in {("memory", "practice"), ("zk", "canon")} for h in facet["hits"])
    volatility = next(f for f in body["facets"] if f["facet"] == "volatility scaling")
    assert volatility["status"] == "contested", "the debate map contests a volatility-scaling claim"
