"""build, connections, matrix, synthesize, debate, frame and search expand=true through the in-memory MCP client.

One demo workspace per module, its two overlays built once over MCP (the
build tests read what that build reported and the progress it sent); tests
that change the workspace work on a copy, which keeps the warm index cache.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from adapters.index import Embedder
from synapse_server.actions.deps import ServerSettings
from synapse_server.mcp.server import build_server
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import Stores
from tests.support.servers import ServerFactory
from tests.support.tool_calls import call, error_of, payload

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]

DECISION = "mem:tree:deci-e17103e8"
CLAIM_ID = "20260407-1030-costs-reduce-returns"
CLAIM = f"zk:research:{CLAIM_ID}"
CONTESTED = "zk:research:20260505-0900-volatility-scaling-helps"
QUESTION = "How do transaction costs and volatility scaling affect momentum returns?"
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


@dataclass(frozen=True)
class Built:
    root: Path
    generic: dict[str, Any]
    claim: dict[str, Any]
    progress: list[tuple[float, float | None, str | None]]


@pytest.fixture(scope="module")
async def built(tmp_path_factory: pytest.TempPathFactory, demo_root: Path, embedder: Embedder) -> Built:
    """A copy of the session demo (index cache warmed first) with both overlays built through one server, and the
    progress the generic build reported."""
    Stores.load(load_workspace(demo_root)).open_index(embedder).close()  # the session demo's cache warms once
    root = Path(shutil.copytree(demo_root, tmp_path_factory.mktemp("overlay-actions") / "demo", symlinks=True))
    progress: list[tuple[float, float | None, str | None]] = []

    async def record(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    server = build_server(ServerSettings(root=root, prespawn=False), embedder=embedder)
    async with Client(server) as client:
        generic = await client.call_tool("synapse", {"action": "build"}, progress_callback=record)
        claim = await client.call_tool("synapse", {"action": "build", "kind": "claim"})
    return Built(root, payload(generic), payload(claim), progress)


@pytest.fixture
def copy(built: Built, tmp_path: Path) -> Path:
    """A private copy of the built demo (index cache included) for a test that writes or deletes."""
    return Path(shutil.copytree(built.root, tmp_path / "demo", symlinks=True))


def links_of(root: Path, name: str) -> list[dict[str, Any]]:
    links: list[dict[str, Any]] = json.loads((root / ".synapse" / "links" / name).read_text(encoding="utf-8"))["links"]
    return links


def snapshot(root: Path) -> dict[str, str]:
    """Every file outside the derived cache, hashed."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".angelo" not in p.relative_to(root).parts
    }


# build


async def test_build_writes_links_json_and_reports_the_counts_it_wrote(built: Built):
    body = built.generic
    assert (body["action"], body["kind"], body["path"]) == ("build", "generic", ".synapse/links/links.json")
    links = links_of(built.root, "links.json")
    assert body["kept"] == len(links) > 0
    assert body["typed"] + body["skipped"] == body["candidates"] and body["kept"] <= body["typed"]
    assert sum(body["relations"].values()) == body["kept"]
    assert body["typer"] == "extractive-v1" and body["projects"] == ["execution", "research"]
    assert f"{body['kept']} links kept of {body['typed']} typed" in body["summary"]


async def test_build_kind_claim_writes_claim_links_json_with_priorities(built: Built):
    body = built.claim
    assert (body["kind"], body["path"]) == ("claim", ".synapse/links/claim_links.json")
    links = links_of(built.root, "claim_links.json")
    assert body["kept"] == len(links) > 0
    assert all(link["priority"] > 0 and link["canon"].startswith("zk:") for link in links)


async def test_build_reports_rising_progress_to_the_client_while_it_types_pairs(built: Built):
    values = [done for done, _, _ in built.progress]
    assert len(values) > 3 and values == sorted(set(values)), "progress rises with every notification"
    last_done, last_total, last_message = built.progress[-1]
    assert last_done == last_total == built.generic["candidates"] + 1
    assert last_message == f"wrote {built.generic['kept']} links to .synapse/links/links.json"
    assert any(message and message.startswith("typing") for _, _, message in built.progress)


