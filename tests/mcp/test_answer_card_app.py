"""The optional MCP Apps layer: the tool points at a ui:// answer card the server serves, self-contained."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mcp import Client
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID
from mcp.types import TextResourceContents

from synapse_server.mcp.apps import ANSWER_CARD_URI, card_html

pytestmark = pytest.mark.anyio


async def test_the_synapse_tool_declares_the_answer_card_resource(demo_root: Path, make_server) -> None:
    async with Client(make_server(demo_root)) as client:
        tools = (await client.list_tools()).tools
    assert [tool.name for tool in tools] == ["synapse"]
    assert (tools[0].meta or {}).get("ui") == {"resourceUri": ANSWER_CARD_URI}


async def test_the_card_is_served_as_an_mcp_app_resource_and_advertised(demo_root: Path, make_server) -> None:
    async with Client(make_server(demo_root)) as client:
        listed = {str(r.uri): r for r in (await client.list_resources()).resources}
        read = await client.read_resource(ANSWER_CARD_URI)
        capabilities = client.server_capabilities
    assert listed[ANSWER_CARD_URI].mime_type == APP_MIME_TYPE
    (content,) = read.contents
    assert isinstance(content, TextResourceContents) and content.mime_type == APP_MIME_TYPE
    assert content.text == card_html()
    assert EXTENSION_ID in (capabilities.extensions or {})


def test_the_card_is_one_self_contained_file_that_never_parses_text_as_html() -> None:
    html = card_html()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html), "no CDN or remote resource"
    assert "fetch(" not in html and "XMLHttpRequest" not in html
    assert "innerHTML" not in html and "insertAdjacentHTML" not in html and "document.write" not in html
    assert "structuredContent" in html and "ui/notifications/tool-result" in html
