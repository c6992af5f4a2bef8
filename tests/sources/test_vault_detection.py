"""Which folders ``init --adopt`` takes as vaults when no ``.obsidian/`` says so, and which it only names in a hint.

A vault is found by what its notes hold: wikilinks (in text or properties)
and front matter. A code project's ``docs/`` of plain pages, or of a site
generator's pages with front matter but no wikilinks, is not a vault; ADR
folders belong to the adr kind. Every note here is written for this test.
"""

from __future__ import annotations

from pathlib import Path

from synapse_server.workspace.adopt import _walk, detect
from synapse_server.workspace.source_kinds.notes import NotesKind
from tests.support.source_fixtures import write_files


def _found(root: Path) -> list[tuple[str, str, str | None]]:
    return [(f.source.kind, f.source.path, f.source.name) for f in detect(root)]


def _hints(root: Path) -> list[str]:
    return NotesKind().hints(root, _walk(root))


def _linked_notes(prefix: str, names: list[str]) -> dict[str, str]:
    """Notes that link to each other in a ring, as a vault's notes do."""
    return {
        f"{prefix}{name}.md": f"# {name}\n\nSee [[{names[(i + 1) % len(names)]}]] for the next step.\n"
        for i, name in enumerate(names)
    }


def test_a_notes_folder_that_links_with_wikilinks_is_a_vault_and_the_root_is_not(tmp_path: Path) -> None:
    write_files(tmp_path, {"README.md": "# Billing\n", "CHANGELOG.md": "# Changes\n", "src/app.py": "x = 1\n"})
    write_files(tmp_path, _linked_notes("notes/", ["Ledger", "Rounding", "Refunds", "Invoices"]))
    assert _found(tmp_path) == [("notes", "notes", None)]


def test_docs_with_site_front_matter_but_no_wikilinks_is_no_vault_and_gets_a_hint(tmp_path: Path) -> None:
    pages = {f"docs/page-{i}.md": f"---\ntitle: Page {i}\nsidebar_position: {i}\n---\n\nText {i}.\n" for i in range(6)}
    write_files(tmp_path, {**pages, "docs/intro.md": "# Intro\n\nSee [the first page](page-0.md).\n"})
    assert _found(tmp_path) == []
    [hint] = _hints(tmp_path)
    assert hint.startswith("docs/ holds 7 markdown files") and "{kind: notes, path: docs}" in hint


def test_two_stray_wikilinks_do_not_make_a_vault(tmp_path: Path) -> None:
    write_files(tmp_path, {f"docs/page-{i}.md": f"# Page {i}\n\nPlain text.\n" for i in range(6)})
    write_files(tmp_path, _linked_notes("docs/", ["A", "B"]))
    assert _found(tmp_path) == []


def test_properties_that_are_wikilinks_count_as_links(tmp_path: Path) -> None:
    films = {
        f"library/{name}.md": f'---\ncategories:\n  - "[[Films]]"\nyear: {1980 + i}\n---\n'
        for i, name in enumerate(["Heat", "Ran", "Alien", "Brazil"])
    }
    write_files(tmp_path, {**films, "library/Films.md": "---\ntags: [categories]\n---\n"})
    assert _found(tmp_path) == [("notes", "library", None)]


def test_per_language_vaults_whose_links_stay_inside_are_adopted_apart(tmp_path: Path) -> None:
    write_files(tmp_path, _linked_notes("help/en/", ["Start", "Links", "Tags", "Search"]))
    write_files(tmp_path, _linked_notes("help/de/", ["Anfang", "Verweise", "Schlagwörter", "Suche"]))
    assert _found(tmp_path) == [("notes", "help/de", None), ("notes", "help/en", None)]


def test_a_vault_filed_by_topic_that_links_across_its_folders_is_one_vault(tmp_path: Path) -> None:
    write_files(tmp_path, _linked_notes("kb/", ["people/Ada", "places/Turin", "people/Carlo", "places/Lyon"]))
    for path in list((tmp_path / "kb").rglob("*.md")):  # a link names a note by its file name, not its folder
        path.write_text(path.read_text(encoding="utf-8").replace("[[people/", "[[").replace("[[places/", "[["))
    assert _found(tmp_path) == [("notes", "kb", None)]


def test_an_adr_folder_is_the_adr_kinds_even_when_its_records_use_wikilinks(tmp_path: Path) -> None:
    records = {
        f"docs/adr/000{i}-choice-{i}.md": f"# {i}. Choice {i}\n\n## Status\n\nAccepted\n\nSee [[000{(i % 4) + 1}]].\n"
        for i in range(1, 5)
    }
    write_files(tmp_path, records)
    assert [kind for kind, _, _ in _found(tmp_path)] == ["adr"]


def test_two_vaults_with_the_same_folder_name_get_distinct_names(tmp_path: Path) -> None:
    write_files(tmp_path, _linked_notes("team-a/notes/", ["One", "Two", "Three"]))
    write_files(tmp_path, _linked_notes("team-b/notes/", ["Uno", "Dos", "Tres"]))
    assert _found(tmp_path) == [("notes", "team-a/notes", "team-a-notes"), ("notes", "team-b/notes", "team-b-notes")]
