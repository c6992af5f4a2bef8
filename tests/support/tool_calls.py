"""Calling the synapse tool in memory and reading its two copies of the result."""

from __future__ import annotations

import json
from typing import Any

from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ResourceLink, TextContent

from synapse_server.models import resolve_model

_offline = resolve_model("extractive").identity
EXTRACTIVE = {"provider": _offline.provider, "id": _offline.id}
"""The model block of a turn under the demo's configured offline navigator."""


async def call(server: MCPServer[Any], **arguments: Any) -> CallToolResult:
    async with Client(server) as client:
        return await client.call_tool("synapse", arguments)


def payload(result: CallToolResult) -> dict[str, Any]:
    """The structured content, after checking the text copy is the same JSON and a summary is present."""
    assert result.structured_content is not None
    assert isinstance(result.content[0], TextContent)
    assert json.loads(result.content[0].text) == result.structured_content
    links = [block.uri for block in result.content[1:] if isinstance(block, ResourceLink)]
    assert len(links) == len(result.content) - 1, "after the text only resource links"
    assert links == ([result.structured_content["envelope_resource"]] if links else [])
    assert isinstance(result.structured_content.get("summary"), str) and result.structured_content["summary"]
    return result.structured_content


def error_of(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error is True
    body = payload(result)
    assert set(body["error"]) == {"kind", "message", "parameter"}
    return body["error"]
