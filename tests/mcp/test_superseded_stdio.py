"""Done when: a superseded ADR is never cited without its disclosure, over stdio and in the dashboard card.

A real git repository of adr-tools records (0002 superseded by 0004) adopted in place, the installed server
over real stdio with a scripted navigator that cites the superseded record and writes no disclosure itself.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO, Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from synapse_server.actions.navigate_output import result_of
from synapse_server.dashboard.history import Entry
from synapse_server.dashboard.pages import TEMPLATES
from synapse_server.present.terminal_card import render_card
from synapse_server.workspace.adopt import adopt
from tests.support.source_fixtures import adr_repo

pytestmark = pytest.mark.anyio

SYNAPSE = Path(sys.executable).parent / "synapse"
OLD = "mem:adr:0002-publish-invoices-as-pdf-files"
NEW = "mem:adr:0004-render-invoices-as-html-email"
SENTENCE = "We will generate a PDF file per invoice and attach it to the monthly statement."
DISCLOSED = f"{OLD} is superseded by {NEW} (status: superseded)"
REPLY = (
    "@memdsl.out/2\n@answer\n"
    f"claim c1 [restatement] cites {OLD} :: {SENTENCE}\n"
    f"prose :: {SENTENCE}\ncite c1 :: {SENTENCE}\nconclude c1\n"
)


async def _navigate_over_stdio(root: Path, script: Path, log: IO[str]) -> dict[str, Any]:
    args = ["serve", "--root", str(root), "--model", f"script:{script}"]
    params = StdioServerParameters(command=str(SYNAPSE), args=args, env={**os.environ})
    async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        search = await session.call_tool("synapse", {"action": "search", "query": "publish invoices as PDF files"})
        assert search.structured_content is not None
        hits = {h["address"]: h for h in search.structured_content["hits"]}
        assert (hits[OLD]["supersession"], hits[OLD]["superseded_by"]) == ("superseded", [NEW])
        order = [h["address"] for h in search.structured_content["hits"]]
        assert order.index(NEW) < order.index(OLD)  # the current record ranks above what it replaces
        done = await session.call_tool(
            "synapse", {"action": "navigate", "question": "Do we publish invoices as PDF files?"}
        )
        assert done.is_error is False and done.structured_content is not None
        return dict(done.structured_content)


async def test_a_superseded_adr_is_never_cited_without_its_disclosure_over_stdio_and_on_the_cards(
    tmp_path: Path, server_log: IO[str]
) -> None:
    root = adr_repo(tmp_path / "repo")
    adopt(root)
    script = tmp_path / "reply.txt"
    script.write_text(REPLY, encoding="utf-8")
    body = await _navigate_over_stdio(root, script, server_log)

    assert (body["verdict"], body["status"], body["superseded"]) == ("answer", "grounded", True), body["detail"]
    surface = body["answer_surface"]
    assert surface["text"] == SENTENCE  # the navigator's words carry no disclosure …
    assert surface["superseded_disclosures"] == [DISCLOSED]  # … the answer does, all the same
    (row,) = surface["citations"]
    assert (row["address"], row["supersession"], row["superseded_by"]) == (OLD, "superseded", [NEW])
    assert DISCLOSED in body["trace_surface"]["disclosures"]
    assert DISCLOSED in body["summary"]

    result = result_of(body)
    card = render_card(result, trace=True, width=200)
    assert card.splitlines()[0] == "ANSWER · grounded · superseded"
    assert f"Superseded: {DISCLOSED}" in card and f"superseded by {NEW}" in card

    entry = Entry(
        id="t1", at="2024-01-01T00:00:00Z", question="Do we publish invoices as PDF files?", origin="ask", result=result
    )
    html = TEMPLATES.get_template("_cards.html").module.card(entry)  # type: ignore[attr-defined]
    assert 'data-disclosure="superseded"' in html and DISCLOSED in html
    assert 'class="flag flag-superseded"' in html
