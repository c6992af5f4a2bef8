"""connections: the overlay edges touching one node, from either end, limited, or not found."""

from __future__ import annotations

import pytest

from tests.support.overlay_actions import CLAIM, CLAIM_ID, DECISION, Built
from tests.support.servers import ServerFactory
from tests.support.tool_calls import call, error_of, payload

pytestmark = pytest.mark.anyio


async def test_connections_of_the_cost_model_decision_lists_edges_touching_it(make_server: ServerFactory, built: Built):
    body = payload(await call(make_server(built.root), action="connections", id="deci-e17103e8"))
    assert (body["node"], body["role"], body["kind"], body["drift"]) == (DECISION, "practice", "generic", "fresh")
    assert body["edges"] and all(edge["practice"] == DECISION for edge in body["edges"])
    assert CLAIM in {edge["canon"] for edge in body["edges"]}
    assert body["summary"].startswith(f"{len(body['edges'])} generic edge(s) touch {DECISION}")
    assert body["hidden"] == 0


async def test_connections_of_a_note_reads_its_canon_end_in_the_claim_overlay(make_server: ServerFactory, built: Built):
    body = payload(await call(make_server(built.root), action="connections", id=CLAIM_ID, kind="claim"))
    assert (body["node"], body["role"], body["kind"]) == (CLAIM, "canon", "claim")
    assert body["edges"] and all(edge["canon"] == CLAIM and edge["priority"] for edge in body["edges"])


async def test_connections_limit_keeps_the_strongest_edges_and_counts_the_rest(
    make_server: ServerFactory, built: Built
):
    server = make_server(built.root)
    every = payload(await call(server, action="connections", id=DECISION))["edges"]
    body = payload(await call(server, action="connections", id=DECISION, limit=2))
    assert body["edges"] == every[:2] and body["hidden"] == len(every) - 2


async def test_connections_of_an_unknown_id_is_not_found_naming_id(make_server: ServerFactory, built: Built):
    error = error_of(await call(make_server(built.root), action="connections", id="deci-00000000"))
    assert (error["kind"], error["parameter"]) == ("not_found", "id")