async def test_a_build_is_seen_at_once_by_connections_matrix_and_search_on_the_same_server(
    make_server: ServerFactory, copy: Path, embedder: Embedder
):
    shutil.rmtree(copy / ".synapse" / "links")
    async with Client(make_server(copy, embedder=embedder)) as client:
        before = payload(await client.call_tool("synapse", {"action": "connections", "id": "deci-e17103e8"}))
        unexpanded = payload(
            await client.call_tool("synapse", {"action": "search", "query": "transaction costs", "expand": True})
        )
        assert payload(await client.call_tool("synapse", {"action": "build"}))["kept"] > 0
        after = payload(await client.call_tool("synapse", {"action": "connections", "id": "deci-e17103e8"}))
        matrix = payload(await client.call_tool("synapse", {"action": "matrix"}))
    assert (before["drift"], before["edges"]) == ("missing", [])
    assert unexpanded["expansions"] == [] and "no expansion" in unexpanded["summary"]
    assert after["drift"] == "fresh" and after["edges"]
    assert matrix["overlay"]["drift"] == "fresh" and matrix["cells"]


async def test_two_concurrent_builds_on_one_server_both_finish(
    make_server: ServerFactory, copy: Path, embedder: Embedder
):
    results: dict[str, Any] = {}

    async def progress(done: float, total: float | None, message: str | None) -> None:
        pass

    async with Client(make_server(copy, embedder=embedder)) as client:

        async def build(kind: str) -> None:
            results[kind] = await client.call_tool(
                "synapse", {"action": "build", "kind": kind}, progress_callback=progress
            )

        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                group.start_soon(build, "generic")
                group.start_soon(build, "claim")
    assert payload(results["generic"])["kind"] == "generic" and payload(results["claim"])["kind"] == "claim"


async def test_a_write_free_server_refuses_build_naming_write_free_mode_and_writes_nothing(
    make_server: ServerFactory, fresh_demo: Path
):
    before = snapshot(fresh_demo)
    server = make_server(fresh_demo, write_free=True)
    error = error_of(await call(server, action="build", kind="claim"))
    assert error["kind"] == "write_refused" and error["parameter"] == "action"
    assert "write-free" in error["message"]
    assert not (fresh_demo / ".synapse" / "links").exists()
    assert snapshot(fresh_demo) == before


async def test_serving_build_marks_the_tool_writing_unless_the_server_is_write_free(
    make_server: ServerFactory, demo_root: Path
):
    for write_free, read_only in ((False, False), (True, True)):
        async with Client(make_server(demo_root, write_free=write_free)) as client:
            tool = (await client.list_tools()).tools[0]
        assert tool.annotations is not None and tool.annotations.read_only_hint is read_only


# connections


async def test_connections_of_the_cost_model_decision_lists_edges_touching_it(make_server: ServerFactory, built: Built):
    body = payload(await call(make_server(built.root), action="connections", id="deci-e17103e8"))
    assert (body["node"], body["role"], body["kind"], body["drift"]) == (DECISION, "practice", "generic", "fresh")
    assert body["edges"] and all(edge["practice"] == DECISION for edge in body["edges"])
    assert CLAIM in {edge["canon"] for edge in body["edges"]}
    assert body["summary"].startswith(f"{len(body['edges'])} generic edge(s) touch {DECISION}")
    assert body["hidden"] == 0


async def test_connections_of_a_note_reads_its_canon_end_in_the_claim_overlay(make_server: ServerFactory, built: Built):
    body = payload(await call(make_server(built.root), action="connections", id=CLAIM_ID, kind="claim"))
    assert (body["node"], body["role"], body["kind"]) == (CLAIM, "canon", "claim")
    assert body["edges"] and all(edge["canon"] == CLAIM and edge["priority"] for edge in body["edges"])


async def test_connections_limit_keeps_the_strongest_edges_and_counts_the_rest(
    make_server: ServerFactory, built: Built
):
    server = make_server(built.root)
    every = payload(await call(server, action="connections", id=DECISION))["edges"]
    body = payload(await call(server, action="connections", id=DECISION, limit=2))
    assert body["edges"] == every[:2] and body["hidden"] == len(every) - 2


