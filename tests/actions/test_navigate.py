"""navigate through the in-memory client with the real engine in a real warm worker (extractive model)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.support.servers import ServerFactory
from tests.support.tool_calls import EXTRACTIVE, payload

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]

ANSWERABLE = "What annualised volatility target do the momentum positions use?"
ABSENT = "What was the fund's tax liability for 2025?"


async def test_navigate_answers_abstains_and_honours_budgets_through_one_server(
    make_server: ServerFactory, demo_root: Path
):
    async with Client(make_server(demo_root, prespawn=True)) as client:
        answer = await client.call_tool("synapse", {"action": "navigate", "question": ANSWERABLE})
        abstain = await client.call_tool("synapse", {"action": "navigate", "question": ABSENT, "projects": []})
        capped = await client.call_tool(
            "synapse", {"action": "navigate", "question": ANSWERABLE, "max_nodes": 0, "hops": 0, "token_budget": 4000}
        )

    body = payload(answer)
    assert answer.is_error is False and body["verdict"] == "answer" and body["status"] == "grounded"
    assert body["model"] == EXTRACTIVE
    assert body["summary"].startswith("answer (grounded): ") and "10% annualised volatility target" in body["summary"]
    assert body["summary"].endswith("chosen by the offline navigator by matching the question)")
    assert body["answer_surface"]["citations"] and body["trace_surface"]["verdict"] == "answer"

    refused = payload(abstain)
    assert abstain.is_error is False and refused["verdict"] == "abstain"
    assert refused["reasons"] == ["low-coverage"] and refused["answer_surface"] is None
    assert refused["summary"].startswith("abstained (low-coverage): ")

    assert capped.is_error is False and payload(capped)["verdict"] in {"answer", "abstain"}
