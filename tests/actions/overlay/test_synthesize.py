"""synthesize: grounded practice-claim briefs that verify under the extractive model."""

from __future__ import annotations

import pytest

from tests.support.overlay_actions import Built
from tests.support.servers import ServerFactory
from tests.support.tool_calls import call, payload

pytestmark = pytest.mark.anyio


async def test_synthesize_briefs_all_verify_under_extractive_and_cite_their_memory_id(
    make_server: ServerFactory, built: Built
):
    body = payload(await call(make_server(built.root), action="synthesize"))
    assert body["model"]["provider"] == "extractive" and body["overlay"]["kind"] == "claim"
    assert body["briefs"] and body["high_value"] >= len(body["briefs"])
    for brief in body["briefs"]:
        assert brief["verified"] is True and brief["failures"] == []
        assert brief["memory_id"] in brief["text"] and brief["practice"].startswith("mem:tree:")
    quotes_only = sum(brief["verified_for"] == "quotes" for brief in body["briefs"])
    assert body["summary"].endswith(f"{quotes_only} with only their quotes verified (shared-file link), 0 flagged")
    assert len(body["blind_spots"]) == 3


async def test_synthesize_limit_caps_the_briefs(make_server: ServerFactory, built: Built):
    body = payload(await call(make_server(built.root), action="synthesize", limit=1, min_confidence=0.9))
    assert len(body["briefs"]) <= 1
