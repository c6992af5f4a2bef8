"""Two public Obsidian vaults adopted as they are: one found without ``.obsidian/``, one that is mostly properties.

``obsidian-starter-kit`` commits no settings folder, names its files with
spaces and decomposed non-ASCII letters (``So`` + U+0308 ``nke Ahrens.md``) and
links with wikilinks and percent-encoded Markdown links. ``obsidian-kepano``
keeps most of what it knows in front-matter properties whose values are
wikilinks. Each is committed to a real git repository; adopt, load, lint,
search and get run on it as on a user's clone.
"""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from adapters.base import Node
from adapters.index import Embedder
from adapters.notes import NotesAdapter
from synapse_server.actions.deps import ServerSettings
from synapse_server.mcp.server import build_server
from synapse_server.workspace.adopt import adopt, detect
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.lint import lint_workspace
from tests.support.source_fixtures import commit_all
from tests.support.wild_repos import wild_files, wild_repo

pytestmark = pytest.mark.anyio

SONKE = unicodedata.normalize("NFD", "Sönke Ahrens")
"""The file name as upstream committed it: decomposed, as macOS writes it."""


def _nodes(root: Path, folder: str, project: str) -> tuple[dict[str, Node], list[str]]:
    result = NotesAdapter(Path(folder), root, root, project).load()
    return {n.address: n for n in result.nodes}, [d.format() for d in result.diagnostics]


def _notes_in(name: str, folder: str = "") -> int:
    return sum(1 for _ in (wild_files(name) / folder).rglob("*.md"))


def test_a_vault_without_its_settings_folder_is_adopted_by_what_its_notes_hold(tmp_path: Path) -> None:
    root = wild_repo("obsidian-starter-kit", tmp_path / "kit")
    assert not (root / "Starter-Kit" / ".obsidian").exists()
    found = [(f.source.kind, f.source.path, f.files) for f in detect(root)]
    assert found == [("notes", "Starter-Kit", _notes_in("obsidian-starter-kit", "Starter-Kit"))]


def test_a_properties_vault_is_adopted_with_its_settings_folder_and_without_it(tmp_path: Path) -> None:
    root = wild_repo("obsidian-kepano", tmp_path / "kepano")
    assert [(f.source.kind, f.source.path, f.source.name) for f in detect(root)] == [("notes", ".", "vault")]
    shutil.rmtree(root / ".obsidian")
    assert [(f.source.kind, f.source.path, f.source.name) for f in detect(root)] == [("notes", ".", "vault")]


def test_a_decomposed_file_name_is_a_composed_id_and_its_wikilinks_resolve(tmp_path: Path) -> None:
    root = wild_repo("obsidian-starter-kit", tmp_path / "kit")
    assert (root / "Starter-Kit" / "2_Literature" / f"{SONKE}.md").is_file()
    nodes, _ = _nodes(root, "Starter-Kit", "kit")
    person = nodes["zk:kit:sönke-ahrens"]
    assert person.path == f"Starter-Kit/2_Literature/{SONKE}.md" and person.title == "Sönke Ahrens"
    book = next(n for n in nodes.values() if (n.path or "").endswith(f"How to take Smart Notes - {SONKE}.md"))
    assert ("links-to", "zk:kit:sönke-ahrens") in {(e.rel, e.dst) for e in book.edges}


def test_percent_encoded_markdown_links_resolve_by_path_or_by_file_name(tmp_path: Path) -> None:
    root = wild_repo("obsidian-starter-kit", tmp_path / "kit")
    nodes, _ = _nodes(root, "Starter-Kit", "kit")
    home = nodes["zk:kit:home"]  # [ARCO](ARCO%20View.md) names a note filed in 5_Structure/
    assert {"zk:kit:arco-view", "zk:kit:inspect-view"} <= {e.dst for e in home.edges if e.rel == "links-to"}


def test_properties_become_a_readable_section_and_their_wikilinks_edges(tmp_path: Path) -> None:
    root = wild_repo("obsidian-kepano", tmp_path / "kepano")
    nodes, diagnostics = _nodes(root, ".", "vault")
    film = nodes["zk:vault:blade-runner"]
    assert film.body.startswith("## Properties\n\n")  # the file holds properties only: no longer an empty node
    for line in ("- categories: Movies", "- director: Ridley Scott", "- year: 1982", "- last: 2023-09-14"):
        assert line in film.body.splitlines()
    assert film.meta["properties"]["genre"] == "Sci-fi"
    assert {("links-to", "zk:vault:movies"), ("links-to", "zk:vault:sci-fi")} <= {(e.rel, e.dst) for e in film.edges}
    assert "References/Blade Runner.md:7: warning[dangling-ref] link [[Ridley Scott]] in property 'director' " in (
        "\n".join(diagnostics) + " "
    )


