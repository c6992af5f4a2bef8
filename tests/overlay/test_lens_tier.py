"""One tier rule: memory is practice, the zettelkasten is canon, and code and data have no tier."""

from __future__ import annotations

from synapse_server.overlay.lens import store_of, tier_of


def test_each_family_has_its_tier_and_code_and_data_have_none() -> None:
    assert [tier_of(f) for f in ("memory", "zk", "code", "data")] == ["practice", "canon", None, None]


def test_an_overlay_address_tier_follows_its_store() -> None:
    assert tier_of(store_of("mem:tree:a")) == "practice"
    assert tier_of(store_of("zk:research:n1")) == "canon"