async def test_connections_of_an_unknown_id_is_not_found_naming_id(make_server: ServerFactory, built: Built):
    error = error_of(await call(make_server(built.root), action="connections", id="deci-00000000"))
    assert (error["kind"], error["parameter"]) == ("not_found", "id")


# matrix, synthesize, debate, frame


async def test_matrix_rows_are_memory_addresses_and_columns_zettelkasten_addresses(
    make_server: ServerFactory, built: Built
):
    body = payload(await call(make_server(built.root), action="matrix"))
    assert body["kind"] == "generic" and body["overlay"]["drift"] == "fresh"
    assert body["rows"] and all(row["address"].startswith("mem:tree:") for row in body["rows"])
    assert {(row["store"], row["tier"]) for row in body["rows"]} == {("memory", "practice")}
    assert body["columns"] and all(col["address"].startswith("zk:") for col in body["columns"])
    assert {(col["store"], col["tier"]) for col in body["columns"]} == {("zk", "canon")}
    rows, columns = {r["address"] for r in body["rows"]}, {c["address"] for c in body["columns"]}
    assert len(body["cells"]) == built.generic["kept"]
    assert all(cell["practice"] in rows and cell["canon"] in columns for cell in body["cells"])
    assert body["synthesis"] is None


async def test_matrix_limit_and_synthesize_give_extractive_rollups_for_the_shown_axes(
    make_server: ServerFactory, built: Built
):
    body = payload(await call(make_server(built.root), action="matrix", kind="claim", limit=2, synthesize=True))
    assert body["kind"] == "claim" and len(body["rows"]) == 2 and body["hidden_rows"] > 0
    synthesis = body["synthesis"]
    assert synthesis["mode"] == "extractive" and synthesis["model"]["provider"] == "extractive"
    assert [r["address"] for r in synthesis["rows"]] == [r["address"] for r in body["rows"]]
    assert synthesis["apex"]


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


async def test_debate_shows_the_demos_literature_contested_claim(make_server: ServerFactory, built: Built):
    body = payload(await call(make_server(built.root), action="debate"))
    assert body["overlay"]["kind"] == "claim" and body["projects"] == ["research", "execution"]
    research = next(d for d in body["debates"] if d["project"] == "research")
    [claim] = [c for c in research["claims"] if c["claim"] == CONTESTED]
    assert claim["contested"] is True and claim["contested_by"] == ["literature"]
    assert claim["title"] == "Volatility scaling improves momentum" and claim["claim_strength"] == "strong"
    assert {e["origin"] for e in claim["counter_evidence"]} == {"literature"}


async def test_frame_returns_each_facet_with_a_status_and_the_hits_behind_it(
    make_server: ServerFactory, built: Built, embedder: Embedder
):
    body = payload(await call(make_server(built.root, embedder=embedder), action="frame", question=QUESTION))
    assert [f["facet"] for f in body["facets"]] == ["transaction costs", "volatility scaling", "momentum returns"]
    assert body["decomposition"] == "extractive"
    for facet in body["facets"]:
        assert facet["status"] in {"established", "contested", "thin"} and facet["reason"]
        assert all((h["store"], h["tier"]) in {("memory", "practice"), ("zk", "canon")} for h in facet["hits"])
    volatility = next(f for f in body["facets"] if f["facet"] == "volatility scaling")
    assert volatility["status"] == "contested", "the debate map contests a volatility-scaling claim"


async def test_the_lenses_write_nothing(make_server: ServerFactory, built: Built, embedder: Embedder):
    before = snapshot(built.root)
    async with Client(make_server(built.root, embedder=embedder)) as client:
        for arguments in (
            {"action": "connections", "id": DECISION},
            {"action": "matrix", "synthesize": True},
            {"action": "synthesize"},
            {"action": "debate", "kind": "generic"},
            {"action": "frame", "question": QUESTION, "projects": []},
        ):
            assert (await client.call_tool("synapse", arguments)).is_error is False, arguments
    assert snapshot(built.root) == before


