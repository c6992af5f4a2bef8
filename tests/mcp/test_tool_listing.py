"""tools/list: exactly one tool, a schema that lists every action and parameter, annotations, a teaching description."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client

from tests.support.servers import ServerFactory

pytestmark = pytest.mark.anyio

SEED_PHRASES = {
    "navigate": ("answer this from the project evidence", "navigate what we know about X", "give me a grounded answer"),
    "build": (
        '"synthesize"',
        "connect practice to canon",
        "build the synapse links",
        "cross-link memory and the zettelkasten",
        "build the claim links",
        "align practice to claims",
    ),
    "matrix": ("show the matrix", "practice vs canon", "where do we disagree with the literature"),
    "synthesize": ("synthesize the cells", "ground the practice–claim briefs"),
    "debate": ("does practice contradict the literature", "debate map with practice"),
    "search": ("search everything", "look across both stores", "what do we know about X"),
    "frame": ("frame this across both", "map the landscape (practice + canon)"),
    "connections": ("what connects to this", "show the cross-store links"),
}

PARAMETERS = {
    "action",
    "question",
    "query",
    "id",
    "projects",
    "limit",
    "max_nodes",
    "hops",
    "token_budget",
    "render_max_body_chars",
    "trace_floor",
    "kind",
    "expand",
    "synthesize",
    "min_confidence",
    "turn",
    "reply",
}
ACTIONS = ["navigate", "search", "frame", "get", "connections", "matrix", "synthesize", "debate", "build"]


async def test_the_server_lists_exactly_one_tool_named_synapse(make_server: ServerFactory, demo_root: Path):
    async with Client(make_server(demo_root)) as client:
        tools = (await client.list_tools()).tools
    assert [t.name for t in tools] == ["synapse"]


async def test_the_input_schema_lists_every_action_and_parameter_with_a_description(
    make_server: ServerFactory, demo_root: Path
):
    async with Client(make_server(demo_root)) as client:
        schema = (await client.list_tools()).tools[0].input_schema
    assert schema["required"] == ["action"] and schema["additionalProperties"] is False
    assert sorted(schema["properties"]["action"]["enum"]) == sorted(ACTIONS)
    assert set(schema["properties"]) == PARAMETERS
    for name, prop in schema["properties"].items():
        assert prop.get("description"), name
    assert schema["properties"]["limit"]["minimum"] == 1 and schema["properties"]["limit"]["maximum"] == 100
    assert schema["properties"]["hops"]["minimum"] == -1
    assert "Used by: navigate, frame (required)" in schema["properties"]["question"]["description"]
    assert "continue" in schema["properties"]["turn"]["description"]  # a host model's reply to a pending turn


async def test_the_tool_is_closed_world_for_an_offline_model_and_not_read_only_because_build_writes(
    make_server: ServerFactory, demo_root: Path
):
    async with Client(make_server(demo_root)) as client:
        tool = (await client.list_tools()).tools[0]
    assert tool.annotations is not None
    assert tool.annotations.read_only_hint is False and tool.annotations.destructive_hint is False
    assert tool.annotations.open_world_hint is False
    assert tool.output_schema is not None and set(tool.output_schema["required"]) == {"action", "summary"}


async def test_a_network_model_marks_the_tool_open_world(make_server: ServerFactory, demo_root: Path):
    async with Client(make_server(demo_root, model="openai:gpt-x")) as client:
        tool = (await client.list_tools()).tools[0]
    assert tool.annotations is not None and tool.annotations.open_world_hint is True


async def test_the_description_teaches_when_to_use_each_action(make_server: ServerFactory, demo_root: Path):
    async with Client(make_server(demo_root)) as client:
        description = (await client.list_tools()).tools[0].description or ""
    for phrase in ("answer this from the project evidence", "what do we know about X", "look across both stores"):
        assert phrase in description
    for action in ACTIONS:
        assert f"- {action}:" in description


async def test_the_legacy_json_rpc_transport_serves_the_same_tool(make_server: ServerFactory, demo_root: Path):
    async with Client(make_server(demo_root), mode="legacy") as client:
        tools = (await client.list_tools()).tools
        result = await client.call_tool("synapse", {"action": "get", "id": "deci-e17103e8"})
    assert [t.name for t in tools] == ["synapse"]
    assert result.is_error is False and result.structured_content is not None
    assert result.structured_content["address"] == "mem:tree:deci-e17103e8"


def test_building_the_server_and_listing_tools_imports_neither_torch_nor_sentence_transformers(demo_root: Path):
    script = """
import json, sys, anyio
from pathlib import Path
from mcp import Client
from synapse_server.actions.deps import ServerSettings
from synapse_server.mcp.server import build_server

async def main():
    server = build_server(ServerSettings(root=Path(sys.argv[1]), prespawn=True))
    async with Client(server) as client:
        await client.list_tools()
        await client.call_tool("synapse", {"action": "get", "id": "deci-e17103e8"})
    heavy = sorted(m for m in ("torch", "sentence_transformers", "transformers") if m in sys.modules)
    sys.stdout.write(json.dumps(heavy))

anyio.run(main)
"""
    done = subprocess.run([sys.executable, "-c", script, str(demo_root)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == []


async def test_the_tool_serves_all_nine_actions_and_teaches_the_seeds_phrasings_within_claude_codes_cut(
    make_server: ServerFactory, demo_root: Path
):
    async with Client(make_server(demo_root)) as client:
        tool = (await client.list_tools()).tools[0]
    actions = ["navigate", "search", "frame", "get", "connections", "matrix", "synthesize", "debate", "build"]
    assert tool.input_schema["properties"]["action"]["enum"] == actions
    shown = (tool.description or "")[:2048]  # what Claude Code passes to the model
    assert "Details:" in shown, "the whole guide fits before the cut"
    lines = [line for line in shown.split("Details:")[0].splitlines() if line.startswith("- ")]
    for action, phrases in SEED_PHRASES.items():
        [line] = [line for line in lines if line.startswith((f"- {action}:", f"- {action} ("))]
        for phrase in phrases[:4]:
            assert phrase in line, (action, phrase)
    assert '"build the claim links", "align practice to claims": build kind="claim"' in shown
    for name in ("kind", "expand", "synthesize", "min_confidence"):
        assert tool.input_schema["properties"][name]["description"]
    assert "default" not in tool.input_schema["properties"]["kind"], "build and debate default differently"
