"""matrix: practice rows by canon columns from the overlay, and its extractive roll-ups."""

from __future__ import annotations

import pytest

from tests.support.overlay_actions import Built
from tests.support.servers import ServerFactory
from tests.support.tool_calls import call, payload

pytestmark = pytest.mark.anyio


async def test_matrix_rows_are_memory_addresses_and_columns_zettelkasten_addresses(
    make_server: ServerFactory, built: Built
):
    body = payload(await call(make_server(built.root), action="matrix"))
    assert body["kind"] == "generic" and body["overlay"]["drift"] == "fresh"
    assert body["rows"] and all(row["address"].startswith("mem:tree:") for row in body["rows"])
    assert {(row["store"], row["tier"]) for row in body["rows"]} == {("memory", "practice")}
    assert body["columns"] and all(col["address"].startswith("zk:") for col in body["columns"])
    assert {(col["store"], col["tier"]) for col in body["columns"]} == {("zk", "canon")}
    rows, columns = {r["address"] for r in body["rows"]}, {c["address"] for c in body["columns"]}
    assert len(body["cells"]) == built.generic["kept"]
    assert all(cell["practice"] in rows and cell["canon"] in columns for cell in body["cells"])
    assert body["synthesis"] is None


async def test_matrix_limit_and_synthesize_give_extractive_rollups_for_the_shown_axes(
    make_server: ServerFactory, built: Built
):
    body = payload(await call(make_server(built.root), action="matrix", kind="claim", limit=2, synthesize=True))
    assert body["kind"] == "claim" and len(body["rows"]) == 2 and body["hidden_rows"] > 0
    synthesis = body["synthesis"]
    assert synthesis["mode"] == "extractive" and synthesis["model"]["provider"] == "extractive"
    assert [r["address"] for r in synthesis["rows"]] == [r["address"] for r in body["rows"]]
    assert synthesis["apex"]