# search expand


async def test_search_expand_lists_overlay_neighbours_apart_each_marked_as_an_expansion(
    make_server: ServerFactory, built: Built, embedder: Embedder
):
    server = make_server(built.root, embedder=embedder)
    plain = payload(await call(server, action="search", query="cost model decision", limit=3))
    body = payload(await call(server, action="search", query="cost model decision", limit=3, expand=True))
    assert body["hits"] == plain["hits"] and plain["expansions"] == [] and plain["overlay"] is None
    hits = {hit["address"] for hit in body["hits"]}
    assert body["expansions"] and body["overlay"]["drift"] == "fresh"
    for entry in body["expansions"]:
        assert entry["expansion"] is True and entry["via"] in hits and entry["address"] not in hits
        assert entry["overlay"] == "generic" and entry["title"]
    assert len({e["address"] for e in body["expansions"]}) == len(body["expansions"])
    assert f"+{len(body['expansions'])} overlay neighbour(s)" in body["summary"]


async def test_search_expand_over_memory_only_adds_no_zettelkasten_neighbour(
    make_server: ServerFactory, built: Built, embedder: Embedder
):
    body = payload(
        await call(make_server(built.root, embedder=embedder), action="search", query="costs", projects=[], expand=True)
    )
    assert all(entry["store"] == "memory" for entry in body["expansions"])


# validation


@pytest.mark.parametrize(
    ("arguments", "parameter"),
    [
        ({"action": "build", "kind": "weird"}, "kind"),
        ({"action": "build", "kind": 1}, "kind"),
        ({"action": "build", "min_confidence": 1.5}, "min_confidence"),
        ({"action": "build", "min_confidence": "0.5"}, "min_confidence"),
        ({"action": "build", "projects": "research"}, "projects"),
        ({"action": "build", "projects": ["../up"]}, "projects"),
        ({"action": "build", "projects": ["nosuch"]}, "projects"),
        ({"action": "connections"}, "id"),
        ({"action": "connections", "id": ""}, "id"),
        ({"action": "connections", "id": "deci\x00e17103e8"}, "id"),
        ({"action": "connections", "id": "x" * 1001}, "id"),
        ({"action": "connections", "id": DECISION, "limit": 0}, "limit"),
        ({"action": "connections", "id": DECISION, "kind": "both"}, "kind"),
        ({"action": "matrix", "synthesize": "yes"}, "synthesize"),
        ({"action": "matrix", "limit": 101}, "limit"),
        ({"action": "matrix", "limit": "5"}, "limit"),
        ({"action": "matrix", "projects": ["nosuch"]}, "projects"),
        ({"action": "synthesize", "kind": "generic"}, "kind"),
        ({"action": "synthesize", "min_confidence": -0.1}, "min_confidence"),
        ({"action": "synthesize", "limit": True}, "limit"),
        ({"action": "debate", "kind": "claims"}, "kind"),
        ({"action": "debate", "projects": [1]}, "projects"),
        ({"action": "frame"}, "question"),
        ({"action": "frame", "question": "   "}, "question"),
        ({"action": "frame", "question": "costs\x00"}, "question"),
        ({"action": "frame", "question": "q" * 2001}, "question"),
        ({"action": "frame", "question": QUESTION, "limit": 51}, "limit"),
        ({"action": "search", "query": "costs", "expand": "true"}, "expand"),
        ({"action": "matrix", "depth": 2}, "depth"),
        ({"action": "frame", "question": QUESTION, "kind": "claim"}, "kind"),
        ({"action": "debate", "synthesize": True}, "synthesize"),
    ],
)
async def test_a_bad_overlay_parameter_is_refused_naming_it(
    make_server: ServerFactory, built: Built, arguments: dict[str, Any], parameter: str
):
    before = snapshot(built.root)
    error = error_of(await call(make_server(built.root), **arguments))
    assert error["kind"] == "invalid_input" and error["parameter"] == parameter, error
    assert snapshot(built.root) == before


# the tool as listed


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
