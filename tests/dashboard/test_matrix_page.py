"""The matrix page's filters (plain GET parameters, no script) and how it labels a link that only shares a file."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.mcp.dispatch import Dispatcher
from tests.support.dashboard import FORM_TOKEN

CELL = re.compile(r'<td class="rel rel-([a-z-]+)"><a href="(/matrix/cell\?[^"]+)" title="([^"]*)">')


def _cells(text: str) -> list[tuple[str, str, str]]:
    return CELL.findall(text)


def _confidence(title: str) -> float:
    return float(title.split()[1].rstrip(","))


def test_the_matrix_filters_by_relation_evidence_and_minimum_confidence_from_the_address(
    demo: Path, open_dashboard: Callable
) -> None:
    with open_dashboard(demo) as client:
        everything = _cells(client.get("/matrix").text)
        shared = client.get("/matrix", params={"relation": "related", "basis": "shared-file"}).text
        strong = _cells(client.get("/matrix", params={"min_confidence": "0.7"}).text)
        judged = client.get("/matrix", params={"basis": "judged"}).text
    assert len(everything) == 72
    shared_cells = _cells(shared)
    assert 0 < len(shared_cells) < len(everything)
    assert all("shared file only" in title for _, _, title in shared_cells)
    assert f"{len(shared_cells)} of 72 cells" in shared and 'option value="shared-file" selected' in shared
    assert 0 < len(strong) < len(everything) and all(_confidence(title) >= 0.7 for _, _, title in strong)
    assert "No cell matches this filter." in judged and '<table class="matrix">' not in judged


def test_an_unknown_filter_value_shows_the_whole_matrix(demo: Path, open_dashboard: Callable) -> None:
    with open_dashboard(demo) as client:
        page = client.get("/matrix", params={"relation": "supports", "basis": "x", "min_confidence": "2"})
    assert page.status_code == 200 and len(_cells(page.text)) == 72 and "of 72 cells" not in page.text


def test_a_shared_file_cell_says_its_relation_was_not_judged(demo: Path, open_dashboard: Callable) -> None:
    with open_dashboard(demo) as client:
        shared = _cells(client.get("/matrix", params={"basis": "shared-file"}).text)
        cell = client.get(shared[0][1].replace("&amp;", "&"))
    assert cell.status_code == 200
    assert "shared file only</span> both are tied to the same file; how they relate was not judged" in cell.text
    assert "Shared file only: both are about" in cell.text


def test_a_brief_over_a_shared_file_link_is_shown_as_quotes_verified_only(
    demo: Path, open_dashboard: Callable, embedder: Any
) -> None:
    deps = Deps(ServerSettings(root=demo, prespawn=False, write_free=True), embedder=embedder)
    try:
        briefs = anyio.run(Dispatcher(deps).call, {"action": "synthesize"}).payload["briefs"]
    finally:
        deps.close()
    brief = next(b for b in briefs if b["basis"] == "shared-file")
    where = {"kind": "claim", "practice": brief["practice"], "canon": brief["canon"]}
    with open_dashboard(demo) as client:
        cell = client.post("/matrix/cell", data={**where, "form_token": FORM_TOKEN})
    assert '<div class="brief">' in cell.text
    assert '<span class="tag tag-abstain">quotes verified; link: shared file only</span>' in cell.text
    assert '<span class="tag tag-answer">verified</span>' not in cell.text
