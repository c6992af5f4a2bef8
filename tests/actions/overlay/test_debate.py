"""debate: the claims the literature or practice contests."""

from __future__ import annotations

import pytest

from tests.support.overlay_actions import CONTESTED, Built
from tests.support.servers import ServerFactory
from tests.support.tool_calls import call, payload

pytestmark = pytest.mark.anyio


async def test_debate_shows_the_demos_literature_contested_claim(make_server: ServerFactory, built: Built):
    body = payload(await call(make_server(built.root), action="debate"))
    assert body["overlay"]["kind"] == "claim" and body["projects"] == ["research", "execution"]
    research = next(d for d in body["debates"] if d["project"] == "research")
    [claim] = [c for c in research["claims"] if c["claim"] == CONTESTED]
    assert claim["contested"] is True and claim["contested_by"] == ["literature"]
    assert claim["title"] == "Volatility scaling improves momentum" and claim["claim_strength"] == "strong"
    assert {e["origin"] for e in claim["counter_evidence"]} == {"literature"}
