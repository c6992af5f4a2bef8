"""A markdown folder or Obsidian vault as a zettelkasten project: ids from file names, wikilinks and tags as edges."""

from __future__ import annotations

from pathlib import Path

from adapters.base import Node, TetherKind
from adapters.notes import NotesAdapter
from tests.support.source_fixtures import commit_all, make_repo, vault_files, write_files


def _vault(tmp_path: Path, *, commit: bool = True) -> tuple[Path, dict[str, Node], list[str]]:
    root = make_repo(tmp_path / "repo")
    vault_files(root / "vault")
    if commit:
        commit_all(root, "vault")
    result = NotesAdapter(Path("vault"), root, root, "vault").load()
    return root, {n.address: n for n in result.nodes}, [d.format() for d in result.diagnostics]


def test_notes_get_ids_from_file_names_and_titles_from_headings(tmp_path: Path) -> None:
    _, nodes, _ = _vault(tmp_path)
    notes = {a for a, n in nodes.items() if n.type != "tag"}
    assert notes == {"zk:vault:event-sourcing", "zk:vault:projections", "zk:vault:2024-05-02"}
    event = nodes["zk:vault:event-sourcing"]
    assert (event.family, event.type, event.title) == ("zk", "note", "Event sourcing")
    assert event.meta["aliases"] == ("ES",) and event.meta["project"] == "vault"
    assert nodes["zk:vault:2024-05-02"].title == "2024-05-02"  # no heading: the file name stands in


def test_wikilinks_with_headings_aliases_and_folder_paths_resolve_to_edges(tmp_path: Path) -> None:
    _, nodes, diagnostics = _vault(tmp_path)
    projections = {(e.rel, e.dst) for e in nodes["zk:vault:projections"].edges}
    assert ("links-to", "zk:vault:event-sourcing") in projections  # [[Event sourcing#Replay|replaying events]]
    assert ("links-to", "zk:vault:2024-05-02") in projections  # [[Daily/2024-05-02]]
    daily = {(e.rel, e.dst) for e in nodes["zk:vault:2024-05-02"].edges}
    assert ("links-to", "zk:vault:event-sourcing") in daily  # [[ES]] is an alias
    assert not any("balance-chart" in dst for _, dst in daily)  # an embedded image is not a note
    assert [d for d in diagnostics if "dangling-ref" in d] == [
        "vault/Daily/2024-05-02.md:5: warning[dangling-ref] link [[Snapshot policy]] names no note in this vault"
    ]


def test_tags_from_text_and_front_matter_become_tag_nodes_listing_their_notes(tmp_path: Path) -> None:
    _, nodes, _ = _vault(tmp_path)
    reporting = nodes["zk:vault:tag/reporting"]
    assert reporting.type == "tag" and {e.dst for e in reporting.edges} == {
        "zk:vault:projections",
        "zk:vault:2024-05-02",
    }
    assert ("tagged", "zk:vault:tag/architecture") in {(e.rel, e.dst) for e in nodes["zk:vault:event-sourcing"].edges}
    assert "zk:vault:tag/replay" not in nodes  # '## Replay' is a heading, not a tag


def test_tracked_notes_are_pinned_and_untracked_ones_hashed(tmp_path: Path) -> None:
    _, committed, _ = _vault(tmp_path / "a")
    assert committed["zk:vault:projections"].tethers[0].kind is TetherKind.GIT_PIN
    _, loose, _ = _vault(tmp_path / "b", commit=False)
    (tether,) = loose["zk:vault:projections"].tethers
    assert tether.kind is TetherKind.CONTENT_HASH and tether.target == "vault/Projections.md"


def test_the_obsidian_settings_folder_and_binary_attachments_are_not_notes(tmp_path: Path) -> None:
    _, nodes, diagnostics = _vault(tmp_path)
    assert not any(".obsidian" in (n.path or "") or (n.path or "").endswith(".png") for n in nodes.values())
    assert not any("binary" in d for d in diagnostics)


def test_names_with_spaces_umlauts_and_percent_signs_are_notes_whose_wikilinks_resolve(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    write_files(
        root / "vault",
        {
            "Über Notizen.md": "# Über Notizen\n\nWhy we keep notes: see [[Some Note]] and [[100% done]].\n",
            "Some Note.md": "Back to [[über notizen]].\n",
            "100% done.md": "---\nstatus: done\n---\nFinished.\n",
        },
    )
    commit_all(root, "vault")
    result = NotesAdapter(Path("vault"), root, root, "vault").load()
    nodes = {n.address: n for n in result.nodes}
    assert set(nodes) == {"zk:vault:über-notizen", "zk:vault:some-note", "zk:vault:100%25-done"}
    assert {e.dst for e in nodes["zk:vault:über-notizen"].edges} == {"zk:vault:some-note", "zk:vault:100%25-done"}
    assert [e.dst for e in nodes["zk:vault:some-note"].edges] == ["zk:vault:über-notizen"]
    assert nodes["zk:vault:100%25-done"].body == "Finished.\n\n## Properties\n\n- status: done"
    assert (result.files_read, result.skipped, result.diagnostics) == (3, (), ())


def test_a_note_named_outside_ascii_is_pinned_at_the_commit_that_last_changed_it(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    write_files(root / "vault", {"Über Notizen.md": "# Über\n", "Plain.md": "# Plain\n"})
    first = commit_all(root, "two notes")
    write_files(root / "vault", {"Plain.md": "# Plain\n\nEdited later.\n"})
    second = commit_all(root, "edit the plain note")
    nodes = {n.address: n for n in NotesAdapter(Path("vault"), root, root, "vault").load().nodes}
    assert nodes["zk:vault:über-notizen"].tethers[0].ref == first
    assert nodes["zk:vault:plain"].tethers[0].ref == second