def test_properties_follow_the_notes_own_text_so_its_lines_still_match_the_file(tmp_path: Path) -> None:
    root = wild_repo("obsidian-kepano", tmp_path / "kepano")
    nodes, _ = _nodes(root, ".", "vault")
    meeting = nodes["zk:vault:2023-09-12-meeting-with-steph"]
    text, _, section = meeting.body.partition("\n\n## Properties\n\n")
    source = (root / "Notes" / "2023-09-12 Meeting with Steph.md").read_text(encoding="utf-8")
    assert text and text in source
    assert section.splitlines() == [
        "- categories: Meetings",
        "- date: 2023-09-12",
        "- org: Obsidian",
        "- loc: Remote",
        "- people: Steph Ango",
        "- topics: Emergence",
    ]  # `type: []` is empty and left out


def test_a_vault_counts_the_notes_it_read_and_names_each_file_it_skipped(tmp_path: Path) -> None:
    root = wild_repo("obsidian-kepano", tmp_path / "kepano")
    (root / "Notes" / "Scanned receipt.md").write_bytes(b"%PDF-1.4\x00\x01binary")
    (root / "Notes" / "Broken properties.md").write_text("---\ntitle: [unclosed\n---\nText.\n", encoding="utf-8")
    commit_all(root, "two files that are not readable notes")
    result = NotesAdapter(Path("."), root, root, "vault").load()
    assert result.files_read == _notes_in("obsidian-kepano")
    assert {(s.path, s.reason) for s in result.skipped} == {
        ("Notes/Scanned receipt.md", "binary file"),
        ("Notes/Broken properties.md", "broken front matter"),
    }


def test_lint_reports_per_source_what_it_read_and_what_it_skipped(tmp_path: Path) -> None:
    root = wild_repo("obsidian-kepano", tmp_path / "kepano")
    (root / "Notes" / "Scanned receipt.md").write_bytes(b"%PDF-1.4\x00\x01binary")
    commit_all(root, "a binary file named like a note")
    adopt(root)
    report = lint_workspace(load_workspace(root))
    assert ("Notes/Scanned receipt.md", "binary") in {(d.path, d.code) for d in report.diagnostics}
    accounts = json.loads(report.to_json())["sources"]
    notes = next(a for a in accounts if a["kind"] == "notes")
    assert notes["files_read"] == _notes_in("obsidian-kepano")
    assert [(g["reason"], g["paths"]) for g in notes["groups"]] == [("binary file", ["Notes/Scanned receipt.md"])]
    code = next(a for a in accounts if a["kind"] == "code")
    assert any("Attachments/out-of-control.jpg" in g["paths"] for g in code["groups"])


def _payload(result: Any) -> dict[str, Any]:
    assert result.structured_content is not None, result
    return dict(result.structured_content)


async def test_search_and_get_find_notes_by_body_words_properties_and_names_with_spaces(
    tmp_path: Path, embedder: Embedder
) -> None:
    from mcp import Client

    root = wild_repo("obsidian-starter-kit", tmp_path / "kit")
    shutil.copytree(wild_files("obsidian-kepano"), root / "kepano")
    commit_all(root, "a second vault")
    adopt(root)
    server = build_server(ServerSettings(root=root, prespawn=False), embedder=embedder)
    async with Client(server) as client:

        async def hits(query: str) -> list[str]:
            found = _payload(await client.call_tool("synapse", {"action": "search", "query": query, "limit": 5}))
            return [hit["address"] for hit in found["hits"]]

        assert "zk:starter-kit:apples-vision-statement" in await hits("We believe in the simple not the complex")
        assert "zk:starter-kit:sönke-ahrens" in await hits("Sönke Ahrens")
        assert "zk:kepano:blade-runner" in await hits("Blade Runner directed by Ridley Scott")
        by_path = _payload(
            await client.call_tool(
                "synapse", {"action": "get", "id": "Starter-Kit/3_Permanent/Apples Vision Statement.md"}
            )
        )
        assert by_path["address"] == "zk:starter-kit:apples-vision-statement"
        person = _payload(await client.call_tool("synapse", {"action": "get", "id": "zk:starter-kit:sönke-ahrens"}))
        assert person["path"] == f"Starter-Kit/2_Literature/{SONKE}.md"
        film = _payload(await client.call_tool("synapse", {"action": "get", "id": "zk:kepano:blade-runner"}))
        assert film["meta"]["properties"]["director"] == "Ridley Scott"


def test_a_top_level_heading_after_a_section_heading_names_a_section_not_the_note(tmp_path: Path) -> None:
    root = wild_repo("obsidian-kepano", tmp_path / "kepano")
    nodes, _ = _nodes(root, ".", "vault")
    assert nodes["zk:vault:kevin-kelly"].title == "Kevin Kelly"  # "## Books" comes before "# Clippings"
