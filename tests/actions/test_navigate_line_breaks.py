"""The envelope a navigate turn returns frames a note holding Unicode line breaks as the parser reads it.

A note body with U+2028, U+2029, U+0085, VT and FF goes through the real
navigate action (in-memory client, a real warm worker, the extractive model);
the envelope it returns splits into the same lines under ``str.splitlines``
as under ``split("\\n")``, and each break shows as its escape on a framed line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.support.servers import ServerFactory
from tests.support.tool_calls import payload

pytestmark = pytest.mark.anyio

QUESTION = "What annualised volatility target do the momentum positions use?"
ENTRY = Path(".memory/tree/deci-c3d4e5f6.md")
FIRST = "The momentum signal scales positions to a 10% annualised volatility target.\n"
BREAKS = "Checked\u2028by\u2029the\x85risk\x0bdesk\x0con\x1cFriday."


async def test_a_navigate_envelope_shows_unicode_line_breaks_in_a_note_as_escapes_on_framed_lines(
    make_server: ServerFactory, fresh_demo: Path
) -> None:
    path = fresh_demo / ENTRY
    text = path.read_text(encoding="utf-8")
    assert FIRST in text
    path.write_text(text.replace(FIRST, FIRST + "\n" + BREAKS + "\n"), encoding="utf-8")

    async with Client(make_server(fresh_demo, prespawn=True)) as client:
        result = await client.call_tool(
            "synapse", {"action": "navigate", "question": QUESTION, "render_max_body_chars": 0}
        )
        read = await client.read_resource(payload(result)["envelope_resource"])  # the result links its envelope

    envelope = read.contents[0].text  # type: ignore[union-attr]
    assert "node n" in envelope and " mem:tree:deci-c3d4e5f6 " in envelope
    assert envelope.splitlines() == envelope.removesuffix("\n").split("\n")
    assert "\n| Checked\\u2028by\\u2029the\\x85risk\\x0bdesk\\x0con\\x1cFriday.\n" in envelope
