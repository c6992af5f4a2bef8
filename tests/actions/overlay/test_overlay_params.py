"""The overlay actions' parameters: each bad one refused naming it; the lenses write nothing."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from adapters.index import Embedder
from tests.support.overlay_actions import DECISION, QUESTION, Built, snapshot
from tests.support.servers import ServerFactory
from tests.support.tool_calls import call, error_of

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("arguments", "parameter"),
    [
        ({"action": "build", "kind": "weird"}, "kind"),
        ({"action": "build", "kind": 1}, "kind"),
        ({"action": "build", "min_confidence": 1.5}, "min_confidence"),
        ({"action": "build", "min_confidence": "0.5"}, "min_confidence"),
        ({"action": "build", "projects": "research"}, "projects"),
        ({"action": "build", "projects": ["../up"]}, "projects"),
        ({"action": "build", "projects": ["nosuch"]}, "projects"),
        ({"action": "connections"}, "id"),
        ({"action": "connections", "id": ""}, "id"),
        ({"action": "connections", "id": "deci\x00e17103e8"}, "id"),
        ({"action": "connections", "id": "x" * 1001}, "id"),
        ({"action": "connections", "id": DECISION, "limit": 0}, "limit"),
        ({"action": "connections", "id": DECISION, "kind": "both"}, "kind"),
        ({"action": "matrix", "synthesize": "yes"}, "synthesize"),
        ({"action": "matrix", "limit": 101}, "limit"),
        ({"action": "matrix", "limit": "5"}, "limit"),
        ({"action": "matrix", "projects": ["nosuch"]}, "projects"),
        ({"action": "synthesize", "kind": "generic"}, "kind"),
        ({"action": "synthesize", "min_confidence": -0.1}, "min_confidence"),
        ({"action": "synthesize", "limit": True}, "limit"),
        ({"action": "debate", "kind": "claims"}, "kind"),
        ({"action": "debate", "projects": [1]}, "projects"),
        ({"action": "frame"}, "question"),
        ({"action": "frame", "question": "   "}, "question"),
        ({"action": "frame", "question": "costs\x00"}, "question"),
        ({"action": "frame", "question": "q" * 2001}, "question"),
        ({"action": "frame", "question": QUESTION, "limit": 51}, "limit"),
        ({"action": "search", "query": "costs", "expand": "true"}, "expand"),
        ({"action": "matrix", "depth": 2}, "depth"),
        ({"action": "frame", "question": QUESTION, "kind": "claim"}, "kind"),
        ({"action": "debate", "synthesize": True}, "synthesize"),
    ],
)
async def test_a_bad_overlay_parameter_is_refused_naming_it(
    make_server: ServerFactory, built: Built, arguments: dict[str, Any], parameter: str
):
    before = snapshot(built.root)
    error = error_of(await call(make_server(built.root), **arguments))
    assert error["kind"] == "invalid_input" and error["parameter"] == parameter, error
    assert snapshot(built.root) == before


async def test_the_lenses_write_nothing(make_server: ServerFactory, built: Built, embedder: Embedder):
    before = snapshot(built.root)
    async with Client(make_server(built.root, embedder=embedder)) as client:
        for arguments in (
            {"action": "connections", "id": DECISION},
            {"action": "matrix", "synthesize": True},
            {"action": "synthesize"},
            {"action": "debate", "kind": "generic"},
            {"action": "frame", "question": QUESTION, "projects": []},
        ):
            assert (await client.call_tool("synapse", arguments)).is_error is False, arguments
    assert snapshot(built.root) == before
