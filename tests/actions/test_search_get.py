"""search and get through the in-memory MCP client, on the demo workspace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters.index import Embedder
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import Stores
from tests.support.servers import ServerFactory
from tests.support.tool_calls import call, error_of, payload

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]

DECISION = "mem:tree:deci-e17103e8"
NOTE = "zk:research:20260406-0900-cross-sectional-momentum"


def test_the_module_runs_on_the_backend_it_is_parametrised_with(
    demo_root: Path, embedder: Embedder, workspace_backend: str
):
    with Stores.load(load_workspace(demo_root)).open_index(embedder) as index:
        store = type(index.store).__name__
    assert store == {"sqlite": "EmbeddedStore", "postgres": "PgStore"}[workspace_backend]


async def test_search_tags_every_hit_with_store_tier_and_channel_ranks(
    make_server: ServerFactory, demo_root: Path, embedder: Embedder
):
    body = payload(await call(make_server(demo_root, embedder=embedder), action="search", query="transaction costs"))
    assert body["action"] == "search" and body["projects"] == ["research", "execution"]
    assert body["hits"], body["summary"]
    for rank, hit in enumerate(body["hits"], 1):
        assert hit["rank"] == rank
        assert (hit["store"], hit["tier"]) in {("memory", "practice"), ("zk", "canon")}
        assert hit["lexical_rank"] is not None or hit["semantic_rank"] is not None
        assert isinstance(hit["relaxed"], bool) and hit["title"] and hit["snippet"]
    assert {hit["store"] for hit in body["hits"]} == {"memory", "zk"}
    assert body["summary"].startswith(f"{len(body['hits'])} hits for 'transaction costs'")


async def test_a_query_nothing_matches_says_so_and_names_only_the_nearest_document(
    make_server: ServerFactory, demo_root: Path, embedder: Embedder
):
    body = payload(
        await call(make_server(demo_root, embedder=embedder), action="search", query="zebra saxophone quantum")
    )
    assert body["relevant"] is False
    assert all(hit["lexical_rank"] is None for hit in body["hits"])
    assert body["summary"].startswith("no relevant match for 'zebra saxophone quantum'")
    assert f"nearest: {body['hits'][0]['title']}" in body["summary"]


async def test_a_query_with_a_keyword_match_is_relevant(
    make_server: ServerFactory, demo_root: Path, embedder: Embedder
):
    body = payload(await call(make_server(demo_root, embedder=embedder), action="search", query="transaction costs"))
    assert body["relevant"] is True


async def test_search_never_returns_code_but_finds_runs_tagged_as_data_without_a_tier(
    make_server: ServerFactory, demo_root: Path, embedder: Embedder
):
    body = payload(
        await call(make_server(demo_root, embedder=embedder), action="search", query="backtest.py run", limit=100)
    )
    assert all(hit["address"].split(":")[0] in {"mem", "zk", "data"} for hit in body["hits"])
    runs = [hit for hit in body["hits"] if hit["address"].startswith("data:runs:")]
    assert runs and all((hit["store"], hit["tier"]) == ("data", None) for hit in runs)


async def test_search_with_an_empty_project_list_searches_memory_only(
    make_server: ServerFactory, demo_root: Path, embedder: Embedder
):
    body = payload(await call(make_server(demo_root, embedder=embedder), action="search", query="costs", projects=[]))
    assert body["projects"] == [] and body["hits"]
    assert all(hit["store"] == "memory" for hit in body["hits"])


async def test_search_with_one_project_keeps_memory_and_only_that_project(
    make_server: ServerFactory, demo_root: Path, embedder: Embedder
):
    server = make_server(demo_root, embedder=embedder)
    body = payload(await call(server, action="search", query="costs", projects=["execution"], limit=30))
    assert body["projects"] == ["execution"]
    assert {hit["project"] for hit in body["hits"] if hit["store"] == "zk"} == {"execution"}


async def test_search_accepts_a_project_list_sent_as_a_json_string(
    make_server: ServerFactory, demo_root: Path, embedder: Embedder
):
    body = payload(
        await call(make_server(demo_root, embedder=embedder), action="search", query="costs", projects='["research"]')
    )
    assert body["projects"] == ["research"]


async def test_search_honours_the_limit(make_server: ServerFactory, demo_root: Path, embedder: Embedder):
    body = payload(await call(make_server(demo_root, embedder=embedder), action="search", query="momentum", limit=2))
    assert len(body["hits"]) == 2


async def test_get_returns_a_memory_entrys_full_body_and_metadata_by_id(make_server: ServerFactory, demo_root: Path):
    body = payload(await call(make_server(demo_root), action="get", id="deci-e17103e8"))
    assert body["address"] == DECISION and body["store"] == "mem" and body["tier"] == "practice"
    assert body["title"] == "Cost-model decision" and body["type"] == "decision"
    assert body["body"].startswith("Transaction costs increased from 5 bps to 8 bps.")
    assert body["truncated"] is False and body["path"] == ".memory/tree/deci-e17103e8.md"
    assert body["tethers"][0]["kind"] == "git-pin" and body["tethers"][0]["target"] == "models/costs.py"
    assert body["meta"]["tags"] == ["costs", "backtest"]
    assert any(edge["rel"] == "cites" for edge in body["edges"])


async def test_get_accepts_the_same_entry_by_canonical_address(make_server: ServerFactory, demo_root: Path):
    by_id = payload(await call(make_server(demo_root), action="get", id="deci-e17103e8"))
    by_address = payload(await call(make_server(demo_root), action="get", id=DECISION))
    assert by_id == by_address


@pytest.mark.parametrize(
    ("address", "family", "tier"),
    [
        (NOTE, "zk", "canon"),
        ("repo:momentum:models/costs.py", "code", None),
        ("repo:momentum:models.costs.trade_cost", "code", None),
        ("data:runs:run-002", "data", None),
    ],
)
async def test_get_reads_any_canonical_address(
    make_server: ServerFactory, demo_root: Path, address: str, family: str, tier: str | None
):
    body = payload(await call(make_server(demo_root), action="get", id=address))
    assert body["address"] == address and body["family"] == family and body["tier"] == tier
    assert body["body"]


async def test_get_of_an_unknown_id_is_not_found(make_server: ServerFactory, demo_root: Path):
    error = error_of(await call(make_server(demo_root), action="get", id="deci-00000000"))
    assert error == {
        "kind": "not_found",
        "message": "no node has the address mem:tree:deci-00000000",
        "parameter": "id",
    }


@pytest.mark.parametrize(
    "ident",
    [
        "../../etc/passwd",
        "..",
        "tree/../../secret",
        "repo:momentum:../outside.txt",
        "repo:momentum:models/../../outside.py",
        "zk:..:note",
        "repo:momentum:/etc/passwd",
        "deci\\..\\x",
        "/etc/passwd",
    ],
)
async def test_get_refuses_ids_that_would_leave_the_workspace(make_server: ServerFactory, demo_root: Path, ident: str):
    error = error_of(await call(make_server(demo_root), action="get", id=ident))
    assert error["kind"] == "path_outside_workspace" and error["parameter"] == "id"


async def test_get_refuses_a_memory_file_that_is_a_symlink_out_of_the_workspace(
    make_server: ServerFactory, fresh_demo: Path, tmp_path: Path
):
    secret = tmp_path / "secret.md"
    secret.write_text("---\nid: deci-5ec12e70\nkind: decision\ntitle: leaked\n---\nprivate\n", encoding="utf-8")
    os.symlink(secret, fresh_demo / ".memory" / "tree" / "deci-5ec12e70.md")
    result = await call(make_server(fresh_demo), action="get", id="deci-5ec12e70")
    error = error_of(result)
    assert error["kind"] == "path_outside_workspace" and "private" not in str(result.structured_content)


async def test_a_malformed_address_is_invalid_input(make_server: ServerFactory, demo_root: Path):
    error = error_of(await call(make_server(demo_root), action="get", id="mem:tree"))
    assert error["kind"] == "invalid_input" and error["parameter"] == "id"


async def test_a_running_server_sees_a_new_memory_entry_without_a_restart(
    make_server: ServerFactory, fresh_demo: Path, embedder: Embedder
):
    server = make_server(fresh_demo, embedder=embedder)
    assert error_of(await call(server, action="get", id="note-0000aaaa"))["kind"] == "not_found"
    entry = fresh_demo / ".memory" / "tree" / "note-0000aaaa.md"
    entry.write_text(
        "---\nid: note-0000aaaa\nkind: note\ntitle: Zebra liquidity note\nparent: root-5e1f0a2b\n---\n"
        "Zebra liquidity dried up on Fridays.\n",
        encoding="utf-8",
    )
    assert payload(await call(server, action="get", id="note-0000aaaa"))["title"] == "Zebra liquidity note"
    hits = payload(await call(server, action="search", query="zebra liquidity", projects=[]))["hits"]
    assert hits[0]["address"] == "mem:tree:note-0000aaaa"
